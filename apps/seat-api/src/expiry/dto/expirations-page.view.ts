import { ApiProperty } from '@nestjs/swagger';

export class ExpirationView {
  @ApiProperty() holdId!: string;
  @ApiProperty({ example: 'STALLS-A-12' }) seatId!: string;
  @ApiProperty() userId!: string;
  @ApiProperty({ format: 'date-time', description: 'when the seat was freed' }) expiredAt!: string;
  @ApiProperty({ format: 'date-time', description: 'when the expiry consumer recorded it' })
  recordedAt!: string;
  @ApiProperty() fencingToken!: number;
}

export class ExpirationsPageView {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ description: 'all recorded expirations of the event' }) total!: number;
  @ApiProperty({ type: [ExpirationView], description: 'newest first' }) items!: ExpirationView[];
}
