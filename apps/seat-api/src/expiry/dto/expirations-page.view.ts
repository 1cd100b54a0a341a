import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class ExpirationView {
  @ApiProperty() holdId!: string;
  @ApiProperty({ example: 'STALLS-A-12' }) seatId!: string;
  @ApiProperty() userId!: string;
  @ApiProperty({ format: 'date-time', description: 'when the seat was freed' }) expiredAt!: string;
  @ApiProperty({ format: 'date-time', description: 'when the expiry consumer recorded it' })
  recordedAt!: string;
  @ApiProperty() fencingToken!: number;
  @ApiPropertyOptional({
    example: 'FLOOR',
    description: 'for places of a general-admission area (seatId is its name too): the area',
  })
  area?: string;
  @ApiPropertyOptional({ description: 'how many places of the area went back' })
  quantity?: number;
}

export class ExpirationsPageView {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ description: 'all recorded expirations of the event' }) total!: number;
  @ApiProperty({ type: [ExpirationView], description: 'newest first' }) items!: ExpirationView[];
}
