import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

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

/** A general-admission area on the public map: places counted, never who holds them. */
export class SeatMapAreaView {
  @ApiProperty({ example: 'FLOOR' }) name!: string;
  @ApiProperty({ example: 'standing' }) category!: string;
  @ApiProperty() capacity!: number;
  @ApiProperty({ description: 'capacity - held - booked' }) free!: number;
  @ApiProperty({ description: 'a hold that ran out counts until it is expired (SWEEP_INTERVAL_MS)' })
  held!: number;
  @ApiProperty({ description: 'sold, and taken out of sale by box office (as a blocked seat shows BOOKED)' })
  booked!: number;
}

export class SeatMapView {
  @ApiProperty() eventId!: string;
  @ApiProperty({ description: 'change version of the map (the stream sends it as the event id)' })
  version!: number;
  @ApiProperty({ type: SeatCountsView, description: "the section's counts with ?section=" })
  counts!: SeatCountsView;
  @ApiProperty({ type: [SeatView] }) seats!: SeatView[];
  @ApiPropertyOptional({
    type: [SeatMapAreaView],
    description:
      "the layout's general-admission areas in the order posted; absent when it has none, and with ?section=",
  })
  areas?: SeatMapAreaView[];
}
