import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Equals, IsInt, IsString, Length, Matches, Max, Min, ValidateIf } from 'class-validator';

/** Most seats one best-available hold asks for (the store's index keeps blocks up to this: ALLOCATION_MAX_SEATS). */
export const BEST_AVAILABLE_MAX_SEATS = 10;

/** What a hold wants instead of which seats: the service picks seats side by side in one row. */
export class BestAvailableDto {
  @ApiProperty({
    type: 'integer',
    example: 4,
    minimum: 1,
    maximum: BEST_AVAILABLE_MAX_SEATS,
    description: 'seats next to each other in one row',
  })
  @IsInt()
  @Min(1)
  @Max(BEST_AVAILABLE_MAX_SEATS)
  quantity!: number;

  @ApiPropertyOptional({
    example: 'standard',
    description: "only seats of this category (a section's category)",
  })
  // may be left out, not sent as null (see CreateHoldDto.ttlSeconds)
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @IsString()
  @Length(1, 40)
  category?: string;

  @ApiPropertyOptional({ example: 'STALLS', description: 'only seats of this section' })
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @Matches(/^[A-Za-z0-9_-]{1,12}$/, { message: 'section must be 1-12 letters, digits, _ or -' })
  section?: string;

  @ApiPropertyOptional({
    enum: [true],
    description:
      "wheelchair places and the companion seats beside them (the layout's accessible and companion seats), at least one place among them; left out: no such seat is picked",
  })
  @ValidateIf((_dto: unknown, value: unknown) => value !== undefined)
  @Equals(true, { message: 'accessible must be true or left out' })
  accessible?: true;
}
