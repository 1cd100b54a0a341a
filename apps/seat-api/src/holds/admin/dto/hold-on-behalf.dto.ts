import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Matches, ValidateIf } from 'class-validator';
import { USER_ID } from '../../../auth/jwt-auth.guard';
import {
  PlacesChecks,
  PlacesDto,
  SEAT_IDS_SCHEMA,
  SeatIdsChecks,
  TTL_SECONDS_SCHEMA,
  TtlSecondsChecks,
} from '../../dto/create-hold.dto';

/**
 * The body of a hold staff make for a customer: the customer's user id (their token's `sub`: they then
 * read and confirm the hold with their own token), and the hold's seats and ttl as a customer sends them
 * (CreateHoldDto's checks); the event's own limits are checked in the service.
 */
export class HoldOnBehalfDto {
  @ApiProperty({
    example: 'customer-42',
    description: "the customer's user id (the `sub` of their token): the hold's holder",
    pattern: USER_ID.source,
  })
  @Matches(USER_ID, { message: 'customerId must be 1-128 chars of letters, digits, . _ @ : -' })
  customerId!: string;

  @ApiPropertyOptional({
    ...SEAT_IDS_SCHEMA,
    example: ['HALL-A-1', 'HALL-A-2'],
    description: 'held all or none (with the places, if any); required unless places are given',
  })
  @ValidateIf((dto: HoldOnBehalfDto) => dto.seatIds !== undefined || dto.places === undefined)
  @SeatIdsChecks()
  seatIds?: string[];

  @ApiPropertyOptional({
    type: [PlacesDto],
    minItems: 1,
    maxItems: 100,
    description: 'places of general-admission areas, 1-10 per area, beside or instead of seatIds',
  })
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @PlacesChecks()
  places?: PlacesDto[];

  @ApiPropertyOptional({ ...TTL_SECONDS_SCHEMA, description: "hold length; default the event's" })
  @TtlSecondsChecks()
  ttlSeconds?: number;
}
