import { SeatDemand } from './seat-demand';

describe('SeatDemand', () => {
  it('an event is in a rush once most recent attempts were refused as taken, and leaves it when they succeed', () => {
    const demand = new SeatDemand();
    expect(demand.isRush('e')).toBe(false);
    let attempts = 0;
    while (!demand.isRush('e')) {
      demand.record('e', true);
      attempts++;
    }
    expect(attempts).toBeGreaterThan(5); // a few 409s are not a rush
    expect(attempts).toBeLessThan(20);
    demand.record('e', false);
    expect(demand.isRush('e')).toBe(true); // one success does not end it
    for (let i = 0; i < 20; i++) {
      demand.record('e', false);
    }
    expect(demand.isRush('e')).toBe(false);
    expect(demand.isRush('other')).toBe(false);
  });

  it('remembers a bounded number of events, forgetting the least recently seen first', () => {
    const demand = new SeatDemand();
    for (let i = 0; i < 30; i++) {
      demand.record('hot', true);
    }
    for (let i = 0; i < 10_000; i++) {
      demand.record(`calm-${i}`, false);
    }
    expect(demand.isRush('hot')).toBe(false); // forgotten: it was the least recently seen
    const size = (demand as unknown as { takenShare: Map<string, unknown> }).takenShare.size;
    expect(size).toBe(10_000);
  });
});
