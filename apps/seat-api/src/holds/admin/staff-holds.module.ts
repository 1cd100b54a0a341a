import { Module } from '@nestjs/common';
import { AuditModule } from '../../audit/audit.module';
import { CatalogueModule } from '../../catalogue/catalogue.module';
import { HoldStoreModule } from '../../hold-store';
import { ConfirmModule } from '../confirm/confirm.module';
import { SeatLockSettings } from '../seat-lock';
import { StaffHoldsController } from './staff-holds.controller';
import { StaffHoldsService } from './staff-holds.service';

/** Box-office staff actions on holds (agent, admin roles), each recorded in the event's audit. */
@Module({
  imports: [HoldStoreModule, CatalogueModule, ConfirmModule, AuditModule],
  controllers: [StaffHoldsController],
  providers: [StaffHoldsService, SeatLockSettings],
})
export class StaffHoldsModule {}
