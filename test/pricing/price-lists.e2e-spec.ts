/**
 * Price lists and promo codes as admins set them, against the real services: every change of a price list
 * is a new version (the old ones stay readable), audited in the same transaction; a list that does not fit
 * the show's layout is refused 400 with nothing written; the public prices beside the seat map show each
 * category's range without hidden types; promo codes are created (once per text, in any letter case),
 * listed, read and disabled, each change audited.
 */
import { Db, openDb } from '@test/support/db';
import { createPricedShow, PRICES, setPrices } from '@test/support/pricing-stage';
import { Api, startApi } from '@test/support/seat-api';

let api: Api;
let db: Db;
let eventId: string;
let admin: string;
let agent: string;
let alice: string;

beforeAll(async () => {
  db = await openDb();
  api = await startApi({ RATE_LIMIT_ENABLED: 'false' });
  eventId = await createPricedShow(api);
  admin = await api.token('admin-1', ['admin']);
  agent = await api.token('agent-1', ['agent']);
  alice = await api.token('alice');
});
afterAll(async () => {
  await api?.close();
  await db?.close();
});

const put = (body: object, token = admin) =>
  api.call('PUT', `/v1/events/${eventId}/pricing`, { token, body });
const auditActions = async () =>
  (await api.call('GET', `/v1/events/${eventId}/audit`, { token: admin })).body.items.map(
    (i: { action: string }) => i.action,
  );

it('a show without a price list answers 404 PRICE_LIST_NOT_FOUND, to staff and on the public prices', async () => {
  const r = await api.call('GET', `/v1/events/${eventId}/pricing`, { token: agent });
  expect([r.status, r.body.code]).toEqual([404, 'PRICE_LIST_NOT_FOUND']);
  const pub = await api.call('GET', `/v1/events/${eventId}/prices`);
  expect([pub.status, pub.body.code]).toEqual([404, 'PRICE_LIST_NOT_FOUND']);
});

it.each([
  ['a category of the layout left out', { ...PRICES, categories: [PRICES.categories[0]] }, 'categories'],
  [
    'a category the layout does not have',
    {
      ...PRICES,
      categories: [...PRICES.categories, { key: 'box', ticketTypes: [{ key: 'a', label: 'A', price: 1 }] }],
    },
    'categories[2].key',
  ],
  [
    'a ticket type twice',
    {
      ...PRICES,
      categories: [
        PRICES.categories[0],
        {
          key: 'standard',
          ticketTypes: [
            { key: 'a', label: 'A', price: 1 },
            { key: 'a', label: 'B', price: 2 },
          ],
        },
      ],
    },
    'categories[1].ticketTypes[1].key',
  ],
  [
    'a price with a fraction',
    {
      ...PRICES,
      categories: [
        PRICES.categories[0],
        { key: 'standard', ticketTypes: [{ key: 'a', label: 'A', price: 12.5 }] },
      ],
    },
    'categories.1.ticketTypes.0.price',
  ],
  ['a currency that is no ISO 4217 code', { ...PRICES, currency: 'euro' }, 'currency'],
  [
    'a label PostgreSQL cannot store (a lone surrogate)',
    {
      ...PRICES,
      categories: [
        PRICES.categories[0],
        { key: 'standard', ticketTypes: [{ key: 'a', label: '\ud800', price: 1 }] },
      ],
    },
    'categories.1.ticketTypes.0.label',
  ],
  [
    'a key that could not be stored in a hold',
    {
      ...PRICES,
      categories: [
        PRICES.categories[0],
        { key: 'standard', ticketTypes: [{ key: 'a|b', label: 'A', price: 1 }] },
      ],
    },
    'categories.1.ticketTypes.0.key',
  ],
])('refuses %s (400, nothing written)', async (_what, body, field) => {
  const r = await put(body);
  expect([r.status, r.body.code]).toEqual([400, 'VALIDATION_FAILED']);
  expect(JSON.stringify(r.body.errors)).toContain(field);
  expect(await db.count('price_lists', 'event_id = $1', [eventId])).toBe(0);
});

it('only admins set prices, only staff read the whole list', async () => {
  expect((await put(PRICES, agent)).status).toBe(403);
  expect((await put(PRICES, alice)).status).toBe(403);
  expect((await api.call('GET', `/v1/events/${eventId}/pricing`, { token: alice })).status).toBe(403);
});

it('each change is a new version, audited; older versions stay as they were', async () => {
  const first = await put(PRICES);
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({ eventId, version: 1, currency: 'EUR', createdBy: 'admin-1' });
  const dearer = structuredClone(PRICES);
  dearer.categories[1].ticketTypes[0].price = 5500;
  const second = await put(dearer);
  expect(second.body.version).toBe(2);
  const current = await api.call('GET', `/v1/events/${eventId}/pricing`, { token: agent });
  expect(current.body.categories[1].ticketTypes[0].price).toBe(5500);
  const old = await api.call('GET', `/v1/events/${eventId}/pricing?version=1`, { token: agent });
  expect(old.body).toMatchObject({ version: 1, categories: PRICES.categories });
  const none = await api.call('GET', `/v1/events/${eventId}/pricing?version=9`, { token: agent });
  expect([none.status, none.body.code]).toEqual([404, 'PRICE_LIST_NOT_FOUND']);
  expect((await auditActions()).filter((a: string) => a === 'PRICE_LIST_SET')).toHaveLength(2);
  // the policy version moved with each change (every instance's next hold reloads the policy)
  const [event] = await db.rows<{ price_list_version: number; policy_version: number }>(
    'SELECT price_list_version, policy_version FROM events WHERE id = $1',
    [eventId],
  );
  expect(event).toEqual({ price_list_version: 2, policy_version: 3 });
});

it("the public prices show each category's range and the types sold without a code; ETag is the version", async () => {
  await setPrices(api, eventId);
  const r = await api.call('GET', `/v1/events/${eventId}/prices`);
  expect(r.status).toBe(200);
  expect(r.body).toEqual({
    eventId,
    priceListVersion: 3,
    currency: 'EUR',
    categories: [
      {
        category: 'premium',
        minPrice: 4500,
        maxPrice: 9000,
        ticketTypes: [
          { key: 'adult', label: 'Adult', price: 9000 },
          { key: 'child', label: 'Child', price: 4500, maxPerHold: 2 },
        ],
      },
      {
        category: 'standard',
        minPrice: 2500,
        maxPrice: 5000,
        ticketTypes: [
          { key: 'adult', label: 'Adult', price: 5000 },
          { key: 'child', label: 'Child', price: 2500 },
        ],
      },
    ],
  });
  const etag = r.headers.get('etag')!;
  const again = await api.call('GET', `/v1/events/${eventId}/prices`, { headers: { 'if-none-match': etag } });
  expect(again.status).toBe(304);
});

describe('promo codes', () => {
  const create = (body: object, token = admin) =>
    api.call('POST', `/v1/events/${eventId}/promo-codes`, { token, body });

  it('are created once per text in any letter case, listed, read and disabled, each change audited', async () => {
    const made = await create({ code: 'summer10', kind: 'percent', value: 10, maxUses: 5 });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ code: 'SUMMER10', kind: 'percent', value: 10, maxUses: 5, uses: 0 });
    const twice = await create({ code: 'Summer10', kind: 'amount', value: 100 });
    expect([twice.status, twice.body.code]).toEqual([409, 'PROMO_CODE_EXISTS']);
    const list = await api.call('GET', `/v1/events/${eventId}/promo-codes`, { token: admin });
    expect(list.body.items.map((p: { code: string }) => p.code)).toEqual(['SUMMER10']);
    const read = await api.call('GET', `/v1/events/${eventId}/promo-codes/Summer10`, { token: admin });
    expect(read.body.promoCodeId).toBe(made.body.promoCodeId);
    const off = await api.call('POST', `/v1/events/${eventId}/promo-codes/SUMMER10/disable`, {
      token: admin,
    });
    expect(off.status).toBe(200);
    expect(off.body.disabledAt).toEqual(expect.any(String));
    const offAgain = await api.call('POST', `/v1/events/${eventId}/promo-codes/SUMMER10/disable`, {
      token: admin,
    });
    expect(offAgain.body.disabledAt).toBe(off.body.disabledAt);
    const actions = await auditActions();
    expect(actions.filter((a: string) => a === 'PROMO_CODE_CREATE')).toHaveLength(1);
    expect(actions.filter((a: string) => a === 'PROMO_CODE_DISABLE')).toHaveLength(1);
  });

  it.each([
    ['a percent of 0', { code: 'ZERO', kind: 'percent', value: 0 }, 'value'],
    ['a percent above 100', { code: 'MORE', kind: 'percent', value: 150 }, 'value'],
    ['an amount of 0', { code: 'NOTHING', kind: 'amount', value: 0 }, 'value'],
    [
      'a window that ends before it starts',
      {
        code: 'BACKWARDS',
        kind: 'amount',
        value: 5,
        validFrom: '2030-01-02T00:00:00Z',
        validUntil: '2030-01-01T00:00:00Z',
      },
      'validUntil',
    ],
    ['a code with a comma', { code: 'A,B', kind: 'amount', value: 5 }, 'code'],
    ['an unknown kind', { code: 'ODD', kind: 'bogof', value: 5 }, 'kind'],
    [
      'a category PostgreSQL cannot store',
      { code: 'LONE', kind: 'amount', value: 5, appliesTo: { categories: ['\udc00'] } },
      'appliesTo.categories',
    ],
  ])('refuse %s (400, nothing written)', async (_what, body, field) => {
    const r = await create(body);
    expect([r.status, r.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(JSON.stringify(r.body.errors)).toContain(field);
    expect(
      await db.count('promo_codes', 'event_id = $1 AND code = $2', [
        eventId,
        (body as { code: string }).code,
      ]),
    ).toBe(0);
  });

  it('are for admins: 403 to agents and customers; an unknown code reads 404', async () => {
    expect((await create({ code: 'AGENT', kind: 'amount', value: 5 }, agent)).status).toBe(403);
    expect((await api.call('GET', `/v1/events/${eventId}/promo-codes`, { token: alice })).status).toBe(403);
    const none = await api.call('GET', `/v1/events/${eventId}/promo-codes/NOPE`, { token: admin });
    expect([none.status, none.body.code]).toEqual([404, 'PROMO_CODE_NOT_FOUND']);
  });
});
