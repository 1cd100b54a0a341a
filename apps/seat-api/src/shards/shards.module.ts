import { Module } from '@nestjs/common';
import { HoldStoreModule } from '../hold-store';
import { ShardOwnership } from './shard-ownership.service';

/** Which hold-store shards this instance sweeps and relays (leases, fair share). */
@Module({ imports: [HoldStoreModule], providers: [ShardOwnership], exports: [ShardOwnership] })
export class ShardsModule {}
