import { Check, Column, CreateDateColumn, Entity, ForeignKey, PrimaryColumn } from 'typeorm';
import { EventEntity } from './event.entity';

/** One ticket type of a category: its price in minor units of the list's currency. */
export interface PriceListTicketType {
  key: string;
  label: string;
  price: number;
  /** At most this many lines of this type in one hold; none: only the hold's own limits. */
  maxPerHold?: number;
  /** Sold only with a promo code that unlocks it (presales, comps). */
  hidden?: true;
}

/** A seat category's ticket types, in the order given: the first type not hidden is the default. */
export interface PriceListCategory {
  key: string;
  ticketTypes: PriceListTicketType[];
}

/**
 * One version of a show's price list. Rows are never updated: a change inserts the next version, so a
 * hold priced under a version is priced the same for its whole life, and a version can be cached for ever.
 */
@Entity({ name: 'price_lists' })
@Check('price_lists_version_check', 'version > 0')
@Check('price_lists_currency_check', `currency ~ '^[A-Z]{3}$'`)
export class PriceListEntity {
  @PrimaryColumn('uuid', { name: 'event_id', primaryKeyConstraintName: 'price_lists_pkey' })
  @ForeignKey(() => EventEntity, { name: 'price_lists_event_id_fkey' })
  eventId!: string;

  @PrimaryColumn('integer', { primaryKeyConstraintName: 'price_lists_pkey' })
  version!: number;

  /** ISO 4217 code; every price is an integer in its minor unit. */
  @Column('text')
  currency!: string;

  @Column('jsonb')
  categories!: PriceListCategory[];

  /** The admin who set this version. */
  @Column('text', { name: 'created_by' })
  createdBy!: string;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
