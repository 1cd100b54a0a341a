import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * One freed seat change turned into an offer, by the id of the seat.status event that announced it. The row
 * is inserted in the transaction that marks the entry OFFERED: a second delivery of that event (at-least-once
 * delivery, a rebalance, a consumer killed before its offset commit) finds it and makes no second offer.
 */
@Entity({ name: 'waitlist_offers' })
export class WaitlistOfferEntity {
  @PrimaryColumn('text', { name: 'source_event_id', primaryKeyConstraintName: 'waitlist_offers_pkey' })
  sourceEventId!: string;

  @Column('uuid', { name: 'entry_id' })
  entryId!: string;

  @Column('text', { name: 'hold_id' })
  holdId!: string;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
