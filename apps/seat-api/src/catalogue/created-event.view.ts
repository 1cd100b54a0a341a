import { ApiProperty } from '@nestjs/swagger';

export class CreatedEventView {
  @ApiProperty() eventId!: string;
  @ApiProperty() seatCount!: number;
}
