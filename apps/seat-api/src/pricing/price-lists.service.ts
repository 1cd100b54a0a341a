import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { PriceListEntity } from '@app/database';
import { AuditAction } from '../audit/audit-action';
import { AuditLog } from '../audit/audit-log';
import { AuthUser } from '../auth/auth-user';
import { CatalogueService } from '../catalogue/catalogue.service';
import { EventPolicy } from '../catalogue/policy/event-policy';
import { eventNotFound, EventPolicyService } from '../catalogue/policy/event-policy.service';
import { meteredLru } from '../common/cache/metered-lru';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { PriceListDto } from './dto/price-list.dto';
import { PriceList } from './price-list';
import { priceListNotFound } from './pricing-errors';

/** Price-list versions one instance keeps (a few KB each). */
const MAX_CACHED_LISTS = 10_000;
const LIST_BYTES = 4096;

const ofRow = (row: PriceListEntity): PriceList => ({
  eventId: row.eventId,
  version: row.version,
  currency: row.currency,
  categories: row.categories,
  createdAt: row.createdAt,
  createdBy: row.createdBy,
});

/**
 * Each show's price list, versioned in PostgreSQL: a change inserts the next version, never updates one,
 * so a version is cached by (event, version) with nothing to invalidate. Which version is current is part
 * of the event's policy (EventPolicy.priceListVersion): a change raises the policy version in Redis before
 * it commits, so every instance's next hold is refused POLICY_CHANGED, reloads and is priced under the new
 * version, in the hold's own step (HoldPolicy), with no Redis read of its own.
 */
@Injectable()
export class PriceLists {
  private readonly cache: LRUCache<string, PriceList>;
  private readonly loading = new Map<string, Promise<PriceList | null>>();

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly policies: EventPolicyService,
    private readonly catalogue: CatalogueService,
    private readonly audit: AuditLog,
  ) {
    this.cache = meteredLru({
      name: 'price_lists',
      maxBytes: MAX_CACHED_LISTS * LIST_BYTES,
      maxEntries: MAX_CACHED_LISTS,
    });
  }

  /** Version `version` of the show's price list (kept once read), or null when there is none. */
  version(eventId: string, version: number): Promise<PriceList | null> {
    const key = `${eventId}:${version}`;
    const hit = this.cache.get(key);
    if (hit) {
      return Promise.resolve(hit);
    }
    let pending = this.loading.get(key);
    if (!pending) {
      pending = this.db
        .getRepository(PriceListEntity)
        .findOne({ where: { eventId, version } })
        .then((row) => {
          const list = row ? ofRow(row) : null;
          if (list) {
            this.cache.set(key, list, { size: LIST_BYTES });
          }
          return list;
        })
        .finally(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  /** The list of a policy's version (null: the show has no price list, its holds are not priced). */
  async of(policy: EventPolicy): Promise<PriceList | null> {
    if (policy.priceListVersion === null) {
      return null;
    }
    const list = await this.version(policy.eventId, policy.priceListVersion);
    if (!list) {
      throw new Error(`event ${policy.eventId}: price list version ${policy.priceListVersion} is missing`);
    }
    return list;
  }

  /**
   * The show's current list, as every instance makes holds under it right now: this instance's copy of
   * the policy, checked against Redis's version first (one read), so a change made on another instance is
   * seen at once. 404 when the show has none.
   */
  async current(eventId: string): Promise<PriceList> {
    const kept = await this.policies.forHold(eventId);
    if (!kept) {
      throw eventNotFound(eventId);
    }
    const list = await this.of(await this.policies.confirmed(kept));
    if (!list) {
      throw priceListNotFound(eventId);
    }
    return list;
  }

  /** A version by number, or the current one; 404 when there is no such version. */
  async read(eventId: string, version?: number): Promise<PriceList> {
    if (version === undefined) {
      return this.current(eventId);
    }
    if (!(await this.catalogue.seatsOf(eventId))) {
      throw eventNotFound(eventId);
    }
    const list = await this.version(eventId, version);
    if (!list) {
      throw priceListNotFound(eventId, version);
    }
    return list;
  }

  /**
   * Sets the show's price list: a new version, current for every hold made after this answers, on every
   * instance; holds made before keep theirs. Every category of the layout must be priced, and only those.
   * One transaction with the event's policy change and the audit entry: all or nothing.
   */
  async set(actor: AuthUser, eventId: string, dto: PriceListDto): Promise<PriceList> {
    const seats = await this.catalogue.seatsOf(eventId);
    if (!seats) {
      throw eventNotFound(eventId);
    }
    const layout = new Set<string>();
    for (const s of seats.values()) {
      layout.add(s.category);
    }
    // general-admission places are priced by their area's category, as seats by theirs
    for (const a of seats.areas.values()) {
      layout.add(a.category);
    }
    refuseMistakes(dto, layout);
    const categories = dto.categories.map((c) => ({
      key: c.key,
      ticketTypes: c.ticketTypes.map(({ key, label, price, maxPerHold, hidden }) => ({
        key,
        label,
        price,
        ...(maxPerHold === undefined ? {} : { maxPerHold }),
        ...(hidden ? { hidden } : {}),
      })),
    }));
    let made: PriceListEntity | undefined;
    await this.policies.setPriceList(eventId, async (tx, version) => {
      const row = Object.assign(new PriceListEntity(), {
        eventId,
        version,
        currency: dto.currency,
        categories,
        createdBy: actor.id,
      });
      made = await tx.save(PriceListEntity, row);
      await this.audit.recordWith(tx, {
        eventId,
        actor: actor.id,
        action: AuditAction.PRICE_LIST_SET,
        target: `price-list:${version}`,
        detail: { version, currency: dto.currency, categories },
      });
    });
    const list = ofRow(made!);
    this.cache.set(`${eventId}:${list.version}`, list, { size: LIST_BYTES });
    return list;
  }
}

/** A list that names a category twice, a type twice in a category, or not the layout's categories: 400. */
function refuseMistakes(dto: PriceListDto, layout: ReadonlySet<string>): void {
  const details: { field: string; message: string }[] = [];
  const seen = new Set<string>();
  dto.categories.forEach((c, i) => {
    if (seen.has(c.key)) {
      details.push({ field: `categories[${i}].key`, message: `category ${c.key} is given twice` });
    }
    seen.add(c.key);
    if (!layout.has(c.key)) {
      details.push({ field: `categories[${i}].key`, message: `the show's layout has no category ${c.key}` });
    }
    const types = new Set<string>();
    c.ticketTypes.forEach((t, j) => {
      if (types.has(t.key)) {
        details.push({
          field: `categories[${i}].ticketTypes[${j}].key`,
          message: `ticket type ${t.key} is given twice in category ${c.key}`,
        });
      }
      types.add(t.key);
    });
  });
  for (const category of layout) {
    if (!seen.has(category)) {
      details.push({ field: 'categories', message: `category ${category} of the layout has no prices` });
    }
  }
  if (details.length > 0) {
    throw new DomainError(ErrorCode.VALIDATION_FAILED, 'The price list does not fit the show', { details });
  }
}
