import { HoldRecord } from '../hold-store';
import { HoldView, isoTime } from './hold.view';

describe('isoTime', () => {
  it.each([
    0,
    1,
    999,
    86_399_999,
    86_400_000,
    951_782_400_000, // 2000-02-29
    Date.UTC(2026, 10, 23, 23, 59, 59, 999),
    Date.UTC(2026, 10, 24),
    253_402_300_799_999, // the last ms of year 9999
  ])('writes %d as toISOString does', (ms) => {
    expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it('agrees with toISOString on random times, days apart and within a day', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 20_000; i++) {
      const ms = i % 2 ? Math.floor(random() * 253_402_300_799_999) : Date.now() + Math.floor(random() * 1e7);
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it.each([-1, -62_198_755_200_000, 253_402_300_800_000, 8.64e15, 1.5])(
    'leaves %d to toISOString (years outside 1970-9999, fractions)',
    (ms) => {
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    },
  );

  it('throws as toISOString does for a time that is not one', () => {
    expect(() => isoTime(NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });
});

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
