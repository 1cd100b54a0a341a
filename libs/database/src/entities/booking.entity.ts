import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { EventEntity } from './event.entity';
import { PromoCodeEntity } from './promo-code.entity';

export type BookingStatus = 'CONFIRMED' | 'ABANDONED' | 'CANCELLED';

/** One priced line of a booking: a seat, its ticket type, and what it was sold for (minor units). */
export interface BookedLine {
  seatId: string;
  category: string;
  ticketType: string;
  unitPrice: number;
  discount: number;
}

/** The places of general-admission areas a booking sold: how many of each area. */
export interface BookedPlaces {
  area: string;
  quantity: number;
}

const bigint = { to: (v: number | null) => v, from: (v: string | null) => (v === null ? null : Number(v)) };

/**
 * The outcome of one confirm attempt of a hold (an attempt is the fencing token its beginConfirm
 * stored). CONFIRMED carries seats in booking_seats, at most one per hold; ABANDONED is the repair
 * path's marker for an attempt it gave up (the attempt never committed and now never will: a late
 * commit of it loses on the (hold_id, fencing_token) key), after which the hold may be confirmed again.
 * CANCELLED: a booking box-office staff cancelled; its seats left booking_seats (bookable again).
 */
@Entity({ name: 'bookings' })
@Index('bookings_hold_attempt_key', ['holdId', 'fencingToken'], { unique: true })
@Index('bookings_hold_confirmed_key', ['holdId'], { unique: true, where: `status = 'CONFIRMED'` })
@Index('bookings_event_idx', ['eventId'])
@Check('bookings_status_check', `status IN ('CONFIRMED', 'ABANDONED', 'CANCELLED')`)
// a confirmed booking always names its order; only an ABANDONED marker may have none
@Check('bookings_check', `status = 'ABANDONED' OR order_id IS NOT NULL`)
export class BookingEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'bookings_pkey' })
  id!: string;

  @Column('text', { name: 'hold_id' })
  holdId!: string;

  @Column('text', { name: 'order_id', nullable: true })
  orderId!: string | null;

  /** No ON DELETE: an event with bookings cannot be deleted. */
  @Column('uuid', { name: 'event_id' })
  @ForeignKey(() => EventEntity, { name: 'bookings_event_id_fkey' })
  eventId!: string;

  @Column('text', { name: 'user_id' })
  userId!: string;

  @Column('text')
  status!: BookingStatus;

  @Column('bigint', {
    name: 'fencing_token',
    transformer: { to: (v: number) => v, from: (v: string) => Number(v) },
  })
  fencingToken!: number;

  @Column('text', { name: 'seat_ids', array: true })
  seatIds!: string[];

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;

  // What the booking was sold for (NULL for a hold made while the show had no price list).
  @Column('integer', { name: 'price_list_version', nullable: true })
  priceListVersion!: number | null;

  @Column('text', { nullable: true })
  currency!: string | null;

  @Column('jsonb', { nullable: true })
  lines!: BookedLine[] | null;

  @Column('bigint', { nullable: true, transformer: bigint })
  subtotal!: number | null;

  @Column('bigint', { name: 'discount_total', nullable: true, transformer: bigint })
  discountTotal!: number | null;

  @Column('bigint', { nullable: true, transformer: bigint })
  total!: number | null;

  /** The promo code the booking carries; counted in its `uses` by the booking's transaction. */
  @Column('uuid', { name: 'promo_code_id', nullable: true })
  @ForeignKey(() => PromoCodeEntity, { name: 'bookings_promo_code_id_fkey' })
  promoCodeId!: string | null;

  @Column('text', { name: 'promo_code', nullable: true })
  promoCode!: string | null;

  /** The places it sold, per area; NULL for a booking of seats alone. */
  @Column('jsonb', { nullable: true })
  places!: BookedPlaces[] | null;
}
