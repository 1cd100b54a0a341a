import { ApiProperty } from '@nestjs/swagger';
import { QUEUE_ORDERS, type QueueOrder } from '@app/contracts';

/** Where an event's queue is, by the clock: set up, taking entries before the start, or admitting. */
export const QUEUE_PHASES = ['SCHEDULED', 'PREQUEUE', 'ON_SALE'] as const;
export type QueuePhase = (typeof QUEUE_PHASES)[number];

/**
 * An event's queue as everyone may see it (never who is in it): its settings and its figures. A client
 * works its own position out: its number minus servingNumber places ahead, about etaSecondsPerPlace each.
 */
export class QueueStatusView {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ enum: QUEUE_PHASES }) phase!: QueuePhase;
  @ApiProperty({ description: 'when joining opens' }) opensAt!: string;
  @ApiProperty({ description: 'when admission starts' }) salesStartAt!: string;
  @ApiProperty({ enum: QUEUE_ORDERS }) order!: QueueOrder;
  @ApiProperty({ type: 'integer', description: 'shoppers admitted per minute while there is room' })
  admitPerMinute!: number;
  @ApiProperty({ type: 'integer', description: 'shoppers active at once, at most' })
  maxActiveShoppers!: number;
  @ApiProperty({ type: 'integer' }) passTtlSeconds!: number;
  @ApiProperty({ type: 'integer' }) idleEntryTtlSeconds!: number;
  @ApiProperty({ description: 'staff paused admission' }) paused!: boolean;
  @ApiProperty({
    type: 'integer',
    description: 'numbers up to this one had their turn (or were passed over)',
  })
  servingNumber!: number;
  @ApiProperty({ type: 'integer', description: 'the last number given' }) lastNumber!: number;
  @ApiProperty({ type: 'number', description: 'seconds of waiting per place ahead, at the pace' })
  etaSecondsPerPlace!: number;
  @ApiProperty({ type: 'integer' }) activeShoppers!: number;
  @ApiProperty({ type: 'integer', description: 'entries whose turn has not come' }) waiting!: number;
}
