import { Module } from '@nestjs/common';
import { HoldStore } from './hold.store';
import { SeatChangeLog } from './seat-change-log';
import { StaffHoldStore } from './staff-hold.store';

@Module({
  providers: [HoldStore, SeatChangeLog, StaffHoldStore],
  exports: [HoldStore, SeatChangeLog, StaffHoldStore],
})
export class HoldStoreModule {}
