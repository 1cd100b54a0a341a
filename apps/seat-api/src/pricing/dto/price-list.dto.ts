import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  Equals,
  IsInt,
  IsObject,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { WellFormedText } from './well-formed-text';

/**
 * A ticket type's key: short, lower-case, and never holding '|' or ',' (a hold stores its lines' types in
 * one text: pricing/hold-pricing.ts).
 */
export const TICKET_TYPE_KEY = /^[a-z0-9][a-z0-9_-]{0,31}$/;
export const TICKET_TYPE_KEY_RULE = '1-32 of a-z, 0-9, _ or -, starting with a letter or digit';
/** Most minor units one ticket may cost: with the seats of a hold, every sum stays an exact integer. */
export const MAX_PRICE = 1_000_000_000;
/** A category's key is the layout's category (a section's `category`): 1-40 characters. */
const CATEGORY_LENGTH = { min: 1, max: 40 } as const;

/** May be left out, not sent as null (see CreateHoldDto.ttlSeconds). */
const unlessLeftOut = ValidateIf((_dto: unknown, value: unknown) => value !== undefined);

export class TicketTypeDto {
  @ApiProperty({ example: 'adult', description: `${TICKET_TYPE_KEY_RULE}; unique within its category` })
  @Matches(TICKET_TYPE_KEY, { message: `key must be ${TICKET_TYPE_KEY_RULE}` })
  key!: string;

  @ApiProperty({ example: 'Adult', description: '1-80 characters, shown to customers' })
  @IsString()
  @Length(1, 80)
  @WellFormedText()
  label!: string;

  @ApiProperty({
    type: 'integer',
    example: 4500,
    minimum: 0,
    maximum: MAX_PRICE,
    description: 'in minor units of the currency (4500 EUR = 45.00 EUR); never a fraction',
  })
  @IsInt()
  @Min(0)
  @Max(MAX_PRICE)
  price!: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 1000,
    description: 'at most this many tickets of this type in one hold',
  })
  @unlessLeftOut
  @IsInt()
  @Min(1)
  @Max(1000)
  maxPerHold?: number;

  @ApiPropertyOptional({
    enum: [true],
    description:
      'sold only to a hold whose promo code unlocks it (presales, comps); left out: sold to anyone',
  })
  @unlessLeftOut
  @Equals(true, { message: 'hidden must be true or left out' })
  hidden?: true;
}

export class CategoryPricesDto {
  @ApiProperty({
    example: 'standard',
    description: "a category of the show's layout (a section's category)",
    minLength: CATEGORY_LENGTH.min,
    maxLength: CATEGORY_LENGTH.max,
  })
  @IsString()
  @Length(CATEGORY_LENGTH.min, CATEGORY_LENGTH.max)
  @WellFormedText()
  key!: string;

  @ApiProperty({
    type: [TicketTypeDto],
    description: '1-20 types; the first one not hidden is what a seat is sold as when a hold names no type',
  })
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => TicketTypeDto)
  @ArrayMinSize(1)
  @ArrayMaxSize(20)
  ticketTypes!: TicketTypeDto[];
}

/** A show's whole price list: every category of its layout, each with its ticket types. */
export class PriceListDto {
  @ApiProperty({ example: 'EUR', description: 'ISO 4217 code (three capital letters)' })
  @Matches(/^[A-Z]{3}$/, { message: 'currency must be an ISO 4217 code, three capital letters' })
  currency!: string;

  @ApiProperty({ type: [CategoryPricesDto], description: "every category of the show's layout, each once" })
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => CategoryPricesDto)
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  categories!: CategoryPricesDto[];
}
