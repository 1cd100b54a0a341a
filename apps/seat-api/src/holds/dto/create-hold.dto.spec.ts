import { ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { DomainError } from '../../common/errors/domain-error';
import { createValidationPipe, VALIDATION_OPTIONS } from '../../common/validation';
import { CreateHoldDto, isValidCreateHold } from './create-hold.dto';

const body: ArgumentMetadata = { type: 'body', metatype: CreateHoldDto };
/** class-validator alone, with the service's options: what the shortcut must agree with. */
const classValidator = new ValidationPipe(VALIDATION_OPTIONS);

async function outcome(pipe: ValidationPipe, value: unknown): Promise<unknown> {
  try {
    const dto = await pipe.transform(structuredClone(value), body);
    expect(dto).toBeInstanceOf(CreateHoldDto);
    return { accepted: { ...(dto as object) } };
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return { refused: (e as DomainError).details };
  }
}

/** A small deterministic generator, so a failure names a body that can be replayed. */
function* bodies(): Generator<unknown> {
  let seed = 42;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.floor((seed / 2 ** 31) * n); // the high bits: the low ones of this LCG cycle quickly
  };
  const valid = ['S-R1-1', 'S-R1-2', 'S-R1-3', 'S-R2-10', 'A.b_c-9', 'x'.repeat(32)];
  // mostly good seats and ttls, so both sides of the shortcut are reached often
  const seat = () =>
    rnd(8) > 0
      ? valid[rnd(valid.length)]
      : [
          'S-R1-1',
          'S-R1-2',
          'A.b_c-9',
          'x'.repeat(32),
          'x'.repeat(33),
          '',
          'a b',
          'é',
          7,
          null,
          ['S-R1-1'],
          { id: 'S-R1-1' },
        ][rnd(12)];
  const ttl = () =>
    rnd(2) === 0
      ? [undefined, 1, 300, 86400][rnd(4)]
      : [undefined, 0, 86401, 1.5, -1, '300', null, true, [300]][rnd(9)];
  const areas = ['FLOOR', 'PIT', 'F_1-b', 'x'.repeat(12)];
  // a line of `places`: mostly good, else each way one can be wrong
  const line = () =>
    rnd(6) > 0
      ? { area: areas[rnd(areas.length)], quantity: 1 + rnd(10) }
      : [
          { area: 'FLOOR', quantity: 0 },
          { area: 'FLOOR', quantity: 11 },
          { area: 'FLOOR', quantity: 1.5 },
          { area: 'FLOOR', quantity: '2' },
          { area: 'x'.repeat(13), quantity: 1 },
          { area: 'A.B', quantity: 1 },
          { area: 'FLOOR' },
          { area: 'FLOOR', quantity: 1, extra: 1 },
          { area: 'FLOOR', quantity: 1, constructor: 1 },
          JSON.parse('{"area":"FLOOR","quantity":1,"__proto__":{"x":1}}'),
          'FLOOR',
          null,
          [{ area: 'FLOOR', quantity: 1 }],
        ][rnd(13)];
  for (let i = 0; i < 3000; i++) {
    const seatIds =
      rnd(10) === 0 ? [undefined, 'S-R1-1', null, {}, 5][rnd(5)] : Array.from({ length: rnd(6) }, seat);
    const b: Record<string, unknown> = rnd(3) === 0 && seatIds !== undefined ? {} : { seatIds };
    if (rnd(2) === 0) {
      b.places =
        rnd(10) === 0 ? [undefined, [], 'FLOOR', {}, 3][rnd(5)] : Array.from({ length: 1 + rnd(3) }, line);
    }
    const t = ttl();
    if (t !== undefined) {
      b.ttlSeconds = t;
    }
    if (rnd(8) === 0) {
      b[['extra', 'seats', 'toString', 'SeatIds'][rnd(4)]] = 1;
    }
    yield rnd(40) === 0 ? [null, [], 'seatIds', 3, [b]][rnd(5)] : b;
  }
  yield { seatIds: Array.from({ length: 1000 }, (_, i) => `S-${i}`) };
  yield { seatIds: Array.from({ length: 1001 }, (_, i) => `S-${i}`) };
  yield { seatIds: [...Array.from({ length: 40 }, (_, i) => `S-${i}`), 'S-3'] };
  yield { places: Array.from({ length: 100 }, (_, i) => ({ area: `A${i}`, quantity: 1 })) };
  yield { places: Array.from({ length: 101 }, (_, i) => ({ area: `A${i}`, quantity: 1 })) };
  yield {
    places: [
      { area: 'FLOOR', quantity: 1 },
      { area: 'FLOOR', quantity: 2 },
    ],
  };
}

describe('CreateHoldDto: the hand-written check behind the validation shortcut', () => {
  it('accepts only bodies class-validator accepts, and the pipe then gives the DTO class-validator gives', async () => {
    let accepted = 0;
    for (const value of bodies()) {
      if (!isValidCreateHold(value)) {
        continue; // the pipe's usual way, unchanged: class-validator answers, refusals keep their errors
      }
      accepted++;
      const expected = await outcome(classValidator, value);
      expect({ value, outcome: expected }).toEqual({ value, outcome: { accepted: expect.anything() } });
      expect({ value, outcome: await outcome(createValidationPipe(), value) }).toEqual({
        value,
        outcome: expected,
      });
    }
    expect(accepted).toBeGreaterThan(100); // the generator reaches the shortcut, not only refusals
  });

  it('takes the shortcut for the bodies a hold request sends', () => {
    expect(isValidCreateHold({ seatIds: ['S-R1-1'] })).toBe(true);
    expect(isValidCreateHold({ seatIds: ['S-R1-1', 'S-R1-2', 'S-R1-3', 'S-R1-4'], ttlSeconds: 300 })).toBe(
      true,
    );
    expect(isValidCreateHold(JSON.parse('{"seatIds":["A-1"],"ttlSeconds":60}'))).toBe(true);
    expect(isValidCreateHold({ places: [{ area: 'FLOOR', quantity: 2 }] })).toBe(true);
    expect(
      isValidCreateHold({ seatIds: ['S-R1-1', 'S-R1-2'], places: [{ area: 'FLOOR', quantity: 2 }] }),
    ).toBe(true);
  });
});
