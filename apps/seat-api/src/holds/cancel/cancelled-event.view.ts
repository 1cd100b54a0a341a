import { ApiProperty } from '@nestjs/swagger';

export class CancelledEventView {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty({ enum: ['CANCELLED'] }) sales!: 'CANCELLED';
  @ApiProperty({ description: 'live holds this call released (their seats are AVAILABLE again)' })
  releasedHolds!: number;
  @ApiProperty({ description: 'holds a confirm booked before the cancel reached them: they stay booked' })
  bookedHolds!: number;
}
