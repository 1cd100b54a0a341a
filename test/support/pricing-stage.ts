/**
 * What the pricing e2e tests stand on: a show with two categories (section P, one row of premium seats
 * P-A-1..; section S, rows of standard seats S-A-1.., S-B-1..), its price list, and helpers to set prices
 * and create promo codes as an admin.
 */
import { Api } from './seat-api';

/** Premium: adult 9000, child 4500 (at most 2 a hold), comp (hidden); standard: adult 5000, child 2500. */
export const PRICES = {
  currency: 'EUR',
  categories: [
    {
      key: 'premium',
      ticketTypes: [
        { key: 'adult', label: 'Adult', price: 9000 },
        { key: 'child', label: 'Child', price: 4500, maxPerHold: 2 },
        { key: 'comp', label: 'Complimentary', price: 0, hidden: true },
      ],
    },
    {
      key: 'standard',
      ticketTypes: [
        { key: 'adult', label: 'Adult', price: 5000 },
        { key: 'child', label: 'Child', price: 2500 },
      ],
    },
  ],
};

/** A show of `perRow` premium seats (P-A-*) and `standardRows` rows of `perRow` standard seats (S-A-*, ...). */
export async function createPricedShow(api: Api, perRow = 10, standardRows = 2): Promise<string> {
  const admin = await api.token('admin-1', ['admin']);
  const row = (i: number) => ({ row: String.fromCharCode(65 + i), seats: perRow });
  const created = await api.call('POST', '/v1/events', {
    token: admin,
    body: {
      name: 'Priced show',
      startsAt: '2030-01-01T20:00:00Z',
      sections: [
        { name: 'P', category: 'premium', rows: [row(0)] },
        { name: 'S', category: 'standard', rows: Array.from({ length: standardRows }, (_, i) => row(i)) },
      ],
    },
  });
  if (created.status !== 201) {
    throw new Error(`create event: ${created.status} ${JSON.stringify(created.body)}`);
  }
  return (created.body as { eventId: string }).eventId;
}

export async function setPrices(api: Api, eventId: string, prices: object = PRICES): Promise<number> {
  const admin = await api.token('admin-1', ['admin']);
  const r = await api.call('PUT', `/v1/events/${eventId}/pricing`, { token: admin, body: prices });
  if (r.status !== 200) {
    throw new Error(`set prices: ${r.status} ${JSON.stringify(r.body)}`);
  }
  return (r.body as { version: number }).version;
}

export async function createPromo(api: Api, eventId: string, body: object): Promise<{ promoCodeId: string }> {
  const admin = await api.token('admin-1', ['admin']);
  const r = await api.call('POST', `/v1/events/${eventId}/promo-codes`, { token: admin, body });
  if (r.status !== 201) {
    throw new Error(`create promo code: ${r.status} ${JSON.stringify(r.body)}`);
  }
  return r.body as { promoCodeId: string };
}
