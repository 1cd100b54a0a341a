import { AuditEntryEntity } from './audit-entry.entity';
import { BookingSeatEntity } from './booking-seat.entity';
import { BookingEntity } from './booking.entity';
import { EventAreaEntity } from './event-area.entity';
import { EventEntity } from './event.entity';
import { HoldExpiryEntity } from './hold-expiry.entity';
import { PriceListEntity } from './price-list.entity';
import { PromoCodeEntity } from './promo-code.entity';
import { SeatBlockEntity } from './seat-block.entity';
import { SeatEntity } from './seat.entity';
import { WaitlistEntryEntity } from './waitlist-entry.entity';
import { WaitlistOfferEntity } from './waitlist-offer.entity';

export {
  AuditEntryEntity,
  BookingEntity,
  BookingSeatEntity,
  EventAreaEntity,
  EventEntity,
  HoldExpiryEntity,
  PriceListEntity,
  PromoCodeEntity,
  SeatBlockEntity,
  SeatEntity,
  WaitlistEntryEntity,
  WaitlistOfferEntity,
};
export { WAITLIST_STATUSES } from './waitlist-entry.entity';
export type { WaitlistStatus } from './waitlist-entry.entity';
export type { AuditEntryStatus } from './audit-entry.entity';
export type { BookedLine, BookedPlaces, BookingStatus } from './booking.entity';
export type { PriceListCategory, PriceListTicketType } from './price-list.entity';
export type { PromoKind, PromoScope } from './promo-code.entity';
export { PROMO_KINDS } from './promo-code.entity';
export type { AccessibleSeatsForAll, OrphanRule, SalesState } from './event.entity';
export type { SeatAccess } from './seat.entity';
export { ACCESSIBLE_SEATS_FOR_ALL, ORPHAN_RULES } from './event.entity';

export const ALL_ENTITIES = [
  EventEntity,
  SeatEntity,
  BookingEntity,
  BookingSeatEntity,
  HoldExpiryEntity,
  AuditEntryEntity,
  SeatBlockEntity,
  WaitlistEntryEntity,
  WaitlistOfferEntity,
  PriceListEntity,
  PromoCodeEntity,
  EventAreaEntity,
];
