import { Module } from '@nestjs/common';
import { AuditModule } from '../../audit/audit.module';
import { CatalogueModule } from '../../catalogue/catalogue.module';
import { HoldStoreModule } from '../../hold-store';
import { PricingModule } from '../../pricing/pricing.module';
import { ConfirmModule } from '../confirm/confirm.module';
import { HoldsModule } from '../holds.module';
import { SeatLockSettings } from '../seat-lock';
import { BookingCancelService } from './booking-cancel.service';
import { SeatBlocksController } from './seat-blocks.controller';
import { SeatBlocksService } from './seat-blocks.service';
import { StaffBookingsController } from './staff-bookings.controller';
import { StaffHoldsController } from './staff-holds.controller';
import { StaffHoldsService } from './staff-holds.service';

/** Box-office staff on holds and bookings (agent, admin roles); each change is recorded in the event's audit. */
@Module({
  imports: [HoldStoreModule, CatalogueModule, ConfirmModule, AuditModule, HoldsModule, PricingModule],
  controllers: [StaffHoldsController, StaffBookingsController, SeatBlocksController],
  providers: [StaffHoldsService, BookingCancelService, SeatBlocksService, SeatLockSettings],
})
export class StaffHoldsModule {}
