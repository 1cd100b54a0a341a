import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/**
 * Query strings arrive as text. Only plain decimal integers become numbers ('-1' too, so that `@Min`
 * names the field); anything else ('abc', '1e2', '0x10', '1.5', a repeated parameter) stays as it came
 * and `@IsInt` refuses it, naming the field. (Implicit conversion would have made 'abc' NaN and '1e2' 100.)
 */
const integerText = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?[0-9]{1,15}$/.test(value) ? Number(value) : value;

/** `?limit&offset` of GET /v1/events/{eventId}/expirations; any other parameter is refused. */
export class ListExpirationsQuery {
  @ApiPropertyOptional({ type: 'integer', default: 100, minimum: 1, maximum: 1000, description: 'page size' })
  @Transform(integerText)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit: number = 100;

  @ApiPropertyOptional({ type: 'integer', default: 0, minimum: 0, description: 'entries to skip' })
  @Transform(integerText)
  @IsInt()
  @Min(0)
  offset: number = 0;
}
