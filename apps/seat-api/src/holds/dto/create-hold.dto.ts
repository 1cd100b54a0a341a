import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsInt,
  Matches,
  Max,
  Min,
  IsObject,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { validBodyShortcut } from '../../common/validation';
import { BestAvailableDto } from '../allocation/best-available.dto';

export const SEAT_ID = /^[A-Za-z0-9._-]{1,32}$/;
/**
 * The body's limits, each defined here once: class-validator's decorators, the OpenAPI schema (given in
 * @ApiProperty: the swagger plugin reads only literals in the validators) and isValidCreateHold use them.
 */
const MAX_SEATS = 1000;
const MAX_TTL_SECONDS = 86400;

/** The checks of `seatIds`, in every body that names the seats to hold (this one, HoldOnBehalfDto). */
export const SeatIdsChecks = () =>
  applyDecorators(
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(MAX_SEATS),
    ArrayUnique({ message: 'seatIds must not repeat a seat' }),
    Matches(SEAT_ID, { each: true, message: 'each seat id must be 1-32 chars of letters, digits, . _ -' }),
  );

/** What `seatIds` may be, for OpenAPI (beside the body's own example and description). */
export const SEAT_IDS_SCHEMA = { minItems: 1, maxItems: MAX_SEATS, uniqueItems: true } as const;

/**
 * The checks of `ttlSeconds`, in every body that sets a hold's length. It may be left out, but not sent
 * as null: @IsOptional would let null through as "use the default" (found by rest-fuzz.e2e-spec.ts).
 */
export const TtlSecondsChecks = () =>
  applyDecorators(
    ValidateIf((_dto: unknown, value: unknown) => value !== undefined),
    IsInt(),
    Min(1),
    Max(MAX_TTL_SECONDS),
  );

/** What `ttlSeconds` may be, for OpenAPI. */
export const TTL_SECONDS_SCHEMA = {
  type: 'integer',
  example: 300,
  minimum: 1,
  maximum: MAX_TTL_SECONDS,
} as const;

/** A hold names its seats or what it wants (bestAvailable): one of the two, never both. */
const NotWithSeatIds = () =>
  ValidateBy({
    name: 'notWithSeatIds',
    validator: {
      validate: (_value: unknown, args) => (args?.object as CreateHoldDto).seatIds === undefined,
      defaultMessage: () => 'give either seatIds or bestAvailable, not both',
    },
  });

/** Bounds are checked again against configuration in the service (limits are deployment settings). */
export class CreateHoldDto {
  @ApiPropertyOptional({
    ...SEAT_IDS_SCHEMA,
    example: ['HALL-A-1', 'HALL-A-2'],
    description: 'held all or none; exactly one of seatIds and bestAvailable',
  })
  // required unless bestAvailable is given
  @ValidateIf((dto: CreateHoldDto) => dto.seatIds !== undefined || dto.bestAvailable === undefined)
  @SeatIdsChecks()
  // absent when bestAvailable is given (validated above); typed as given, as every hold by id reads it
  seatIds!: string[];

  @ApiPropertyOptional({
    type: () => BestAvailableDto,
    description:
      'instead of seatIds: the service picks seats side by side in one row, the best by the layout (front rows, then nearest the centre), never leaving a single seat alone when another choice exists',
  })
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @NotWithSeatIds()
  @IsObject()
  @ValidateNested()
  @Type(() => BestAvailableDto)
  bestAvailable?: BestAvailableDto;

  @ApiPropertyOptional({
    ...TTL_SECONDS_SCHEMA,
    description: 'hold length; default HOLD_DEFAULT_TTL_SECONDS',
  })
  @TtlSecondsChecks()
  ttlSeconds?: number;
}

/**
 * The decorators above, hand-written for the bodies they accept (the validation pipe's shortcut, see
 * validBodyShortcut): a plain object with `seatIds` (1 to MAX_SEATS distinct seat ids) and maybe
 * `ttlSeconds` (an integer 1 to MAX_TTL_SECONDS), nothing else. Anything else (a refusal, or an odd body)
 * goes through class-validator. It stays while it saves CPU per hold: docs/adr/0008-hold-path-shortcuts.md.
 */
export function isValidCreateHold(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Object.getPrototypeOf(body) !== Object.prototype) {
    return false;
  }
  const { seatIds, ttlSeconds } = body as Record<string, unknown>;
  const fields = Object.keys(body).length;
  if (fields !== (ttlSeconds === undefined ? 1 : 2) || !Array.isArray(seatIds)) {
    return false;
  }
  if (
    ttlSeconds !== undefined &&
    !(
      Number.isInteger(ttlSeconds) &&
      (ttlSeconds as number) >= 1 &&
      (ttlSeconds as number) <= MAX_TTL_SECONDS
    )
  ) {
    return false;
  }
  if (seatIds.length < 1 || seatIds.length > MAX_SEATS) {
    return false;
  }
  for (let i = 0; i < seatIds.length; i++) {
    const seat: unknown = seatIds[i];
    if (typeof seat !== 'string' || !SEAT_ID.test(seat)) {
      return false;
    }
  }
  // distinct: a scan for the usual handful of seats, a set for long lists
  return seatIds.length <= 16
    ? seatIds.every((seat, i) => seatIds.indexOf(seat) === i)
    : new Set(seatIds).size === seatIds.length;
}

validBodyShortcut(CreateHoldDto, isValidCreateHold);
