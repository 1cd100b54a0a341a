import { HoldRecord } from '../hold-store';
import { HoldView } from './hold.view';

describe('HoldView.of', () => {
  const record: HoldRecord = {
    holdId: 'h-1',
    eventId: 'e-1',
    userId: 'u-1',
    status: 'ACTIVE',
    seatIds: ['S-A-1', 'S-A-2'],
    createdAtMs: Date.UTC(2026, 10, 23, 18, 0, 0, 5),
    expireAtMs: Date.UTC(2026, 10, 23, 18, 10, 0, 5),
    maxExpireAtMs: Date.UTC(2026, 10, 23, 19, 0, 0, 5),
    extensionsUsed: 0,
    fencingToken: 7,
    orderId: null,
    endedAtMs: null,
    confirmDeadlineMs: null,
    nowMs: Date.UTC(2026, 10, 23, 18, 0, 30, 5),
  };

  it('renders an active hold, without endedAt', () => {
    expect(JSON.stringify(HoldView.of(record))).toBe(
      '{"holdId":"h-1","eventId":"e-1","userId":"u-1","status":"ACTIVE","seatIds":["S-A-1","S-A-2"],' +
        '"createdAt":"2026-11-23T18:00:00.005Z","expiresAt":"2026-11-23T18:10:00.005Z","expiresInSeconds":570,' +
        '"extensionsUsed":0,"fencingToken":7}',
    );
    expect('endedAt' in HoldView.of(record)).toBe(false);
  });

  it('renders a CONFIRMING hold as ACTIVE and an ended one with endedAt last', () => {
    expect(HoldView.of({ ...record, status: 'CONFIRMING' }).status).toBe('ACTIVE');
    const expired = HoldView.of({ ...record, status: 'EXPIRED' });
    expect(Object.keys(expired).at(-1)).toBe('endedAt');
    expect(expired).toMatchObject({
      status: 'EXPIRED',
      expiresInSeconds: 0,
      endedAt: '2026-11-23T18:10:00.005Z',
    });
    const released = HoldView.of({ ...record, status: 'RELEASED', endedAtMs: record.createdAtMs + 1 });
    expect(released.endedAt).toBe('2026-11-23T18:00:00.006Z');
  });
});
