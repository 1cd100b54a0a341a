import { Module } from '@nestjs/common';
import { BookingRepository } from '../booking.repository';
import { HoldStoreModule } from '../../hold-store';
import { ConfirmSettlement } from './confirm-settlement';

/**
 * Bookings in PostgreSQL and the rule that decides a CONFIRMING hold from them: used by the holds
 * feature (confirm, and any call that meets a CONFIRMING hold) and by expiry's confirm reconciler.
 */
@Module({
  imports: [HoldStoreModule],
  providers: [BookingRepository, ConfirmSettlement],
  exports: [BookingRepository, ConfirmSettlement],
})
export class ConfirmModule {}
