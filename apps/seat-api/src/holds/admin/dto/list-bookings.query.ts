import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, Matches, Max, Min } from 'class-validator';
import { integerText } from '../../../common/pipes/integer-text';

/** `?limit&offset&orderId` of GET /v1/events/{eventId}/bookings; any other parameter is refused. */
export class ListBookingsQuery {
  @ApiPropertyOptional({ type: 'integer', default: 100, minimum: 1, maximum: 1000, description: 'page size' })
  @Transform(integerText)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit: number = 100;

  @ApiPropertyOptional({ type: 'integer', default: 0, minimum: 0, description: 'bookings to skip' })
  @Transform(integerText)
  @IsInt()
  @Min(0)
  offset: number = 0;

  @ApiPropertyOptional({ description: 'only the booking(s) of this order id (as the confirm named it)' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9._:-]{1,100}$/, { message: 'orderId must be 1-100 chars of letters, digits, . _ : -' })
  orderId?: string;
}
