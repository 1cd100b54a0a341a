import { Module } from '@nestjs/common';
import { HoldStoreModule } from '../../hold-store';
import { ShardsModule } from '../shards/shards.module';
import { OutboxMeter } from './outbox-meter';
import { OutboxRelayJob } from './outbox-relay.job';
import { OutboxRelayService } from './outbox-relay.service';
import { OutboxStreams } from './outbox-streams';
import { SeatExpiredPublisher } from './seat-expired.publisher';

/** The outbox relay: SeatExpired records from the shards' Redis streams to Kafka. */
@Module({
  imports: [HoldStoreModule, ShardsModule],
  providers: [OutboxRelayJob, OutboxRelayService, OutboxMeter, OutboxStreams, SeatExpiredPublisher],
  exports: [OutboxRelayService],
})
export class OutboxModule {}
