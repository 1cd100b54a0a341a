import { InitialSchema1763800000000 } from './1763800000000-initial-schema';
import { BookingAttempts1763900000000 } from './1763900000000-booking-attempts';
import { SeatPosition1764100000000 } from './1764100000000-seat-position';
import { EventSettings1764200000000 } from './1764200000000-event-settings';
import { AuditEntries1764300000000 } from './1764300000000-audit-entries';
import { OrphanRule1764600000000 } from './1764600000000-orphan-rule';
import { SeatAccessRank1764610000000 } from './1764610000000-seat-access-rank';
import { AccessibleSeatsForAll1764620000000 } from './1764620000000-accessible-seats-for-all';
import { BookingCancel1764410000000 } from './1764410000000-booking-cancel';
import { Waitlist1764500000000 } from './1764500000000-waitlist';
import { SeatBlocks1764420000000 } from './1764420000000-seat-blocks';
import { WaitlistSkips1764700000000 } from './1764700000000-waitlist-skips';
import { WaitlistOfferAsks1764710000000 } from './1764710000000-waitlist-offer-asks';
import { Pricing1764800000000 } from './1764800000000-pricing';
import { Areas1764900000000 } from './1764900000000-areas';
import { AreaBlocks1764910000000 } from './1764910000000-area-blocks';

/** Listed explicitly (not globbed) so the compiled app and jest load the same set. */
export const ALL_MIGRATIONS = [
  InitialSchema1763800000000,
  BookingAttempts1763900000000,
  SeatPosition1764100000000,
  EventSettings1764200000000,
  AuditEntries1764300000000,
  BookingCancel1764410000000,
  SeatBlocks1764420000000,
  Waitlist1764500000000,
  OrphanRule1764600000000,
  SeatAccessRank1764610000000,
  AccessibleSeatsForAll1764620000000,
  WaitlistSkips1764700000000,
  WaitlistOfferAsks1764710000000,
  Pricing1764800000000,
  Areas1764900000000,
  AreaBlocks1764910000000,
];
