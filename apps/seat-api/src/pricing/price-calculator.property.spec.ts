/**
 * 10,000 random carts (categories, ticket types named or left to the default, promo codes of each kind
 * and scope) priced by the service's path (a hold's stored pricing text decoded, then priceHold) and by
 * the small reference calculator below, written apart from it (BigInt arithmetic, its own rounding): every
 * line and every sum must agree.
 */
import fc from 'fast-check';
import { Discount } from './price-calculator';
import { decodeHoldPricing, encodeHoldPricing } from './hold-pricing';
import { PriceList } from './price-list';
import { priceHold } from './priced-hold';

const CARTS = 10_000;

interface RefLine {
  unitPrice: bigint;
  discount: bigint;
}

/** The reference: what each line and the cart cost, from the rules as docs/pricing.md states them. */
function reference(
  list: PriceList,
  cart: { category: string; ticketType: string | null }[],
  d: Discount | null,
): { lines: RefLine[]; subtotal: bigint; discountTotal: bigint; total: bigint } {
  const lines = cart.map(({ category, ticketType }) => {
    const types = list.categories.find((c) => c.key === category)!.ticketTypes;
    const type =
      ticketType === null ? types.filter((t) => !t.hidden)[0] : types.find((t) => t.key === ticketType)!;
    const unitPrice = BigInt(type.price);
    let discount = 0n;
    const inScope =
      d !== null &&
      (d.appliesTo?.categories === undefined || d.appliesTo.categories.some((c) => c === category)) &&
      (d.appliesTo?.ticketTypes === undefined || d.appliesTo.ticketTypes.some((t) => t === type.key));
    if (inScope) {
      const v = BigInt(d.value);
      if (d.kind === 'percent') {
        const exact = unitPrice * v; // hundredths of a minor unit
        discount = exact / 100n + (exact % 100n >= 50n ? 1n : 0n);
      } else if (d.kind === 'amount') {
        discount = v < unitPrice ? v : unitPrice;
      } else {
        discount = unitPrice > v ? unitPrice - v : 0n;
      }
    }
    return { unitPrice, discount };
  });
  const subtotal = lines.reduce((s, l) => s + l.unitPrice, 0n);
  const discountTotal = lines.reduce((s, l) => s + l.discount, 0n);
  return { lines, subtotal, discountTotal, total: subtotal - discountTotal };
}

const TYPE_KEYS = ['adult', 'child', 'senior', 'student', 'comp'];
const CATEGORY_KEYS = ['premium', 'standard', 'restricted', 'box'];

const priceListArb = fc
  .uniqueArray(fc.constantFrom(...CATEGORY_KEYS), { minLength: 1, maxLength: 4 })
  .chain((categories) =>
    fc.tuple(
      ...categories.map((key) =>
        fc
          .uniqueArray(fc.constantFrom(...TYPE_KEYS), { minLength: 1, maxLength: 5 })
          .chain((types) =>
            fc.tuple(
              ...types.map((t, i) =>
                fc.record({
                  key: fc.constant(t),
                  label: fc.constant(t),
                  price: fc.oneof(
                    fc.integer({ min: 0, max: 1_000_000_000 }),
                    fc.integer({ min: 0, max: 200 }),
                  ),
                  // the first type is never hidden: every category has a default
                  hidden: i === 0 ? fc.constant(undefined) : fc.constantFrom(undefined, true as const),
                }),
              ),
            ),
          )
          .map((ticketTypes) => ({ key, ticketTypes })),
      ),
    ),
  )
  .map((categories): PriceList => ({
    eventId: 'e',
    version: 1,
    currency: 'EUR',
    categories,
    createdAt: new Date(0),
    createdBy: 'a',
  }));

const discountArb: fc.Arbitrary<Discount | null> = fc.option(
  fc
    .oneof(
      fc.record({ kind: fc.constant('percent' as const), value: fc.integer({ min: 1, max: 100 }) }),
      fc.record({ kind: fc.constant('amount' as const), value: fc.integer({ min: 1, max: 2_000_000_000 }) }),
      fc.record({
        kind: fc.constant('fixed-price' as const),
        value: fc.integer({ min: 0, max: 1_000_000_000 }),
      }),
    )
    .chain((d) =>
      fc
        .record(
          {
            categories: fc.subarray(CATEGORY_KEYS, { minLength: 1 }),
            ticketTypes: fc.subarray(TYPE_KEYS, { minLength: 1 }),
          },
          { requiredKeys: [] },
        )
        .map((appliesTo) => ({ ...d, appliesTo })),
    ),
  { nil: null },
);

const caseArb = priceListArb.chain((list) =>
  fc.record({
    list: fc.constant(list),
    cart: fc.array(
      fc.constantFrom(...list.categories).chain((c) =>
        fc.record({
          category: fc.constant(c.key),
          ticketType: fc.option(fc.constantFrom(...c.ticketTypes.map((t) => t.key)), { nil: null }),
        }),
      ),
      { minLength: 1, maxLength: 20 },
    ),
    discount: discountArb,
  }),
);

it(`prices ${CARTS.toLocaleString('en')} random carts as the reference calculator does`, () => {
  let differences = 0;
  fc.assert(
    fc.property(caseArb, ({ list, cart, discount }) => {
      const seatIds = cart.map((_, i) => `S-${i}`);
      const stored = encodeHoldPricing({
        version: list.version,
        promoCode: discount ? 'CODE' : null,
        ticketTypes: cart.map((l) => l.ticketType ?? ''),
      });
      const pricing = decodeHoldPricing(stored, seatIds.length)!;
      const service = priceHold(list, seatIds, pricing, (s) => cart[Number(s.slice(2))].category, discount);
      const ref = reference(list, cart, discount);
      const same =
        service.lines.every(
          (l, i) =>
            BigInt(l.unitPrice) === ref.lines[i].unitPrice && BigInt(l.discount) === ref.lines[i].discount,
        ) &&
        BigInt(service.subtotal) === ref.subtotal &&
        BigInt(service.discountTotal) === ref.discountTotal &&
        BigInt(service.total) === ref.total &&
        service.lines.every((l) => l.unitPrice - l.discount >= 0);
      if (!same) {
        differences++;
      }
      return same;
    }),
    { numRuns: CARTS },
  );
  expect(differences).toBe(0);
});
