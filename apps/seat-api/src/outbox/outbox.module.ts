import { Module } from '@nestjs/common';
import { HoldStoreModule } from '../hold-store';
import { ShardsModule } from '../shards/shards.module';
import { KafkaTopicsService } from './kafka-topics.service';
import { OutboxMeter } from './outbox-meter';
import { OutboxRelayJob } from './outbox-relay.job';
import { OutboxRelayService } from './outbox-relay.service';
import { OutboxStreams } from './outbox-streams';
import { SeatChangePublisher } from './seat-change.publisher';

/**
 * The outbox relay: every seat change's record (SeatExpired, the holds' seat.status changes,
 * BookingCancelled), from the shards' Redis streams to Kafka, and the Kafka topics it publishes to.
 */
@Module({
  imports: [HoldStoreModule, ShardsModule],
  providers: [
    OutboxRelayJob,
    OutboxRelayService,
    OutboxMeter,
    OutboxStreams,
    SeatChangePublisher,
    KafkaTopicsService,
  ],
  exports: [OutboxRelayService],
})
export class OutboxModule {}
