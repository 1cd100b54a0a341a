import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsInt,
  IsISO8601,
  IsObject,
  IsString,
  Length,
  IsOptional,
  Matches,
  Max,
  Min,
  ValidateBy,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { CreateEventSettingsDto } from './event-settings.dto';

/**
 * Most seats and general-admission places one event may have, together (the seat map is one Redis hash
 * per event). The catalogue checks it once it has counted the layout; here, so the OpenAPI document states it.
 */
export const MAX_SEATS_PER_EVENT = 100_000;

const LABEL = /^[A-Za-z0-9_-]{1,12}$/;
/** Stated in the OpenAPI document (its descriptions), so a client learns the rules before a 400. */
const LABEL_RULE = '1-12 letters, digits, _ or -';

/**
 * An instant after now (the server's clock): events are created to be sold before they start. One
 * created already started would show every seat AVAILABLE while its holds are refused EVENT_ENDED (past
 * start + retention), so it is refused here, naming the field, before anything is written.
 */
const InTheFuture = () =>
  ValidateBy({
    name: 'inTheFuture',
    validator: {
      // a string that is no date is IsISO8601's to refuse: one message, the right one
      validate: (value: unknown) => {
        const at = typeof value === 'string' ? Date.parse(value) : NaN;
        return Number.isNaN(at) || at > Date.now();
      },
      defaultMessage: () => 'startsAt must be in the future',
    },
  });

/** Most places one general-admission area may have (its counts are a few numbers, whatever its size). */
export const MAX_AREA_CAPACITY = 100_000;

/** A section is rows of seats or a general-admission area of places: one of the two. */
const RowsOrCapacity = () =>
  ValidateBy({
    name: 'rowsOrCapacity',
    validator: {
      validate: (_value: unknown, args) => {
        const dto = args?.object as SectionLayoutDto;
        return (dto.rows === undefined) !== (dto.capacity === undefined);
      },
      defaultMessage: () => 'a section has either rows (seats) or capacity (a standing area): one of them',
    },
  });

/** Most seats in a row: seats are numbered 1..seats. */
const MAX_ROW_SEATS = 500;

/** What a row's list of seat numbers may be, for OpenAPI (the swagger plugin reads literals only). */
const SEAT_NUMBERS_SCHEMA = {
  minimum: 1,
  maximum: MAX_ROW_SEATS,
  maxItems: MAX_ROW_SEATS,
  uniqueItems: true,
} as const;

/** A row's list of seat numbers (its wheelchair places, their companions): optional, distinct, in the row. */
const SeatNumbers = () =>
  applyDecorators(
    ValidateIf((_dto: unknown, value: unknown) => value !== undefined),
    IsArray(),
    ArrayMaxSize(MAX_ROW_SEATS),
    ArrayUnique(),
    IsInt({ each: true }),
    Min(1, { each: true }),
    Max(MAX_ROW_SEATS, { each: true }),
  );

export class RowLayoutDto {
  @ApiProperty({ example: 'A', description: `${LABEL_RULE}; unique within its section` })
  @Matches(LABEL, { message: `row must be ${LABEL_RULE}` })
  row!: string;

  @ApiProperty({
    type: 'integer',
    example: 20,
    minimum: 1,
    maximum: MAX_ROW_SEATS,
    description: '1-500 seats, numbered 1..seats',
  })
  @IsInt()
  @Min(1)
  @Max(MAX_ROW_SEATS)
  seats!: number;

  @ApiPropertyOptional({
    type: 'integer',
    example: 10,
    description:
      'best-available holds search rows by rank, lowest first; rows without one come after the ranked ones, front rows first',
  })
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @IsInt()
  @Min(0)
  @Max(99_999)
  rank?: number;

  @ApiPropertyOptional({
    type: [Number],
    ...SEAT_NUMBERS_SCHEMA,
    example: [1],
    description:
      'seat numbers of wheelchair places (held by best-available only when it asks for accessible seats)',
  })
  @SeatNumbers()
  accessible?: number[];

  @ApiPropertyOptional({
    type: [Number],
    ...SEAT_NUMBERS_SCHEMA,
    example: [2],
    description: 'seat numbers of companion seats beside the wheelchair places (held with them)',
  })
  @SeatNumbers()
  companion?: number[];
}

export class SectionLayoutDto {
  @ApiProperty({ example: 'STALLS', description: `${LABEL_RULE}; unique within the event` })
  @Matches(LABEL, { message: `name must be ${LABEL_RULE}` })
  name!: string;

  @ApiProperty({ example: 'standard', description: '1-40 characters' })
  @IsString()
  @Length(1, 40)
  category!: string;

  @ApiPropertyOptional({
    type: [RowLayoutDto],
    description: '1-500 rows of seats; exactly one of rows and capacity',
  })
  @ValidateIf((dto: SectionLayoutDto) => dto.capacity === undefined || dto.rows !== undefined)
  @RowsOrCapacity()
  // ValidateNested takes an array element that is itself an array as a list of rows, and passes `[[]]`
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => RowLayoutDto)
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  rows?: RowLayoutDto[];

  @ApiPropertyOptional({
    type: 'integer',
    example: 2000,
    minimum: 1,
    maximum: MAX_AREA_CAPACITY,
    description:
      'instead of rows: a general-admission (standing) area of this many places, held and sold by quantity (docs/areas.md)',
  })
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @RowsOrCapacity()
  @IsInt()
  @Min(1)
  @Max(MAX_AREA_CAPACITY)
  capacity?: number;
}

/** An event and its seat layout. Seat ids are `<section>-<row>-<number>`, e.g. `STALLS-A-12`. */
export class CreateEventDto {
  @ApiProperty({ example: 'Hamlet, opening night', description: '1-200 characters' })
  @IsString()
  @Length(1, 200)
  name!: string;

  @ApiProperty({
    format: 'date-time',
    example: '2027-03-01T19:30:00Z',
    description: 'ISO 8601; must be in the future',
  })
  @IsISO8601({ strict: true })
  @InTheFuture()
  startsAt!: string;

  @ApiProperty({
    type: [SectionLayoutDto],
    description: `1-100 sections (rows of seats, or general-admission areas); the event has at most ${MAX_SEATS_PER_EVENT.toLocaleString('en')} seats and places in all`,
  })
  @IsObject({ each: true }) // as for rows
  @ValidateNested({ each: true })
  @Type(() => SectionLayoutDto)
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  sections!: SectionLayoutDto[];

  @ApiPropertyOptional({
    type: () => CreateEventSettingsDto,
    description: "the event's own hold limits and whether sales start open; left out: the deployment's, open",
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CreateEventSettingsDto)
  settings?: CreateEventSettingsDto;
}
