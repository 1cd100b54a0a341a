import { Module } from '@nestjs/common';
import { EventAdminStore } from './event-admin.store';
import { HoldStore } from './hold.store';
import { SeatChangeLog } from './seat-change-log';
import { StaffHoldStore } from './staff-hold.store';

@Module({
  providers: [HoldStore, SeatChangeLog, StaffHoldStore, EventAdminStore],
  exports: [HoldStore, SeatChangeLog, StaffHoldStore, EventAdminStore],
})
export class HoldStoreModule {}
