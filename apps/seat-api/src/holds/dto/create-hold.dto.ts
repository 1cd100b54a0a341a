import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsInt,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  IsObject,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { validBodyShortcut } from '../../common/validation';
import { TICKET_TYPE_KEY, TICKET_TYPE_KEY_RULE } from '../../pricing/dto/price-list.dto';
import { BEST_AVAILABLE_MAX_SEATS, BestAvailableDto } from '../allocation/best-available.dto';

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

/** A hold names its seats (seatIds, or seats with their ticket types) or what it wants (bestAvailable): one. */
const OnlyOneOfTheSeatForms = () =>
  ValidateBy({
    name: 'onlyOneOfTheSeatForms',
    validator: {
      validate: (_value: unknown, args) => {
        const dto = args?.object as CreateHoldDto;
        const forms = [dto.seatIds, dto.seats, dto.bestAvailable].filter((v) => v !== undefined).length;
        // places of general-admission areas go beside seats named, or alone
        return dto.places === undefined
          ? forms === 1
          : forms === 0 || (forms === 1 && dto.bestAvailable === undefined);
      },
      defaultMessage: () =>
        'give one of seatIds, seats and bestAvailable; places go alone or beside seatIds or seats',
    },
  });

/**
 * `ticketTypes` of a best-available hold: ticket type -> how many, adding up to its quantity (the types go
 * to the picked seats in the order given).
 */
const TicketTypeCounts = () =>
  ValidateBy({
    name: 'ticketTypeCounts',
    validator: {
      validate: (value: unknown, args) => {
        const dto = args?.object as CreateHoldDto;
        // with places (and no bestAvailable), the counts are of the places
        const want =
          dto.bestAvailable ?? (Array.isArray(dto.places) ? { quantity: placesIn(dto.places) } : undefined);
        if (typeof value !== 'object' || value === null || Array.isArray(value) || !want) {
          return false;
        }
        const entries = Object.entries(value as Record<string, unknown>);
        return (
          entries.length > 0 &&
          entries.every(([k, n]) => TICKET_TYPE_KEY.test(k) && Number.isInteger(n) && (n as number) >= 1) &&
          entries.reduce((sum, [, n]) => sum + (n as number), 0) === want.quantity
        );
      },
      defaultMessage: () =>
        `ticketTypes goes with bestAvailable or places: { <ticket type>: count, ... }, counts adding up to its quantity (or the places' quantities); each type ${TICKET_TYPE_KEY_RULE}`,
    },
  });

/** A seat to hold and the ticket type it is sold as. */
export class SeatLineDto {
  @ApiProperty({ example: 'HALL-A-1' })
  @Matches(SEAT_ID, { message: 'seatId must be 1-32 chars of letters, digits, . _ -' })
  seatId!: string;

  @ApiPropertyOptional({
    example: 'child',
    description:
      "a ticket type of the seat's category; left out: the category's first type sold without a code",
  })
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @Matches(TICKET_TYPE_KEY, { message: `ticketType must be ${TICKET_TYPE_KEY_RULE}` })
  ticketType?: string;
}

/** How many places a list of places asks for (entries that are not places count 0: refused elsewhere). */
function placesIn(places: unknown[]): number {
  return places.reduce<number>((n, p) => {
    const q = (p as { quantity?: unknown } | null)?.quantity;
    return n + (typeof q === 'number' ? q : 0);
  }, 0);
}

/** Most places of one area a hold may ask for. */
const MAX_PLACES_PER_AREA = 10;
/** Most areas one hold may name. */
const MAX_AREAS_PER_HOLD = 100;
const AREA_NAME = /^[A-Za-z0-9_-]{1,12}$/;

/** How many places of a general-admission area to hold. */
export class PlacesDto {
  @ApiProperty({
    example: 'FLOOR',
    pattern: AREA_NAME.source,
    description: "a general-admission area of the event's layout",
  })
  @Matches(AREA_NAME, { message: 'area must be 1-12 letters, digits, _ or -' })
  area!: string;

  @ApiProperty({ type: 'integer', example: 2, minimum: 1, maximum: MAX_PLACES_PER_AREA })
  @IsInt()
  @Min(1)
  @Max(MAX_PLACES_PER_AREA)
  quantity!: number;
}

/** The checks of `places`, in every body that holds places (this one, HoldOnBehalfDto). */
export const PlacesChecks = () =>
  applyDecorators(
    IsArray(),
    ArrayMinSize(1),
    ArrayMaxSize(MAX_AREAS_PER_HOLD),
    DistinctAreas(),
    IsObject({ each: true }),
    ValidateNested({ each: true }),
    Type(() => PlacesDto),
  );

/** No two entries of `places` name one area. */
function DistinctAreas() {
  return ValidateBy({
    name: 'distinctAreas',
    validator: {
      validate: (value: unknown) =>
        Array.isArray(value) && new Set(value.map((l: { area?: unknown }) => l?.area)).size === value.length,
      defaultMessage: () => 'places must not repeat an area',
    },
  });
}

/** No two lines of `seats` name one seat. */
const DistinctSeats = () =>
  ValidateBy({
    name: 'distinctSeats',
    validator: {
      validate: (value: unknown) =>
        Array.isArray(value) &&
        new Set(value.map((l: { seatId?: unknown }) => l?.seatId)).size === value.length,
      defaultMessage: () => 'seats must not repeat a seat',
    },
  });

/** Bounds are checked again against configuration in the service (limits are deployment settings). */
export class CreateHoldDto {
  @ApiPropertyOptional({
    ...SEAT_IDS_SCHEMA,
    example: ['HALL-A-1', 'HALL-A-2'],
    description: 'held all or none; exactly one of seatIds, seats and bestAvailable (or places alone)',
  })
  // required unless bestAvailable or seats is given
  @ValidateIf(
    (dto: CreateHoldDto) =>
      dto.seatIds !== undefined || (dto.bestAvailable ?? dto.seats ?? dto.places) === undefined,
  )
  @OnlyOneOfTheSeatForms()
  @SeatIdsChecks()
  // absent when bestAvailable or seats is given (validated above); typed as given, as every hold by id reads it
  seatIds!: string[];

  @ApiPropertyOptional({
    type: [SeatLineDto],
    minItems: 1,
    maxItems: MAX_SEATS,
    description:
      "instead of seatIds, on a priced show: each seat with the ticket type it is sold as (left out: its category's default)",
  })
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @OnlyOneOfTheSeatForms()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_SEATS)
  @DistinctSeats()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => SeatLineDto)
  seats?: SeatLineDto[];

  @ApiPropertyOptional({
    type: [PlacesDto],
    minItems: 1,
    maxItems: MAX_AREAS_PER_HOLD,
    description:
      'places of general-admission areas, 1-10 per area, each area once: alone or beside seatIds or seats, all or none with them (409 SOLD_OUT naming what each short area has left)',
  })
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @OnlyOneOfTheSeatForms()
  @PlacesChecks()
  places?: PlacesDto[];

  @ApiPropertyOptional({
    type: () => BestAvailableDto,
    description:
      'instead of seatIds: the service picks seats side by side in one row, the best by the layout (front rows, then nearest the centre), never leaving a single seat alone when another choice exists',
  })
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @OnlyOneOfTheSeatForms()
  @IsObject()
  @ValidateNested()
  @Type(() => BestAvailableDto)
  bestAvailable?: BestAvailableDto;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'integer', minimum: 1, maximum: BEST_AVAILABLE_MAX_SEATS },
    example: { adult: 2, child: 2 },
    description:
      'with bestAvailable, on a priced show: how many seats of each ticket type, adding up to its quantity (the picked seats take them in this order); left out: the default type',
  })
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @TicketTypeCounts()
  ticketTypes?: Record<string, number>;

  @ApiPropertyOptional({
    example: 'SUMMER10',
    description:
      'a promo code of the show, applied to the hold as POST /v1/holds/{holdId}/promo-code would (and so it may take the hidden types the code unlocks)',
  })
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @IsString()
  @Length(1, 64)
  promoCode?: string;

  @ApiPropertyOptional({
    ...TTL_SECONDS_SCHEMA,
    description: 'hold length; default HOLD_DEFAULT_TTL_SECONDS',
  })
  @TtlSecondsChecks()
  ttlSeconds?: number;
}

/**
 * The decorators above, hand-written for the bodies they accept (the validation pipe's shortcut, see
 * validBodyShortcut): a plain object with `seatIds` (1 to MAX_SEATS distinct seat ids), `places` (1 to 100
 * plain `{ area, quantity }`, each area once) or both, and maybe `ttlSeconds` (an integer 1 to
 * MAX_TTL_SECONDS), nothing else. Anything else (a refusal, or an odd body) goes through class-validator.
 * It stays while it saves CPU per hold: docs/adr/0008-hold-path-shortcuts.md.
 */
export function isValidCreateHold(body: unknown): boolean {
  if (!isPlainObject(body)) {
    return false;
  }
  const { seatIds, places, ttlSeconds } = body;
  const given = (seatIds === undefined ? 0 : 1) + (places === undefined ? 0 : 1);
  if (given === 0 || Object.keys(body).length !== given + (ttlSeconds === undefined ? 0 : 1)) {
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
  return (seatIds === undefined || validSeatIds(seatIds)) && (places === undefined || validPlaces(places));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

function validSeatIds(seatIds: unknown): boolean {
  if (!Array.isArray(seatIds) || seatIds.length < 1 || seatIds.length > MAX_SEATS) {
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

function validPlaces(places: unknown): boolean {
  if (!Array.isArray(places) || places.length < 1 || places.length > MAX_AREAS_PER_HOLD) {
    return false;
  }
  const areas = new Set<string>();
  for (const line of places as unknown[]) {
    if (!isPlainObject(line) || Object.keys(line).length !== 2) {
      return false;
    }
    const { area, quantity } = line;
    if (
      typeof area !== 'string' ||
      !AREA_NAME.test(area) ||
      areas.has(area) ||
      !Number.isInteger(quantity) ||
      (quantity as number) < 1 ||
      (quantity as number) > MAX_PLACES_PER_AREA
    ) {
      return false;
    }
    areas.add(area);
  }
  return true;
}

validBodyShortcut(CreateHoldDto, isValidCreateHold);
