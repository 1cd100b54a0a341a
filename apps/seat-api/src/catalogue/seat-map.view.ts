import { ApiProperty } from '@nestjs/swagger';

export class CreatedEventView {
  @ApiProperty() eventId!: string;
  @ApiProperty() seatCount!: number;
}

export class SeatView {
  @ApiProperty() eventId!: string;
  @ApiProperty({ example: 'STALLS-A-12' }) seatId!: string;
  @ApiProperty() section!: string;
  @ApiProperty() row!: string;
  @ApiProperty() number!: number;
  @ApiProperty() category!: string;
  @ApiProperty({ enum: ['AVAILABLE', 'HELD', 'BOOKED'], description: 'never who holds it' })
  status!: 'AVAILABLE' | 'HELD' | 'BOOKED';
}

export class SeatCountsView {
  @ApiProperty() total!: number;
  @ApiProperty() available!: number;
  @ApiProperty() held!: number;
  @ApiProperty() booked!: number;
}

export class SeatMapView {
  @ApiProperty() eventId!: string;
  @ApiProperty({ type: SeatCountsView }) counts!: SeatCountsView;
  @ApiProperty({ type: [SeatView] }) seats!: SeatView[];
}
