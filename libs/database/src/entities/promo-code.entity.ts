import { Check, Column, CreateDateColumn, Entity, ForeignKey, Index, PrimaryColumn } from 'typeorm';
import { EventEntity } from './event.entity';

/** How a promo code discounts the lines it applies to (apps/seat-api/src/pricing/price-calculator.ts). */
export type PromoKind = 'percent' | 'amount' | 'fixed-price';
export const PROMO_KINDS: readonly PromoKind[] = ['percent', 'amount', 'fixed-price'];

/** Which lines a code discounts: of these categories and these ticket types (a list left out: any). */
export interface PromoScope {
  categories?: string[];
  ticketTypes?: string[];
}

const bigint = { to: (v: number) => v, from: (v: string) => Number(v) };

/**
 * A show's promo code. What it does (kind, value, scope, unlocks) never changes once created, so a hold
 * carrying it is priced the same for its life; only `uses` and `disabled_at` change. `uses` counts the
 * bookings carrying the code, raised in each booking's transaction while below `max_uses`.
 */
@Entity({ name: 'promo_codes' })
@Index('promo_codes_event_code_key', ['eventId', 'code'], { unique: true })
@Check('promo_codes_kind_check', `kind IN ('percent', 'amount', 'fixed-price')`)
@Check('promo_codes_value_check', 'value >= 0')
@Check('promo_codes_uses_check', 'uses >= 0 AND (max_uses IS NULL OR uses <= max_uses)')
export class PromoCodeEntity {
  @PrimaryColumn('uuid', { primaryKeyConstraintName: 'promo_codes_pkey' })
  id!: string;

  @Column('uuid', { name: 'event_id' })
  @ForeignKey(() => EventEntity, { name: 'promo_codes_event_id_fkey' })
  eventId!: string;

  /** Upper-case: codes are matched in any letter case. */
  @Column('text')
  code!: string;

  @Column('text')
  kind!: PromoKind;

  /** percent: 1-100; amount: minor units off each line; fixed-price: what each line costs. */
  @Column('bigint', { transformer: bigint })
  value!: number;

  @Column('jsonb', { name: 'applies_to', nullable: true })
  appliesTo!: PromoScope | null;

  /** Hidden ticket types a hold carrying the code may use. */
  @Column('text', { array: true, default: () => "'{}'" })
  unlocks!: string[];

  @Column('integer', { name: 'max_uses', nullable: true })
  maxUses!: number | null;

  @Column('integer', { default: 0 })
  uses!: number;

  @Column('timestamptz', { name: 'valid_from', nullable: true })
  validFrom!: Date | null;

  @Column('timestamptz', { name: 'valid_until', nullable: true })
  validUntil!: Date | null;

  @Column('timestamptz', { name: 'disabled_at', nullable: true })
  disabledAt!: Date | null;

  @Column('text', { name: 'created_by' })
  createdBy!: string;

  @CreateDateColumn({ type: 'timestamptz', name: 'created_at' })
  createdAt!: Date;
}
