import { Module } from '@nestjs/common';
import { AllocationStore } from './allocation.store';
import { EventAdminStore } from './event-admin.store';
import { HoldStore } from './hold.store';
import { SeatChangeLog } from './seat-change-log';
import { StaffHoldStore } from './staff-hold.store';

@Module({
  providers: [AllocationStore, HoldStore, SeatChangeLog, StaffHoldStore, EventAdminStore],
  exports: [AllocationStore, HoldStore, SeatChangeLog, StaffHoldStore, EventAdminStore],
})
export class HoldStoreModule {}
