import { Injectable } from '@nestjs/common';
import { CatalogueService } from '../catalogue/catalogue.service';
import { EventPolicy } from '../catalogue/policy/event-policy';
import { DomainError } from '../common/errors/domain-error';
import { ErrorCode } from '../common/errors/error-code';
import { checkedLines, storedType, WantedLine } from './cart-rules';
import { decodeHoldPricing, encodeHoldPricing, HoldPricing } from './hold-pricing';
import { CartLine, discountApplies } from './price-calculator';
import { categoryOf, PriceList } from './price-list';
import { PriceLists } from './price-lists.service';
import { PricedSale } from './priced-sale';
import { priceHold } from './priced-hold';
import { promoCodeRefused } from './pricing-errors';
import { PromoCodes, PromoTerms } from './promo-codes.service';

/** A hold as pricing reads it (HoldRecord's fields). */
export interface PricedHoldSource {
  eventId: string;
  seatIds: readonly string[];
  /** Its places of general-admission areas, priced after its seats (placeItems). */
  places?: readonly { area: string; quantity: number }[];
  /** HoldRecord.pricing: '' or absent for a hold that is not priced. */
  pricing?: string;
}

/** A new hold's lines: each seat's ticket type ('' for the default), and the code it comes with. */
export interface NewHoldLines {
  /** The seats' categories and the types asked, in the hold's seat order. */
  lines: readonly WantedLine[];
  promoCode?: string;
}

/**
 * Prices holds with the price lists and promo codes: what a new hold keeps (checked against the version its
 * policy names), what a hold sells for (the one calculator, via priceHold), and the ticket types and promo
 * code of a hold as they may change. The text a hold keeps is HoldPricing's (hold-pricing.ts).
 */
@Injectable()
export class HoldPrices {
  constructor(
    private readonly lists: PriceLists,
    private readonly promos: PromoCodes,
    private readonly catalogue: CatalogueService,
  ) {}

  /** The price list a new hold is made under (null: the show has none, the hold is not priced). */
  listFor(policy: EventPolicy): Promise<PriceList | null> {
    return this.lists.of(policy);
  }

  /**
   * What a new hold keeps to be priced ('' under no price list): its lines checked under `list` (unknown
   * type 400, hidden type without a code that unlocks it 422, more than maxPerHold 422), and its promo code,
   * if it comes with one, checked as applying one is (applyCode).
   */
  async newHoldPricing(list: PriceList | null, want: NewHoldLines): Promise<string> {
    if (!list) {
      if (want.promoCode !== undefined || want.lines.some((l) => l.ticketType !== '')) {
        throw new DomainError(
          ErrorCode.PRICE_LIST_NOT_FOUND,
          'This show has no price list: it has no ticket types or promo codes',
        );
      }
      return '';
    }
    const promo = want.promoCode === undefined ? null : await this.usableCode(list.eventId, want.promoCode);
    const lines = checkedLines(list, want.lines, promo?.unlocks ?? []);
    if (promo && !applies(list, promo, lines)) {
      throw promoCodeRefused('NOT_APPLICABLE');
    }
    return encodeHoldPricing({
      version: list.version,
      promoCode: promo?.code ?? null,
      ticketTypes: lines.map((l) => storedType(list, l)),
    });
  }

  /**
   * The checks of newHoldPricing for a best-available hold, whose seats (so category) are picked by the hold
   * script: the types asked must pass in every category it may pick from (`categories`), so whichever it
   * picks, the hold's lines are valid.
   */
  async newBestAvailablePricing(
    list: PriceList | null,
    categories: readonly string[],
    types: readonly { ticketType: string; field: string }[],
    promoCode: string | undefined,
  ): Promise<string> {
    if (!list) {
      const lines = types.map((t, i) => ({ seatId: `#${i + 1}`, category: '', ...t }));
      return this.newHoldPricing(null, { lines, promoCode });
    }
    let pricing = '';
    for (const category of categories) {
      const lines = types.map((t, i) => ({ seatId: `#${i + 1}`, category, ...t }));
      pricing = await this.newHoldPricing(list, { lines, promoCode });
    }
    return pricing;
  }

  /** What `hold` sells for now (null: it is not priced): its version's prices, its code's discount. */
  async saleOf(hold: PricedHoldSource): Promise<PricedSale | null> {
    const items = pricedItems(hold);
    const pricing = decodeHoldPricing(hold.pricing ?? '', items.length);
    if (!pricing) {
      return null;
    }
    const { list, seats, promo } = await this.partsOf(hold.eventId, pricing);
    const cart = priceHold(list, items, pricing, (s) => categoryIn(seats, s), promo);
    return { version: pricing.version, cart, promo: promo ? { id: promo.id, code: promo.code } : null };
  }

  /**
   * The pricing text of `hold` with seat `seatId` sold as `ticketType` (checked as a new hold's lines are,
   * under the hold's own version and code); null when the hold is not priced. Throws SEAT_NOT_FOUND for a
   * seat the hold does not have.
   */
  async withTicketType(hold: PricedHoldSource, seatId: string, ticketType: string): Promise<string | null> {
    const items = pricedItems(hold);
    const pricing = decodeHoldPricing(hold.pricing ?? '', items.length);
    if (!pricing) {
      return null;
    }
    const at = items.indexOf(seatId);
    if (at < 0) {
      throw new DomainError(ErrorCode.SEAT_NOT_FOUND, `Seat ${seatId} is not in this hold`, {
        details: [{ seatId }],
      });
    }
    const { list, seats, promo } = await this.partsOf(hold.eventId, pricing);
    const types = [...pricing.ticketTypes];
    types[at] = ticketType;
    const lines = checkedLines(
      list,
      items.map((s, i) => ({
        seatId: s,
        category: categoryIn(seats, s),
        ticketType: types[i],
        field: i === at ? 'ticketType' : `seat ${s}`,
      })),
      promo?.unlocks ?? [],
    );
    return encodeHoldPricing({ ...pricing, ticketTypes: lines.map((l) => storedType(list, l)) });
  }

  /**
   * The pricing text of `hold` carrying promo code `code` instead of the one it has (null: none). A code is
   * checked as it is now (422 PROMO_CODE_REFUSED: unknown, disabled, not yet valid, expired, used up, or
   * applying to none of the hold's lines and unlocking none of their categories' types); a line of a hidden
   * type the new code does not unlock goes back to its category's default. Null when the hold is not priced.
   */
  async withPromoCode(hold: PricedHoldSource, code: string | null): Promise<string | null> {
    const items = pricedItems(hold);
    const pricing = decodeHoldPricing(hold.pricing ?? '', items.length);
    if (!pricing) {
      return null;
    }
    const { list, seats } = await this.partsOf(hold.eventId, { ...pricing, promoCode: null });
    const promo = code === null ? null : await this.usableCode(hold.eventId, code);
    const unlocked = promo?.unlocks ?? [];
    const wanted = items.map((s, i) => {
      const category = categoryIn(seats, s);
      const type = categoryOf(list, category)?.ticketTypes.find((t) => t.key === pricing.ticketTypes[i]);
      const kept = type && type.hidden && !unlocked.includes(type.key) ? '' : pricing.ticketTypes[i];
      return { seatId: s, category, ticketType: kept, field: `seat ${s}` };
    });
    const lines = checkedLines(list, wanted, unlocked);
    if (promo && !applies(list, promo, lines)) {
      throw promoCodeRefused('NOT_APPLICABLE');
    }
    return encodeHoldPricing({
      version: pricing.version,
      promoCode: promo?.code ?? null,
      ticketTypes: lines.map((l) => storedType(list, l)),
    });
  }

  /** The code's terms if it may be applied now, else 422 PROMO_CODE_REFUSED with the reason. */
  private async usableCode(eventId: string, code: string): Promise<PromoTerms> {
    const usable = await this.promos.usable(eventId, code);
    if (typeof usable === 'string') {
      throw promoCodeRefused(usable);
    }
    return usable;
  }

  private async partsOf(eventId: string, pricing: HoldPricing) {
    const [list, seats, promo] = await Promise.all([
      this.lists.version(eventId, pricing.version),
      this.catalogue.seatsOf(eventId),
      pricing.promoCode ? this.promos.termsOf(eventId, pricing.promoCode) : null,
    ]);
    if (!list || !seats || (pricing.promoCode && !promo)) {
      throw new Error(`event ${eventId}: what hold pricing ${JSON.stringify(pricing)} names is missing`);
    }
    return { list, seats, promo };
  }
}

/**
 * What a priced hold's lines are of, in its pricing's order: its seats, then one item per place of each
 * area, `<area>.<n>` (n from 1; no seat id has a '.'), so a line of a place names its area.
 */
export function pricedItems(hold: {
  seatIds: readonly string[];
  places?: readonly { area: string; quantity: number }[];
}): string[] {
  return [...hold.seatIds, ...(hold.places ?? []).flatMap((p) => placeItems(p.area, p.quantity))];
}

/** The priced items of `quantity` places of `area`: `<area>.1` .. `<area>.<quantity>`. */
export function placeItems(area: string, quantity: number): string[] {
  return Array.from({ length: quantity }, (_, i) => `${area}.${i + 1}`);
}

/** An event's seats and areas, as the catalogue gives them. */
type EventSeats = NonNullable<Awaited<ReturnType<CatalogueService['seatsOf']>>>;

/** The category of a priced item: a seat's, or a place's area's. */
function categoryIn(seats: EventSeats, item: string): string {
  const seat = seats.get(item);
  return seat ? seat.category : seats.areas.get(item.slice(0, item.lastIndexOf('.')))!.category;
}

/**
 * Whether a code does anything to a hold of `lines`: discounts one of them, or unlocks a type of one of
 * their categories (a presale code: its holds may then take the hidden types it opens).
 */
function applies(list: PriceList, promo: PromoTerms, lines: readonly CartLine[]): boolean {
  return lines.some(
    (l) =>
      discountApplies(promo, l.category, l.ticketType) ||
      categoryOf(list, l.category)?.ticketTypes.some((t) => t.hidden && promo.unlocks.includes(t.key)),
  );
}
