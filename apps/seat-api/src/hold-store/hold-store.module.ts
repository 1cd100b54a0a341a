import { Module } from '@nestjs/common';
import { AllocationStore } from './allocation.store';
import { EventAdminStore } from './event-admin.store';
import { HoldStore } from './hold.store';
import { QueueStore } from './queue.store';
import { SeatChangeLog } from './seat-change-log';
import { StaffHoldStore } from './staff-hold.store';

@Module({
  providers: [AllocationStore, HoldStore, SeatChangeLog, StaffHoldStore, EventAdminStore, QueueStore],
  exports: [AllocationStore, HoldStore, SeatChangeLog, StaffHoldStore, EventAdminStore, QueueStore],
})
export class HoldStoreModule {}
