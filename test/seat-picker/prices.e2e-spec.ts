/**
 * The seat picker on a priced show, in Debian's Chromium, against the real seat API: each category's price
 * range beside the map, a seat's prices on hover, a ticket-type choice for each selected seat with the
 * running total, the hold sent with those types and its total as the API priced it, a line's type changed on
 * the hold (re-priced by the API), and the booking at that total. A show without a price list shows none of
 * it. Screenshots go to test-output/seat-picker/.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createPricedShow, setPrices } from '@test/support/pricing-stage';
import { Api, createEvent, startApi } from '@test/support/seat-api';
import { CHROMIUM, launchChromium, NO_CHROMIUM, screenshot } from './browser';

const PAGE_READY_MS = 10_000;
const ANSWERED_WITHIN_MS = 5000;

let api: Api;

beforeAll(async () => {
  api = await startApi({ RATE_LIMIT_ENABLED: 'false' });
});
afterAll(async () => {
  await api?.close();
});

(CHROMIUM ? describe : describe.skip)('prices on the page, in Chromium', () => {
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

  async function openPicker(fragment: string): Promise<Page> {
    // en-US: the amounts read "€90.00"
    const context = await browser.newContext({ viewport: { width: 1100, height: 760 }, locale: 'en-US' });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('request', (r) => {
      if (!r.url().startsWith(api.base) && !r.url().startsWith('data:')) {
        problems.push(`request outside the service: ${r.url()}`);
      }
    });
    await page.goto(`${api.base}/#${fragment}`);
    await page.waitForSelector('.seat[data-seat-id]', { timeout: PAGE_READY_MS });
    return page;
  }
  const seat = (page: Page, seatId: string) => page.locator(`[data-seat-id="${seatId}"]`);
  const text = async (page: Page, selector: string) => (await page.textContent(selector))?.trim();

  it('shows price ranges, a seat price on hover, a type per seat with the running total; holds, re-prices and books at it', async () => {
    const eventId = await createPricedShow(api, 10, 1);
    await setPrices(api, eventId);
    const page = await openPicker(`token=${await api.token('alice')}&event=${eventId}`);

    await page.waitForSelector('#price-ranges:not([hidden]) li', { timeout: PAGE_READY_MS });
    expect(await page.locator('#price-ranges li').allTextContents()).toEqual([
      'premium: €45.00 – €90.00',
      'standard: €25.00 – €50.00',
    ]);
    await seat(page, 'P-A-4').hover();
    await page.waitForSelector('#seat-price:text("P-A-4")');
    expect(await text(page, '#seat-price')).toBe('P-A-4 · premium: Adult €90.00 · Child €45.00');

    await seat(page, 'P-A-4').click();
    await seat(page, 'S-A-2').click();
    expect(await text(page, '#pick-total')).toBe('Total: €140.00');
    await page.selectOption('#pick-lines select[data-seat-id="S-A-2"]', 'child');
    expect(await text(page, '#pick-total')).toBe('Total: €115.00');
    await screenshot(page, 'prices-1-picked');

    await page.click('#hold');
    await page.waitForSelector('#holding:not([hidden])', { timeout: ANSWERED_WITHIN_MS });
    await page.waitForSelector('#hold-total:text("€115.00")', { timeout: ANSWERED_WITHIN_MS });
    expect(await page.locator('#hold-lines li').allTextContents()).toEqual([
      expect.stringMatching(/^P-A-4 .*€90\.00$/),
      expect.stringMatching(/^S-A-2 .*€25\.00$/),
    ]);

    // a line changed on the hold: the API re-prices it, the page shows the API's total
    await page.selectOption('#hold-lines select[data-seat-id="P-A-4"]', 'child');
    await page.waitForSelector('#hold-total:text("€70.00")', { timeout: ANSWERED_WITHIN_MS });
    await screenshot(page, 'prices-2-held');

    await page.fill('#order-id', 'order-priced-page');
    await page.click('#confirm button[type="submit"]');
    await page.waitForSelector('#message:text("Booked P-A-4, S-A-2")', { timeout: ANSWERED_WITHIN_MS });
    const admin = await api.token('admin-1', ['admin']);
    const bookings = await api.call('GET', `/v1/events/${eventId}/bookings?orderId=order-priced-page`, {
      token: admin,
    });
    expect(bookings.body.items[0]).toMatchObject({
      total: 7000,
      lines: [
        { seatId: 'P-A-4', ticketType: 'child', unitPrice: 4500 },
        { seatId: 'S-A-2', ticketType: 'child', unitPrice: 2500 },
      ],
    });
  });

  it('a show without a price list shows no prices, and holds as before', async () => {
    const eventId = await createEvent(api, 1, 6);
    const page = await openPicker(`token=${await api.token('bob')}&event=${eventId}`);
    await page.waitForSelector('#live[data-state="live"]', { timeout: PAGE_READY_MS });
    expect(await page.isHidden('#price-ranges')).toBe(true);
    await seat(page, 'S-A-2').click();
    expect(await page.isHidden('#pick-prices')).toBe(true);
    await page.click('#hold');
    await page.waitForSelector('#holding:not([hidden])', { timeout: ANSWERED_WITHIN_MS });
    expect(await page.isHidden('#hold-prices')).toBe(true);
  });
});

if (!CHROMIUM) {
  console.warn(NO_CHROMIUM);
}
