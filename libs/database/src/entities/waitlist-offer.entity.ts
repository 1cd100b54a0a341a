import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * An offer made for a freed seat change, by the id of the seat.status event that announced it and the entry
 * offered. A change's offers are inserted in the transaction that marks their entries OFFERED: a second
 * delivery of that event (at-least-once delivery, a rebalance, a consumer killed before its offset commit)
 * finds them and makes no second offer (recovered ones aside: see `recovered`).
 */
@Entity({ name: 'waitlist_offers' })
export class WaitlistOfferEntity {
  @PrimaryColumn('text', { name: 'source_event_id', primaryKeyConstraintName: 'waitlist_offers_pkey' })
  sourceEventId!: string;

  @PrimaryColumn('uuid', { name: 'entry_id', primaryKeyConstraintName: 'waitlist_offers_pkey' })
  entryId!: string;

  @Column('text', { name: 'hold_id' })
  holdId!: string;

  /** What the offer's WaitlistOfferMade says, kept so a redelivery can publish the same event. */
  @Column('text', { name: 'seat_ids', array: true })
  seatIds!: string[];

  /** The places of a general-admission area its hold took ([{ area, quantity }]); null for seats. */
  @Column('jsonb', { nullable: true })
  places!: { area: string; quantity: number }[] | null;

  @Column('timestamptz', { name: 'offer_expires_at' })
  offerExpiresAt!: Date;

  /**
   * Made by a run that did not store it (a crash, a failure) and stored by a later one: it does not count
   * as its change having been offered, so the change's other seats still are.
   */
  @Column('boolean', { default: false })
  recovered!: boolean;

  /** When its WaitlistOfferMade was acknowledged by Kafka; null: a redelivery publishes it (again). */
  @Column('timestamptz', { name: 'published_at', nullable: true })
  publishedAt!: Date | null;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
