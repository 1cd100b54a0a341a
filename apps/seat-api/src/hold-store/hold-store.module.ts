import { Module } from '@nestjs/common';
import { HoldStore } from './hold.store';
import { SeatChangeLog } from './seat-change-log';

@Module({ providers: [HoldStore, SeatChangeLog], exports: [HoldStore, SeatChangeLog] })
export class HoldStoreModule {}
