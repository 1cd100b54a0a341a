import { ApiProperty } from '@nestjs/swagger';

export class CancelledEventView {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ enum: ['CANCELLED'] }) sales!: 'CANCELLED';
  @ApiProperty({ description: 'live holds this call released (their seats are AVAILABLE again)' })
  releasedHolds!: number;
  @ApiProperty({
    description:
      "the event's booked holds, whenever their confirm answered (before the cancel or racing it): they stay booked",
  })
  bookedHolds!: number;
}
