import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, Matches } from 'class-validator';
import { PageQuery } from '../../../common/page.query';

/** `?limit&offset&orderId` of GET /v1/events/{eventId}/bookings; any other parameter is refused. */
export class ListBookingsQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'only the booking(s) of this order id (as the confirm named it)' })
  @IsOptional()
  @Matches(/^[A-Za-z0-9._:-]{1,100}$/, { message: 'orderId must be 1-100 chars of letters, digits, . _ : -' })
  orderId?: string;
}
