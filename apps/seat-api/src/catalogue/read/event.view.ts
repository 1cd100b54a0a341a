import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ACCESSIBLE_SEATS_FOR_ALL,
  type AccessibleSeatsForAll,
  ORPHAN_RULES,
  type OrphanRule,
  type SalesState,
} from '@app/database';
import { EventPolicy, HOLD_LIMIT_NAMES, HoldLimitName } from '../policy/event-policy';

const SALES = ['OPEN', 'CLOSED', 'CANCELLED'];

/** An event's settings in effect: its own limits where it sets them, the deployment's elsewhere. */
export class EventSettingsView {
  @ApiProperty({
    enum: SALES,
    description: 'OPEN: new holds taken; CLOSED: none until opened again; CANCELLED: none, for good',
  })
  sales!: SalesState;
  @ApiProperty({ description: 'hold ttl when a hold names none' }) defaultHoldTtlSeconds!: number;
  @ApiProperty({ description: 'longest ttl a hold may ask' }) maxHoldTtlSeconds!: number;
  @ApiProperty() maxSeatsPerHold!: number;
  @ApiProperty({ description: 'seats one user may hold at once in this event' }) maxSeatsPerUser!: number;
  @ApiProperty({ description: 'extensions per hold' }) maxExtensions!: number;
  @ApiProperty({ description: 'longest a hold may live, extensions included' })
  maxHoldLifetimeSeconds!: number;
  @ApiProperty({
    type: [String],
    enum: HOLD_LIMIT_NAMES,
    description: "the limits the event sets itself; the others are the deployment's (HOLD_* environment)",
  })
  ownLimits!: HoldLimitName[];
  @ApiProperty({
    enum: ORPHAN_RULES,
    description:
      'no-single-gaps: a hold by seat ids may not leave one free seat alone in its row; changed by an admin for later holds',
  })
  orphanRule!: OrphanRule;
  @ApiProperty({
    enum: ACCESSIBLE_SEATS_FOR_ALL,
    description:
      'never: wheelchair places and companion seats go to accessible best-available requests only; when-others-gone: an ordinary request gets them too once no block of other seats fits it; changed by an admin for later holds',
  })
  accessibleSeatsForAll!: AccessibleSeatsForAll;

  static of(p: EventPolicy): EventSettingsView {
    return {
      sales: p.sales,
      ...p.limits,
      ownLimits: HOLD_LIMIT_NAMES.filter((n) => n in p.own),
      orphanRule: p.orphanRule,
      accessibleSeatsForAll: p.accessibleSeatsForAll,
    };
  }
}

export class EventSummaryView {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'date-time' }) startsAt!: string;
  @ApiProperty() seatCount!: number;
  @ApiProperty({ enum: SALES }) sales!: SalesState;
}

export class EventPageView {
  @ApiProperty({ type: [EventSummaryView] }) items!: EventSummaryView[];
  @ApiPropertyOptional({
    description: 'pass as ?cursor= (with the same filters) for the next page; absent on the last',
  })
  nextCursor?: string;
}

export class RowView {
  @ApiProperty({ example: 'A' }) row!: string;
  @ApiProperty({ description: 'seats numbered 1..seats' }) seats!: number;
  @ApiPropertyOptional({ description: "the row's rank, when the layout gave one" }) rank?: number;
  @ApiPropertyOptional({ type: [Number], description: 'wheelchair places, when the row has any' })
  accessible?: number[];
  @ApiPropertyOptional({ type: [Number], description: 'companion seats, when the row has any' })
  companion?: number[];
}

export class SectionView {
  @ApiProperty({ example: 'STALLS' }) name!: string;
  @ApiProperty({ example: 'standard' }) category!: string;
  @ApiPropertyOptional({ type: [RowView], description: 'in the order posted; absent for an area' })
  rows?: RowView[];
  @ApiPropertyOptional({ description: 'the places of a general-admission area; absent for rows of seats' })
  capacity?: number;
}

/** A general-admission area's places now. */
export class AreaCountsView {
  @ApiProperty({ example: 'FLOOR' }) name!: string;
  @ApiProperty({ example: 'standing' }) category!: string;
  @ApiProperty() capacity!: number;
  @ApiProperty({ description: 'capacity - held - booked - blocked' }) free!: number;
  @ApiProperty({ description: 'a hold that ran out counts until it is expired (SWEEP_INTERVAL_MS)' })
  held!: number;
  @ApiProperty() booked!: number;
  @ApiProperty({ description: 'places box office took out of sale' }) blocked!: number;
}

export class SeatCountsView {
  @ApiProperty() total!: number;
  @ApiProperty() available!: number;
  @ApiProperty({ description: 'a hold that ran out counts until the sweeper frees it (SWEEP_INTERVAL_MS)' })
  held!: number;
  @ApiProperty() booked!: number;
}

export class EventView {
  @ApiProperty({ format: 'uuid' }) eventId!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'date-time' }) startsAt!: string;
  @ApiProperty() seatCount!: number;
  @ApiProperty({ type: [SectionView], description: 'the layout in the order posted' })
  sections!: SectionView[];
  @ApiProperty({ type: SeatCountsView, description: 'of the seats' }) counts!: SeatCountsView;
  @ApiPropertyOptional({
    type: [AreaCountsView],
    description: 'each general-admission area with its places now; absent when the layout has none',
  })
  areas?: AreaCountsView[];
  @ApiProperty({ type: EventSettingsView }) settings!: EventSettingsView;
}
