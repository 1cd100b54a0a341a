import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsInt,
  Matches,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import { USER_ID } from '../../../auth/jwt-auth.guard';
import { SEAT_ID } from '../../dto/create-hold.dto';

/** A customer's hold's bounds (CreateHoldDto's); the event's own limits are checked in the service. */
const MAX_SEATS = 1000;
const MAX_TTL_SECONDS = 86400;

/**
 * The body of a hold staff make for a customer: the customer's user id (their token's `sub`: they then
 * read and confirm the hold with their own token), and the hold's seats and ttl as a customer sends them.
 */
export class HoldOnBehalfDto {
  @ApiProperty({
    example: 'customer-42',
    description: "the customer's user id (the `sub` of their token): the hold's holder",
    pattern: USER_ID.source,
  })
  @Matches(USER_ID, { message: 'customerId must be 1-128 chars of letters, digits, . _ @ : -' })
  customerId!: string;

  @ApiProperty({
    example: ['HALL-A-1', 'HALL-A-2'],
    description: 'held all or none',
    minItems: 1,
    maxItems: MAX_SEATS,
    uniqueItems: true,
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_SEATS)
  @ArrayUnique({ message: 'seatIds must not repeat a seat' })
  @Matches(SEAT_ID, { each: true, message: 'each seat id must be 1-32 chars of letters, digits, . _ -' })
  seatIds!: string[];

  @ApiPropertyOptional({
    type: 'integer',
    example: 300,
    description: "hold length; default the event's",
    minimum: 1,
    maximum: MAX_TTL_SECONDS,
  })
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @IsInt()
  @Min(1)
  @Max(MAX_TTL_SECONDS)
  ttlSeconds?: number;
}
