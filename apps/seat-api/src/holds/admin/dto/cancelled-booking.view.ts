import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PlacesView } from '../../hold.view';
import { PricedCartView } from '../../../pricing/dto/priced-cart.view';

/**
 * A booking as its cancellation left it: its seats are available again. A priced booking tells what it was
 * sold for (`total` in minor units of `currency`, its lines), the amount to refund.
 */
export class CancelledBookingView extends PricedCartView {
  @ApiProperty({ format: 'uuid' }) bookingId!: string;
  @ApiProperty() holdId!: string;
  @ApiProperty() orderId!: string;
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ type: [String], description: 'the seats it had, available again' }) seatIds!: string[];
  @ApiPropertyOptional({
    type: [PlacesView],
    description: 'the places of general-admission areas it had, free again; absent when none',
  })
  places?: PlacesView[];
  @ApiProperty({ enum: ['CANCELLED'] }) status!: 'CANCELLED';
  @ApiProperty({ description: 'the customer whose booking it was' }) userId!: string;
  @ApiProperty({ format: 'date-time' }) bookedAt!: string;
}
