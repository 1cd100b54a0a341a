import { Discount, priceCart, PriceTable } from './price-calculator';

const table: PriceTable = {
  currency: 'CHF',
  categories: [
    {
      key: 'premium',
      ticketTypes: [
        { key: 'adult', price: 9000 },
        { key: 'child', price: 4500 },
      ],
    },
    {
      key: 'standard',
      ticketTypes: [
        { key: 'adult', price: 5000 },
        { key: 'child', price: 2500 },
      ],
    },
    { key: 'restricted', ticketTypes: [{ key: 'adult', price: 1999 }] },
  ],
};
const line = (seatId: string, category: string, ticketType = 'adult') => ({ seatId, category, ticketType });

it('each category has its own price: three categories, three prices', () => {
  const cart = priceCart(table, [line('P-1', 'premium'), line('S-1', 'standard'), line('R-1', 'restricted')]);
  expect(cart.lines.map((l) => l.unitPrice)).toEqual([9000, 5000, 1999]);
  expect(cart).toMatchObject({ currency: 'CHF', subtotal: 15999, discountTotal: 0, total: 15999 });
});

it('an amount larger than a ticket takes it to 0, never below', () => {
  const d: Discount = { kind: 'amount', value: 3000 };
  const cart = priceCart(table, [line('R-1', 'restricted'), line('S-1', 'standard')], d);
  expect(cart.lines.map((l) => l.unitPrice - l.discount)).toEqual([0, 2000]);
  expect(cart).toMatchObject({ subtotal: 6999, discountTotal: 4999, total: 2000 });
});

it('a code restricted to a category discounts that category only, not the whole order', () => {
  const d: Discount = { kind: 'percent', value: 50, appliesTo: { categories: ['standard'] } };
  const cart = priceCart(
    table,
    [line('P-1', 'premium'), line('S-1', 'standard'), line('S-2', 'standard', 'child')],
    d,
  );
  expect(cart.lines.map((l) => l.discount)).toEqual([0, 2500, 1250]);
  expect(cart.total).toBe(9000 + 2500 + 1250);
});

it('a code restricted to ticket types and categories needs both', () => {
  const d: Discount = {
    kind: 'amount',
    value: 500,
    appliesTo: { categories: ['premium'], ticketTypes: ['child'] },
  };
  const cart = priceCart(
    table,
    [line('P-1', 'premium'), line('P-2', 'premium', 'child'), line('S-1', 'standard', 'child')],
    d,
  );
  expect(cart.lines.map((l) => l.discount)).toEqual([0, 500, 0]);
});

it('percent rounds half up per line, on minor units', () => {
  // 1999 x 15 % = 299.85 -> 300; 2500 x 15 % = 375; 1 x 50 % = 0.5 -> 1; 3 x 10 % = 0.3 -> 0
  const t: PriceTable = {
    currency: 'EUR',
    categories: [
      {
        key: 'c',
        ticketTypes: [
          { key: 'a', price: 1999 },
          { key: 'b', price: 2500 },
          { key: 'one', price: 1 },
          { key: 'three', price: 3 },
        ],
      },
    ],
  };
  const lines = ['a', 'b', 'one', 'three'].map((t, i) => line(`c-${i}`, 'c', t));
  expect(priceCart(t, lines, { kind: 'percent', value: 15 }).lines.map((l) => l.discount)).toEqual([
    300, 375, 0, 0,
  ]);
  expect(priceCart(t, lines, { kind: 'percent', value: 50 }).lines.map((l) => l.discount)).toEqual([
    1000, 1250, 1, 2,
  ]);
  expect(priceCart(t, lines, { kind: 'percent', value: 10 }).lines.map((l) => l.discount)).toEqual([
    200, 250, 0, 0,
  ]);
  expect(priceCart(t, lines, { kind: 'percent', value: 100 }).total).toBe(0);
});

it('fixed-price sets what a line costs, and never raises a cheaper one', () => {
  const d: Discount = { kind: 'fixed-price', value: 3000 };
  const cart = priceCart(table, [line('P-1', 'premium'), line('R-1', 'restricted')], d);
  expect(cart.lines.map((l) => l.unitPrice - l.discount)).toEqual([3000, 1999]);
  expect(priceCart(table, [line('P-1', 'premium')], { kind: 'fixed-price', value: 0 }).total).toBe(0);
});

it('an unknown ticket type is a programming error, never a price', () => {
  expect(() => priceCart(table, [line('R-1', 'restricted', 'child')])).toThrow(/no ticket type child/);
});
