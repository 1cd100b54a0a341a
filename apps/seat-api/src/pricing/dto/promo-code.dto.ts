import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { PROMO_KINDS, type PromoKind } from '@app/database';
import { MAX_PRICE, TICKET_TYPE_KEY, TICKET_TYPE_KEY_RULE } from './price-list.dto';
import { WellFormedText } from './well-formed-text';

/** A code's text: matched in any letter case, never holding '|' or ',' (pricing/hold-pricing.ts). */
export const PROMO_CODE = /^[A-Za-z0-9_-]{3,32}$/;
const PROMO_CODE_RULE = '3-32 letters, digits, _ or -';

/** May be left out, not sent as null (see CreateHoldDto.ttlSeconds). */
const unlessLeftOut = ValidateIf((_dto: unknown, value: unknown) => value !== undefined);

export class PromoScopeDto {
  @ApiPropertyOptional({ type: [String], description: 'only lines of these categories; left out: any' })
  @unlessLeftOut
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsString({ each: true })
  @Length(1, 40, { each: true })
  @WellFormedText({ each: true })
  categories?: string[];

  @ApiPropertyOptional({ type: [String], description: 'only lines of these ticket types; left out: any' })
  @unlessLeftOut
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ArrayUnique()
  @Matches(TICKET_TYPE_KEY, { each: true, message: `each ticket type must be ${TICKET_TYPE_KEY_RULE}` })
  ticketTypes?: string[];
}

/** A promo code of a show (what it does never changes: disable it and create another). */
export class CreatePromoCodeDto {
  @ApiProperty({ example: 'SUMMER10', description: `${PROMO_CODE_RULE}; matched in any letter case` })
  @Matches(PROMO_CODE, { message: `code must be ${PROMO_CODE_RULE}` })
  code!: string;

  @ApiProperty({
    enum: PROMO_KINDS,
    description:
      'percent: value % off each line it applies to (1-100, rounded half up per line); amount: value minor units off each line, never below 0; fixed-price: each line costs value (a cheaper line stays as it is)',
  })
  @IsIn(PROMO_KINDS)
  kind!: PromoKind;

  @ApiProperty({ type: 'integer', minimum: 0, maximum: MAX_PRICE, example: 10 })
  @IsInt()
  @Min(0)
  @Max(MAX_PRICE)
  value!: number;

  @ApiPropertyOptional({ type: () => PromoScopeDto, description: 'which lines it discounts; left out: all' })
  @unlessLeftOut
  @IsObject()
  @ValidateNested()
  @Type(() => PromoScopeDto)
  appliesTo?: PromoScopeDto;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 2_000_000_000,
    description: 'bookings that may carry it; left out: no limit',
  })
  @unlessLeftOut
  @IsInt()
  @Min(1)
  @Max(2_000_000_000)
  maxUses?: number;

  @ApiPropertyOptional({ format: 'date-time', description: 'not applied before' })
  @unlessLeftOut
  @IsISO8601({ strict: true })
  validFrom?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'not applied or redeemed from then on' })
  @unlessLeftOut
  @IsISO8601({ strict: true })
  validUntil?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'hidden ticket types a hold carrying the code may use',
  })
  @unlessLeftOut
  @IsArray()
  @ArrayMaxSize(100)
  @ArrayUnique()
  @Matches(TICKET_TYPE_KEY, { each: true, message: `each ticket type must be ${TICKET_TYPE_KEY_RULE}` })
  unlocksTicketTypes?: string[];
}

export class ApplyPromoCodeDto {
  @ApiProperty({ example: 'SUMMER10', description: 'matched in any letter case' })
  @IsString()
  @Length(1, 64)
  code!: string;
}
