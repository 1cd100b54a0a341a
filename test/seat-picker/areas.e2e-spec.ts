/**
 * The seat picker on a show with a standing area, in Debian's Chromium, against the real seat API: the
 * area is one block with its live free count and a quantity control; the places chosen are held by the
 * same Hold button as seats (one hold, all or none); a second page sees the free count drop through the
 * seat-map stream, and rise again when the hold is released; the hold lists its places. Screenshots go to
 * test-output/seat-picker/. Behind an on-sale queue, places are held with the admission pass, as seats; on
 * a priced show they are priced by their area's category, before the hold and on it.
 */
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { PRICES, setPrices } from '@test/support/pricing-stage';
import { Api, startApi } from '@test/support/seat-api';
import { CHROMIUM, launchChromium, NO_CHROMIUM, screenshot } from './browser';

const PAGE_READY_MS = 10_000;
const SEEN_WITHIN_MS = 1000; // as seats: what one user holds shows on the other's page within a second
const ANSWERED_WITHIN_MS = 5000;

let api: Api;

beforeAll(async () => {
  api = await startApi({ RATE_LIMIT_ENABLED: 'false', QUEUE_STEP_MS: '100' });
});
afterAll(async () => {
  await api?.close();
});

const TURN_WITHIN_MS = 20_000;
const at = (msFromNow: number) => new Date(Date.now() + msFromNow).toISOString();

/** Seats S-A-1..6 and a standing area FLOOR of 20 places. */
async function showWithFloor(): Promise<string> {
  const r = await api.call('POST', '/v1/events', {
    token: await api.token('admin-1', ['admin']),
    body: {
      name: 'Gig',
      startsAt: '2030-01-01T20:00:00Z',
      sections: [
        { name: 'FLOOR', category: 'standing', capacity: 20 },
        { name: 'S', category: 'standard', rows: [{ row: 'A', seats: 6 }] },
      ],
    },
  });
  expect(r.status).toBe(201);
  return r.body.eventId as string;
}

(CHROMIUM ? describe : describe.skip)('a standing area on the page, in Chromium', () => {
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium(CHROMIUM!);
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((c) => c.close()));
    expect(problems.splice(0)).toEqual([]);
  });

  /** The holds each page sent. */
  const holdsOf = new Map<Page, Request[]>();

  async function openPicker(fragment: string, ready = PAGE_READY_MS): Promise<Page> {
    // en-US: the amounts read "€30.00"
    const context = await browser.newContext({ viewport: { width: 1100, height: 760 }, locale: 'en-US' });
    contexts.push(context);
    const page = await context.newPage();
    const holds: Request[] = [];
    holdsOf.set(page, holds);
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('request', (r) => {
      if (!r.url().startsWith(api.base) && !r.url().startsWith('data:')) {
        problems.push(`request outside the service: ${r.url()}`);
      }
      if (r.method() === 'POST' && new URL(r.url()).pathname.endsWith('/holds')) {
        holds.push(r);
      }
    });
    await page.goto(`${api.base}/#${fragment}`);
    await page.waitForSelector('.area[data-area="FLOOR"] input', { state: 'visible', timeout: ready });
    await page.waitForSelector('#live[data-state="live"]', { timeout: PAGE_READY_MS });
    return page;
  }
  const floorFree = (page: Page, free: number, timeout: number) =>
    page.waitForSelector(`.area[data-area="FLOOR"][data-free="${free}"]`, { timeout });
  const text = async (page: Page, selector: string) => (await page.textContent(selector))?.trim();

  it('hold 2 places: the free count drops live on a second page; released, it rises', async () => {
    const eventId = await showWithFloor();
    const alice = await openPicker(`token=${await api.token('alice')}&event=${eventId}`);
    const bob = await openPicker(`token=${await api.token('bob')}&event=${eventId}`);
    await floorFree(bob, 20, PAGE_READY_MS);
    expect(await text(bob, '.area[data-area="FLOOR"] .area-free')).toBe('20 of 20 free · 0 held · 0 booked');

    // places and a seat, chosen on the map, held together by the one Hold button
    await alice.fill('.area[data-area="FLOOR"] input', '2');
    await alice.locator('[data-seat-id="S-A-3"]').click();
    expect(await text(alice, '#selected')).toBe('Selected: S-A-3, FLOOR × 2');
    await alice.click('#hold');
    await alice.waitForSelector('#holding:not([hidden])', { timeout: ANSWERED_WITHIN_MS });
    expect(await text(alice, '#hold-seats')).toBe('S-A-3, FLOOR × 2');
    expect(await text(alice, '.area[data-area="FLOOR"] .area-mine')).toBe('yours: 2');
    const held = await api.call('GET', `/v1/events/${eventId}`, { token: await api.token('alice') });
    expect(held.body.areas[0]).toMatchObject({ name: 'FLOOR', free: 18, held: 2 });

    await floorFree(bob, 18, SEEN_WITHIN_MS);
    expect(await text(bob, '.area[data-area="FLOOR"] .area-free')).toBe('18 of 20 free · 2 held · 0 booked');
    await screenshot(bob, 'areas-1-other-page');

    await alice.click('#release');
    await alice.waitForSelector('#holding', { state: 'hidden', timeout: ANSWERED_WITHIN_MS });
    expect(await text(alice, '#message')).toBe('Released S-A-3, FLOOR × 2.');
    await floorFree(bob, 20, SEEN_WITHIN_MS);
  });

  it('behind an on-sale queue: places are held in the turn, with its admission pass', async () => {
    const eventId = await showWithFloor();
    const set = await api.call('PUT', `/v1/events/${eventId}/queue`, {
      token: await api.token('admin-1', ['admin']),
      body: { opensAt: at(200), salesStartAt: at(1000), admitPerMinute: 6000, maxActiveShoppers: 1 },
    });
    expect(set.status).toBe(200);
    // the map (and its area) shows only once the turn has come
    const page = await openPicker(`token=${await api.token('dora')}&event=${eventId}`, TURN_WITHIN_MS);
    await page.waitForSelector('#queue-turn:not([hidden])', { timeout: PAGE_READY_MS });
    await page.fill('.area[data-area="FLOOR"] input', '3');
    await page.click('#hold');
    await page.waitForSelector('#holding:not([hidden])', { timeout: ANSWERED_WITHIN_MS });
    expect(await text(page, '#hold-seats')).toBe('FLOOR × 3');
    const [sent] = holdsOf.get(page)!;
    expect(sent.postDataJSON()).toEqual({ places: [{ area: 'FLOOR', quantity: 3 }] });
    expect((await sent.allHeaders())['queue-pass']).toEqual(expect.any(String));
    await floorFree(page, 17, SEEN_WITHIN_MS);
  });

  it("on a priced show: the area's price, the places in the total, priced lines on the hold, booked at it", async () => {
    const eventId = await showWithFloor();
    const standing = {
      key: 'standing',
      ticketTypes: [
        { key: 'adult', label: 'Adult', price: 3000 },
        { key: 'child', label: 'Child', price: 1500 },
      ],
    };
    // the show's categories: standard seats (adult €50.00, child €25.00) and the standing area
    const seated = PRICES.categories.filter((c) => c.key === 'standard');
    await setPrices(api, eventId, { ...PRICES, categories: [...seated, standing] });
    const page = await openPicker(`token=${await api.token('pia')}&event=${eventId}`);
    await page.waitForSelector('#price-ranges:not([hidden]) li', { timeout: PAGE_READY_MS });
    expect(await page.locator('#price-ranges li').allTextContents()).toContain('standing: €15.00 – €30.00');
    await page.locator('.area[data-area="FLOOR"] h2').hover();
    await page.waitForSelector('#seat-price:text("FLOOR")');
    expect(await text(page, '#seat-price')).toBe('FLOOR · standing: Adult €30.00 · Child €15.00');

    await page.locator('[data-seat-id="S-A-2"]').click();
    await page.fill('.area[data-area="FLOOR"] input', '2');
    // the seat at its default type (adult €50.00), the places at their category's default (adult €30.00)
    expect(await text(page, '#pick-total')).toBe('Total: €110.00');
    await page.click('#hold');
    await page.waitForSelector('#hold-total:text("€110.00")', { timeout: ANSWERED_WITHIN_MS });
    expect(await page.locator('#hold-lines li').allTextContents()).toEqual([
      expect.stringMatching(/^S-A-2 .*€50\.00$/),
      expect.stringMatching(/^FLOOR\.1 .*€30\.00$/),
      expect.stringMatching(/^FLOOR\.2 .*€30\.00$/),
    ]);
    // a place's line takes another type on the hold: the API re-prices it
    await page.selectOption('#hold-lines select[data-seat-id="FLOOR.1"]', 'child');
    await page.waitForSelector('#hold-total:text("€95.00")', { timeout: ANSWERED_WITHIN_MS });
    await screenshot(page, 'areas-2-priced-hold');

    await page.fill('#order-id', 'order-floor-page');
    await page.click('#confirm button[type="submit"]');
    await page.waitForSelector('#message:text("Booked S-A-2, FLOOR × 2")', { timeout: ANSWERED_WITHIN_MS });
    const booked = await api.call('GET', `/v1/events/${eventId}/bookings?orderId=order-floor-page`, {
      token: await api.token('admin-1', ['admin']),
    });
    expect(booked.body.items[0]).toMatchObject({ total: 9500, places: [{ area: 'FLOOR', quantity: 2 }] });
  });

  it('too many places: the refusal says what is left, and nothing is held', async () => {
    const eventId = await showWithFloor();
    const token = await api.token('carl');
    for (const who of ['a', 'b']) {
      const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
        token: await api.token(`filler-${who}`),
        body: { places: [{ area: 'FLOOR', quantity: 9 }] },
      });
      expect(r.status).toBe(201);
    }
    const page = await openPicker(`token=${token}&event=${eventId}`);
    await floorFree(page, 2, PAGE_READY_MS);
    // the control offers no more than is free, but the page may be behind: send 2, another takes 1 first
    await page.fill('.area[data-area="FLOOR"] input', '2');
    const r = await api.call('POST', `/v1/events/${eventId}/holds`, {
      token: await api.token('filler-c'),
      body: { places: [{ area: 'FLOOR', quantity: 1 }] },
    });
    expect(r.status).toBe(201);
    await page.click('#hold');
    await page.waitForSelector('#message[data-kind="error"]', { timeout: ANSWERED_WITHIN_MS });
    expect(await text(page, '#message')).toContain('FLOOR: 1 left');
    expect(await page.isHidden('#holding')).toBe(true);
    await floorFree(page, 1, SEEN_WITHIN_MS);
  });
});

if (!CHROMIUM) {
  console.warn(NO_CHROMIUM);
}
