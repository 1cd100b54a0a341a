import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { WAITLIST_STATUSES, type WaitlistStatus } from '@app/database';

/** The answer to a join: the entry and its place in the queue (1 = next to be offered seats). */
export class JoinedWaitlistView {
  @ApiProperty({ format: 'uuid' }) entryId!: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) position!: number;
}

/** Why freed seats the entry fitted last went to the entries behind it; it kept its place. */
export class WaitlistSkipView {
  @ApiProperty({
    description:
      "the seat API's refusal of the entry's own offer hold, an error code (RATE_LIMITED, HOLD_LIMIT_EXCEEDED, ...)",
  })
  reason!: string;
  @ApiProperty() at!: string;
}

/** A waiting-list entry as its user sees it. */
export class WaitlistEntryView {
  @ApiProperty({ format: 'uuid' }) entryId!: string;
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ type: 'integer' }) quantity!: number;
  @ApiPropertyOptional() category?: string;
  @ApiPropertyOptional({ description: 'the general-admission area whose places the entry waits for' })
  area?: string;
  @ApiProperty({ enum: WAITLIST_STATUSES }) status!: WaitlistStatus;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'while WAITING: 1 = next in line' })
  position?: number;
  @ApiPropertyOptional({
    description: 'the offer: a hold of the seats or places, yours (read, confirm it as any hold)',
  })
  holdId?: string;
  @ApiPropertyOptional({ description: 'while OFFERED: when the offer lapses unless its hold is confirmed' })
  offerExpiresAt?: string;
  @ApiPropertyOptional({
    type: WaitlistSkipView,
    description: 'while WAITING: the last time it was passed over for seats it fitted, and why',
  })
  skipped?: WaitlistSkipView;
}
