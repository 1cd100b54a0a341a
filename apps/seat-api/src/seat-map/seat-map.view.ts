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

/** A general-admission area's places now (the stream's `areas` events carry the same). */
export class AreaPlacesView {
  @ApiProperty({ example: 'FLOOR' }) name!: string;
  @ApiProperty() capacity!: number;
  @ApiProperty({ description: 'capacity - held - booked - blocked' }) free!: number;
  @ApiProperty({ description: 'a hold that ran out counts until it is expired' }) held!: number;
  @ApiProperty() booked!: number;
  @ApiProperty({ description: 'taken out of sale by box office' }) blocked!: number;
}

export class SeatMapView {
  @ApiProperty() eventId!: string;
  @ApiProperty({ description: 'change version of the map (the stream sends it as the event id)' })
  version!: number;
  @ApiProperty({ type: SeatCountsView, description: "the section's counts with ?section=" })
  counts!: SeatCountsView;
  @ApiPropertyOptional({
    type: [AreaPlacesView],
    description: "the event's general-admission areas (whole map only; absent when it has none)",
  })
  areas?: AreaPlacesView[];
  @ApiProperty({ type: [SeatView] }) seats!: SeatView[];
}
