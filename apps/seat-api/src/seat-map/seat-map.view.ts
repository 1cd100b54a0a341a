import { ApiProperty } from '@nestjs/swagger';

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
  @ApiProperty({ description: 'change version of the map (the stream sends it as the event id)' })
  version!: number;
  @ApiProperty({ type: SeatCountsView, description: "the section's counts with ?section=" })
  counts!: SeatCountsView;
  @ApiProperty({ type: [SeatView] }) seats!: SeatView[];
}
