import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString, Length, Max, Min, ValidateIf } from 'class-validator';
import { BEST_AVAILABLE_MAX_SEATS } from '../../holds/allocation/best-available.dto';

/**
 * A place in a show's waiting list: how many seats, side by side (an offer is made by the best-available
 * allocation when the freed seats are fewer, so the bound is that allocation's), and optionally which category.
 */
export class JoinWaitlistDto {
  @ApiProperty({ type: 'integer', example: 2, minimum: 1, maximum: BEST_AVAILABLE_MAX_SEATS })
  @IsInt()
  @Min(1)
  @Max(BEST_AVAILABLE_MAX_SEATS)
  quantity!: number;

  @ApiPropertyOptional({
    example: 'standard',
    description: "only seats of this category (a section's category); any seat when left out",
  })
  // may be left out, not sent as null (see CreateHoldDto.ttlSeconds)
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @IsString()
  @Length(1, 40)
  category?: string;
}
