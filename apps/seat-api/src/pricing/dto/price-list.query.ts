import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, Min, ValidateIf } from 'class-validator';
import { integerText } from '../../common/pipes/integer-text';

export class PriceListQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description: 'an earlier version; left out: the current one',
  })
  @ValidateIf((_q: unknown, value: unknown) => value !== undefined)
  @Transform(integerText)
  @IsInt()
  @Min(1)
  version?: number;
}
