import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString, Length, Matches, Max, Min, ValidateBy, ValidateIf } from 'class-validator';
import { BEST_AVAILABLE_MAX_SEATS } from '../../holds/allocation/best-available.dto';

/** An entry waits for seats (of a category, or any) or for places of one area: not both. */
const CategoryOrArea = () =>
  ValidateBy({
    name: 'categoryOrArea',
    validator: {
      validate: (_value: unknown, args) => {
        const dto = args?.object as JoinWaitlistDto;
        return dto.category === undefined || dto.area === undefined;
      },
      defaultMessage: () => 'give category (seats) or area (places of a standing area), not both',
    },
  });

/**
 * A place in a show's waiting list: how many seats, side by side (an offer is made by the best-available
 * allocation when the freed seats are fewer, so the bound is that allocation's), and optionally which
 * category; or how many places of one general-admission area (a hold takes 1-10 places of an area too:
 * the same bound).
 */
export class JoinWaitlistDto {
  @ApiProperty({
    type: 'integer',
    example: 2,
    minimum: 1,
    maximum: BEST_AVAILABLE_MAX_SEATS,
    description: 'seats side by side, or places of `area`',
  })
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

  @ApiPropertyOptional({
    example: 'FLOOR',
    description:
      "instead of category: places of this general-admission area of the event's layout, offered as places are freed there",
  })
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @CategoryOrArea()
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,12}$/, { message: 'area must be 1-12 letters, digits, _ or -' })
  area?: string;
}
