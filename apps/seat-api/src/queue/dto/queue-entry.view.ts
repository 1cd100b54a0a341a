import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export const QUEUE_ENTRY_STATUSES = ['PREQUEUE', 'WAITING', 'ADMITTED', 'DONE', 'LEFT', 'SKIPPED'] as const;
export type QueueEntryStatus = (typeof QUEUE_ENTRY_STATUSES)[number];

/** A place in an event's queue, as its user sees it. */
export class QueueEntryView {
  @ApiProperty() entryId!: string;
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({
    enum: QUEUE_ENTRY_STATUSES,
    description:
      'PREQUEUE: joined before the sales start (the number may still change: places given before the start are shuffled then); WAITING; ADMITTED: the pass takes holds; DONE: the turn is over; LEFT; SKIPPED: passed over, not seen when its turn came (join again for a new place)',
  })
  status!: QueueEntryStatus;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'the place: compare with servingNumber' })
  number?: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 0, description: 'while WAITING: places ahead' })
  placesAhead?: number;
  @ApiProperty({ type: 'integer', description: 'read it again in this many seconds (or sooner)' })
  refreshAfterSeconds!: number;
  @ApiPropertyOptional({
    description:
      'while ADMITTED: the admission pass (JWT, ES256: aud the event, sub you, jti this entry, exp), to send as header Queue-Pass with holds',
  })
  pass?: string;
  @ApiPropertyOptional({ description: 'while ADMITTED: when the pass stops taking holds' })
  passExpiresAt?: string;
}
