import { ArgumentMetadata } from '@nestjs/common';
import { ArrayMaxSize, IsArray, IsString } from 'class-validator';
import { DomainError } from './errors/domain-error';
import { ErrorCode } from './errors/error-code';
import { EMPTY_JSON_BODY } from './json-body';
import { createValidationPipe } from './validation';

class SeatsDto {
  @IsArray()
  @ArrayMaxSize(10)
  @IsString({ each: true })
  seatIds!: string[];
}

const body: ArgumentMetadata = { type: 'body', metatype: SeatsDto };

/** `depth` arrays (or objects) inside each other, built without recursion. */
function nested(depth: number, arrays: boolean): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) {
    value = arrays ? [value] : { k: value };
  }
  return value;
}

async function refusal(value: unknown): Promise<DomainError> {
  try {
    await createValidationPipe().transform(value, body);
  } catch (e) {
    return e as DomainError;
  }
  throw new Error('accepted');
}

describe('the validation pipe', () => {
  it.each([
    ['arrays 2,000 deep as the body', nested(2000, true)],
    ['objects 5,000 deep as the body', nested(5000, false)],
    ['arrays 100,000 deep in a field', { seatIds: nested(100_000, true) }],
    ['objects 33 deep in an unknown field', { seatIds: ['a'], x: nested(33, false) }],
  ])('refuses %s with 400 VALIDATION_FAILED, never a RangeError', async (_what, value) => {
    const e = await refusal(value);
    expect(e).toBeInstanceOf(DomainError);
    expect(e.code).toBe(ErrorCode.VALIDATION_FAILED);
    expect(e.details).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/deeper than 32/) }),
    ]);
  });

  it('still names prototype-named fields at any depth it accepts', async () => {
    const e = await refusal({ seatIds: ['a'], toString: 1, x: { constructor: 1 } });
    expect(e.details).toEqual(
      expect.arrayContaining([
        { field: 'toString', message: 'property toString should not exist' },
        { field: 'x.constructor', message: 'property x.constructor should not exist' },
      ]),
    );
  });

  it('refuses an empty JSON body with MALFORMED_JSON where the route takes a body', async () => {
    const e = await refusal(EMPTY_JSON_BODY);
    expect([e.code, e.message]).toEqual([
      ErrorCode.MALFORMED_JSON,
      "Body cannot be empty when content-type is set to 'application/json'",
    ]);
  });

  it.each<[string, unknown, ArgumentMetadata, string]>([
    ['a path parameter', 'h\u0000', { type: 'param', data: 'holdId' }, 'holdId'],
    ['a query parameter', { q: 'a\u0000', limit: '2' }, { type: 'query' }, 'q'],
    ['a repeated query parameter', { q: ['a', '\u0000'] }, { type: 'query' }, 'q.1'],
    ['a string deep in the body', { seatIds: ['S-A-1'], x: [{ y: '\u0000' }] }, body, 'x.0.y'],
    ['a body key', { seatIds: ['S-A-1'], ['k\u0000']: 1 }, body, 'k\\u0000'],
    ['a body that is one string', '\u0000', body, 'body'],
  ])('refuses a NUL in %s with VALIDATION_FAILED naming it', async (_what, value, metadata, field) => {
    const e = await createValidationPipe()
      .transform(value, metadata)
      .then(
        () => undefined,
        (error: DomainError) => error,
      );
    expect([e?.code, e?.details]).toEqual([
      ErrorCode.VALIDATION_FAILED,
      [{ field, message: 'must not contain the NUL character (U+0000)' }],
    ]);
  });

  it('lets the same strings without NUL through (any other character, an escaped one too)', async () => {
    const pipe = createValidationPipe();
    await expect(pipe.transform('h\\u0000é😀', { type: 'param', data: 'holdId' })).resolves.toBe(
      'h\\u0000é😀',
    );
    await expect(pipe.transform({ seatIds: ['S-A-1', 'x\u0001'] }, body)).resolves.toEqual({
      seatIds: ['S-A-1', 'x\u0001'],
    });
  });

  it('lets a body within the depth limit through to class-validator', async () => {
    await expect(createValidationPipe().transform({ seatIds: ['S-A-1'] }, body)).resolves.toEqual({
      seatIds: ['S-A-1'],
    });
    const e = await refusal({ seatIds: nested(20, true) });
    expect(e.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'seatIds' })]));
  });
});
