import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { AuditAction } from '../audit-action';

export class AuditEntryView {
  @ApiProperty({ format: 'uuid', description: 'the action id' }) actionId!: string;
  @ApiProperty({ description: "the staff member's user id" }) actor!: string;
  @ApiProperty({ enum: AuditAction, enumName: 'AuditAction' }) action!: AuditAction;
  @ApiProperty({ description: 'what the action was done to (a hold id, an order id, seat ids)' })
  target!: string;
  @ApiPropertyOptional({ description: 'the reason the staff member gave' }) reason?: string;
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'what else tells it apart',
  })
  detail?: Record<string, unknown>;
  @ApiProperty({ format: 'date-time', description: 'when the action was taken' }) at!: string;
}

export class AuditPageView {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ description: 'all recorded actions of the event' }) total!: number;
  @ApiProperty({ type: [AuditEntryView], description: 'oldest first' }) items!: AuditEntryView[];
}
