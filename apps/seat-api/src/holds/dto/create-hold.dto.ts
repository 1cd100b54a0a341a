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

export const SEAT_ID = /^[A-Za-z0-9._-]{1,32}$/;

/** Bounds are checked again against configuration in the service (limits are deployment settings). */
export class CreateHoldDto {
  @ApiProperty({ example: ['HALL-A-1', 'HALL-A-2'], description: 'held all or none' })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(1000)
  @ArrayUnique({ message: 'seatIds must not repeat a seat' })
  @Matches(SEAT_ID, { each: true, message: 'each seat id must be 1-32 chars of letters, digits, . _ -' })
  seatIds!: string[];

  @ApiPropertyOptional({
    type: 'integer',
    example: 300,
    description: 'hold length; default HOLD_DEFAULT_TTL_SECONDS',
  })
  // may be left out, but not sent as null: @IsOptional would let null through as "use the default"
  // (found by test/holds/rest-fuzz.e2e-spec.ts)
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @IsInt()
  @Min(1)
  @Max(86400)
  ttlSeconds?: number;
}
