import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';
import { integerText } from './pipes/integer-text';

/** `?limit` of a paged list; a list paged by cursor extends it with its cursor and filters. */
export class PageLimitQuery {
  @ApiPropertyOptional({ type: 'integer', default: 100, minimum: 1, maximum: 1000, description: 'page size' })
  @Transform(integerText)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit: number = 100;
}

/** `?limit&offset` of a paged list; a list's query extends it with its own filters. */
export class PageQuery extends PageLimitQuery {
  @ApiPropertyOptional({ type: 'integer', default: 0, minimum: 0, description: 'items to skip' })
  @Transform(integerText)
  @IsInt()
  @Min(0)
  offset: number = 0;
}
