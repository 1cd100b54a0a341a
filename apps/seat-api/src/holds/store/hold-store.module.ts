import { Module } from '@nestjs/common';
import { HoldStore } from './hold.store';

@Module({ providers: [HoldStore], exports: [HoldStore] })
export class HoldStoreModule {}
