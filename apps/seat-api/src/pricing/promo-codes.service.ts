import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { LRUCache } from 'lru-cache';
import { randomUUID } from 'node:crypto';
import { DataSource, QueryFailedError } from 'typeorm';
import { PromoCodeEntity } from '@app/database';
import { AuditAction } from '../audit/audit-action';
import { AuditLog } from '../audit/audit-log';
import { AuthUser } from '../auth/auth-user';
import { CatalogueService } from '../catalogue/catalogue.service';
import { eventNotFound } from '../catalogue/policy/event-policy.service';
import { meteredLru } from '../common/cache/metered-lru';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { CreatePromoCodeDto } from './dto/promo-code.dto';
import type { Discount } from './price-calculator';
import { promoCodeExists, promoCodeNotFound, PromoRefusalReason } from './pricing-errors';

/** Codes whose terms one instance keeps. */
const MAX_CACHED_CODES = 50_000;
const CODE_BYTES = 512;

/** What a promo code does to a hold: never changes once the code is created, so it is cached for ever. */
export interface PromoTerms extends Discount {
  id: string;
  code: string;
  unlocks: readonly string[];
}

const termsOf = (p: PromoCodeEntity): PromoTerms => ({
  id: p.id,
  code: p.code,
  kind: p.kind,
  value: p.value,
  appliesTo: p.appliesTo,
  unlocks: p.unlocks,
});

/** Why a code cannot be applied or redeemed now (by PostgreSQL's clock), or null when it can. */
export function unusableReason(
  p: Pick<PromoCodeEntity, 'disabledAt' | 'validFrom' | 'validUntil' | 'maxUses' | 'uses'>,
  now: Date,
): Exclude<PromoRefusalReason, 'UNKNOWN' | 'NOT_APPLICABLE'> | null {
  if (p.disabledAt) {
    return 'DISABLED';
  }
  if (p.validFrom && p.validFrom > now) {
    return 'NOT_YET_VALID';
  }
  if (p.validUntil && p.validUntil <= now) {
    return 'EXPIRED';
  }
  if (p.maxUses !== null && p.uses >= p.maxUses) {
    return 'USED_UP';
  }
  return null;
}

/**
 * A show's promo codes (PostgreSQL): created and disabled by admins as audited actions, applied to holds,
 * redeemed by bookings (counted in the booking's transaction: holds/booking.repository.ts). What a code
 * does is fixed at creation, so a hold carrying it is priced the same until it ends.
 */
@Injectable()
export class PromoCodes {
  private readonly terms: LRUCache<string, PromoTerms>;

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly catalogue: CatalogueService,
    private readonly audit: AuditLog,
  ) {
    this.terms = meteredLru({
      name: 'promo_codes',
      maxBytes: MAX_CACHED_CODES * CODE_BYTES,
      maxEntries: MAX_CACHED_CODES,
    });
  }

  async create(actor: AuthUser, eventId: string, dto: CreatePromoCodeDto): Promise<PromoCodeEntity> {
    await this.requireEvent(eventId);
    refuseMistakes(dto);
    const code = dto.code.toUpperCase();
    const row = Object.assign(new PromoCodeEntity(), {
      id: randomUUID(),
      eventId,
      code,
      kind: dto.kind,
      value: dto.value,
      appliesTo: dto.appliesTo ? { ...dto.appliesTo } : null,
      unlocks: dto.unlocksTicketTypes ?? [],
      maxUses: dto.maxUses ?? null,
      uses: 0,
      validFrom: dto.validFrom ? new Date(dto.validFrom) : null,
      validUntil: dto.validUntil ? new Date(dto.validUntil) : null,
      disabledAt: null,
      createdBy: actor.id,
    });
    try {
      return await this.db.transaction(async (tx) => {
        const saved = await tx.save(PromoCodeEntity, row);
        await this.audit.recordWith(tx, {
          eventId,
          actor: actor.id,
          action: AuditAction.PROMO_CODE_CREATE,
          target: code,
          detail: { promoCodeId: row.id, ...dto, code },
        });
        return saved;
      });
    } catch (e) {
      if (e instanceof QueryFailedError && (e.driverError as { code?: string }).code === '23505') {
        throw promoCodeExists(code);
      }
      throw e;
    }
  }

  async list(eventId: string): Promise<PromoCodeEntity[]> {
    await this.requireEvent(eventId);
    return this.db
      .getRepository(PromoCodeEntity)
      .find({ where: { eventId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** The code as it is now (any letter case), or 404. */
  async read(eventId: string, code: string): Promise<PromoCodeEntity> {
    await this.requireEvent(eventId);
    const row = await this.find(eventId, code);
    if (!row) {
      throw promoCodeNotFound(code.toUpperCase());
    }
    return row;
  }

  /** Holds can no longer take the code, nor bookings redeem it; disabling it again changes nothing. */
  async disable(actor: AuthUser, eventId: string, code: string): Promise<PromoCodeEntity> {
    const row = await this.read(eventId, code);
    if (row.disabledAt) {
      return row;
    }
    return this.db.transaction(async (tx) => {
      const [[updated]] = await tx.query<[{ disabled_at: Date }[], number]>(
        `UPDATE promo_codes SET disabled_at = now() WHERE id = $1 AND disabled_at IS NULL RETURNING disabled_at`,
        [row.id],
      );
      if (updated) {
        await this.audit.recordWith(tx, {
          eventId,
          actor: actor.id,
          action: AuditAction.PROMO_CODE_DISABLE,
          target: row.code,
          detail: { promoCodeId: row.id },
        });
      }
      return (await tx.findOneBy(PromoCodeEntity, { id: row.id }))!;
    });
  }

  /** The code as it is now, or null (no letter case: it is matched in any). */
  find(eventId: string, code: string): Promise<PromoCodeEntity | null> {
    return this.db.getRepository(PromoCodeEntity).findOne({ where: { eventId, code: code.toUpperCase() } });
  }

  /** What the code does to prices (kept once read; it never changes), or null when there is none. */
  async termsOf(eventId: string, code: string): Promise<PromoTerms | null> {
    const key = `${eventId}:${code}`;
    const hit = this.terms.get(key);
    if (hit) {
      return hit;
    }
    const row = await this.find(eventId, code);
    if (!row) {
      return null;
    }
    const terms = termsOf(row);
    this.terms.set(key, terms, { size: CODE_BYTES });
    return terms;
  }

  /** The code, if it may be applied to a hold now, and its terms; else why not (PostgreSQL's clock). */
  async usable(eventId: string, code: string): Promise<PromoTerms | PromoRefusalReason> {
    const { entities, raw } = await this.db
      .getRepository(PromoCodeEntity)
      .createQueryBuilder('p')
      .addSelect('now()', 'now')
      .where('p.event_id = :eventId AND p.code = :code', { eventId, code: code.toUpperCase() })
      .getRawAndEntities<{ now: Date }>();
    if (entities.length === 0) {
      return 'UNKNOWN';
    }
    return unusableReason(entities[0], raw[0].now) ?? termsOf(entities[0]);
  }

  private async requireEvent(eventId: string): Promise<void> {
    if (!(await this.catalogue.seatsOf(eventId))) {
      throw eventNotFound(eventId);
    }
  }
}

/** The value must fit the kind, and a window must end after it starts: 400, naming the field. */
function refuseMistakes(dto: CreatePromoCodeDto): void {
  const details: { field: string; message: string }[] = [];
  if (dto.kind === 'percent' && (dto.value < 1 || dto.value > 100)) {
    details.push({ field: 'value', message: 'a percent code takes 1-100' });
  }
  if (dto.kind === 'amount' && dto.value < 1) {
    details.push({ field: 'value', message: 'an amount code takes at least 1 minor unit' });
  }
  if (dto.validFrom && dto.validUntil && Date.parse(dto.validUntil) <= Date.parse(dto.validFrom)) {
    details.push({ field: 'validUntil', message: 'must be after validFrom' });
  }
  if (details.length > 0) {
    throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The promo code does not work as given', { details });
  }
}
