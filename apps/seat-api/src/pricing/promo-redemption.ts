import type { EntityManager } from 'typeorm';
import { unusableReason } from './promo-codes.service';
import type { PromoRefusalReason } from './pricing-errors';
import { PromoCodeEntity } from '@app/database';

export type RedemptionRefusal = Exclude<PromoRefusalReason, 'UNKNOWN' | 'NOT_APPLICABLE'>;

/**
 * Counts one use of promo code `id`, inside the booking's transaction (`m`): one statement that raises
 * `uses` only while the code may be redeemed now (not disabled, within its window, below max_uses), so
 * racing confirms on any instance take the row one after the other and exactly max_uses of them get it;
 * the booking's commit or rollback decides the use with it, whatever retries or crashes. Null when counted,
 * else why not (the caller rolls the booking back).
 */
export async function redeemPromoCode(m: EntityManager, id: string): Promise<RedemptionRefusal | null> {
  const [rows] = await m.query<[{ id: string }[], number]>(
    `UPDATE promo_codes SET uses = uses + 1
      WHERE id = $1 AND disabled_at IS NULL
        AND (valid_from IS NULL OR valid_from <= now()) AND (valid_until IS NULL OR valid_until > now())
        AND (max_uses IS NULL OR uses < max_uses)
      RETURNING id`,
    [id],
  );
  if (rows.length === 1) {
    return null;
  }
  const { entities, raw } = await m
    .getRepository(PromoCodeEntity)
    .createQueryBuilder('p')
    .addSelect('now()', 'now')
    .where('p.id = :id', { id })
    .getRawAndEntities<{ now: Date }>();
  // a code is never deleted: one that is gone would be a broken database, refused as disabled
  return entities.length === 0 ? 'DISABLED' : (unusableReason(entities[0], raw[0].now) ?? 'USED_UP');
}
