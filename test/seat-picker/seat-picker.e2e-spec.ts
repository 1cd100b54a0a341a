/**
 * The seat picker page (served at / by the seat API) in a real browser: Debian's Chromium, two pages as
 * two users. What one user holds turns grey on the other's page within a second, through the seat-map
 * stream, and cannot be taken there; released seats come back; extend, confirm and the 409 message work.
 * Screenshots of both pages go to test-output/seat-picker/.
 */
import { readdirSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { DEMO_EVENT_ID } from '../../apps/seat-api/src/catalogue/demo-seed.service';
import { SEAT_PICKER_DIR } from '../../apps/seat-api/src/seat-picker/seat-picker.module';
import { Api, createEvent, startApi } from '@test/support/seat-api';
import { CHROMIUM, launchChromium, NO_CHROMIUM, screenshot, seatsShow } from './browser';

const SEEN_WITHIN_MS = 1000; // "seats other people hold turn grey within a second"
const PAGE_READY_MS = 10_000;

let api: Api;
let seedLog: string[] = [];

beforeAll(async () => {
  // what the demo seed logs at boot (through whichever logger backs Nest's Logger)
  const log = jest.spyOn(Logger.prototype, 'log');
  try {
    api = await startApi({ SEED_DEMO_EVENT: 'true' });
  } finally {
    seedLog = log.mock.calls.map((args) => String(args[0]));
    log.mockRestore();
  }
});
afterAll(async () => {
  await api?.close();
});

describe('the page over HTTP', () => {
  it('serves the page at / (HTML, CSS, ES modules), same-origin only, and leaves other paths to the API', async () => {
    const page = await fetch(`${api.base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    expect(html).toContain('<script type="module" src="seat-picker.js">');
    // no http(s) address anywhere in the page's files: nothing is fetched from outside at run time
    for (const file of ['/', ...readdirSync(SEAT_PICKER_DIR).map((name) => `/${name}`)]) {
      const res = await fetch(`${api.base}${file}`);
      expect(res.status).toBe(200);
      expect(await res.text()).not.toMatch(/https?:\/\//);
    }
    expect((await fetch(`${api.base}/seat-picker.js`)).headers.get('content-type')).toMatch(/javascript/);
    // the page's default event is the seeded demo event
    expect(await (await fetch(`${api.base}/seat-picker.js`)).text()).toContain(`'${DEMO_EVENT_ID}'`);
    // only the page's files: an unknown path is still the API's 404 envelope
    const missing = await api.call('GET', '/nope.html');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ statusCode: 404, code: expect.any(String) });
  });

  it('the demo seed prints the page link with a user token and the demo event', () => {
    const links = seedLog
      .flatMap((message) => message.split('\n'))
      .map((line) => line.trim())
      .filter((line) => line.includes('/#token='));
    expect(links).toHaveLength(1);
    expect(links[0]).toMatch(
      new RegExp(`^http://[^/\\s]+:\\d+/#token=eyJ[\\w-]+\\.[\\w-]+\\.[\\w-]+&event=${DEMO_EVENT_ID}$`),
    );
  });
});

(CHROMIUM ? describe : describe.skip)('the page in Chromium', () => {
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const problems: string[] = []; // script errors, and any request that leaves the service's origin

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

  /** A page as a separate browser profile (its own storage), opened at `/#<fragment>` and live. */
  async function openPicker(fragment: string, opts: { stream?: boolean } = {}): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1100, height: 640 } });
    contexts.push(context);
    const page = await context.newPage();
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('request', (r) => {
      if (!r.url().startsWith(api.base) && !r.url().startsWith('data:')) {
        problems.push(`request outside the service: ${r.url()}`);
      }
    });
    if (opts.stream === false) {
      // a page that misses the stream: only a refusal from the API can tell it a seat is gone
      await page.route('**/seats/stream', (route) => route.abort());
    }
    await page.goto(`${api.base}/#${fragment}`);
    await page.waitForSelector('.seat[data-seat-id]', { timeout: PAGE_READY_MS });
    if (opts.stream !== false) {
      await page.waitForSelector('#live[data-state="live"]', { timeout: PAGE_READY_MS });
    }
    return page;
  }

  const seat = (page: Page, seatId: string) => page.locator(`[data-seat-id="${seatId}"]`);

  async function holdOnPage(page: Page, seatIds: string[]) {
    for (const seatId of seatIds) {
      await seat(page, seatId).click();
    }
    await page.click('#hold');
    await page.waitForSelector('#holding:not([hidden])', { timeout: 5000 });
    expect(await page.textContent('#hold-seats')).toBe(seatIds.join(', '));
  }

  it('opens the demo event from the printed link (no event in the link: the demo event)', async () => {
    const token = /#token=([^&\s]+)/.exec(seedLog.join('\n'))![1];
    const page = await openPicker(`token=${token}`);
    expect(await page.locator('.seat[data-seat-id]').count()).toBe(200);
    expect(await page.locator('.row').count()).toBe(10);
    expect(await page.textContent('#who')).toContain('demo-user');
    expect(await page.textContent('#counts')).toContain('200 of 200 free');
    expect(await seat(page, 'HALL-A-1').isEnabled()).toBe(true);
    await screenshot(page, '0-demo-event');

    // without a token the map is still shown, read-only
    const anonymous = await openPicker(`event=${DEMO_EVENT_ID}`);
    expect(await seat(anonymous, 'HALL-A-1').isDisabled()).toBe(true);
    expect(await anonymous.textContent('#selected')).toContain('Read-only');
  });

  it('two users: what one holds turns grey for the other within 1 s and cannot be taken; released, it can', async () => {
    const eventId = await createEvent(api, 4, 12);
    const alice = await openPicker(`token=${await api.token('alice')}&event=${eventId}`);
    const bob = await openPicker(`token=${await api.token('bob')}&event=${eventId}`);
    const pair = ['S-B-5', 'S-B-6'];

    await holdOnPage(alice, pair);
    await seatsShow(bob, pair, 'HELD', SEEN_WITHIN_MS);
    expect(await alice.textContent('#countdown')).toMatch(/^\d+:\d\d$/);
    expect(await seat(alice, 'S-B-5').getAttribute('data-mine')).toBe('true');
    expect(await seat(bob, 'S-B-5').getAttribute('data-mine')).toBe('false');
    // Bob cannot take them: the seats are disabled, a click selects nothing, Hold stays off
    for (const seatId of pair) {
      expect(await seat(bob, seatId).isDisabled()).toBe(true);
      await seat(bob, seatId).click({ force: true });
      expect(await seat(bob, seatId).getAttribute('aria-pressed')).toBe('false');
    }
    expect(await bob.isDisabled('#hold')).toBe(true);
    await screenshot(alice, '1-alice-holds-two');
    await screenshot(bob, '1-bob-sees-them-held');

    await alice.click('#release');
    await alice.waitForSelector('#pick:not([hidden])');
    await seatsShow(bob, pair, 'AVAILABLE', SEEN_WITHIN_MS);
    await holdOnPage(bob, ['S-B-5']);
    await seatsShow(alice, ['S-B-5'], 'HELD', SEEN_WITHIN_MS);
    await seatsShow(alice, ['S-B-6'], 'AVAILABLE', SEEN_WITHIN_MS);
    await screenshot(alice, '2-alice-after-release');
    await screenshot(bob, '2-bob-holds-one');

    const map = await api.call('GET', `/v1/events/${eventId}/seats`, { token: await api.token('carol') });
    const status = (id: string) => map.body.seats.find((s: { seatId: string }) => s.seatId === id).status;
    expect([status('S-B-5'), status('S-B-6')]).toEqual(['HELD', 'AVAILABLE']);
  });

  it('extends and confirms with an order id; the other page sees the seats booked', async () => {
    const eventId = await createEvent(api, 2, 8);
    const alice = await openPicker(`token=${await api.token('alice')}&event=${eventId}`);
    const bob = await openPicker(`token=${await api.token('bob')}&event=${eventId}`);

    await holdOnPage(alice, ['S-A-3', 'S-A-4']);
    await alice.click('#extend');
    await alice.waitForSelector('#message:text("Extended")');
    await alice.fill('#order-id', 'order-e2e-1');
    await alice.click('#confirm button[type="submit"]');
    await alice.waitForSelector('#message:text("Booked S-A-3, S-A-4 for order order-e2e-1")');
    expect(await alice.isHidden('#holding')).toBe(true);
    expect(await seat(alice, 'S-A-3').getAttribute('data-mine')).toBe('true');
    await seatsShow(bob, ['S-A-3', 'S-A-4'], 'BOOKED', SEEN_WITHIN_MS);
    await seatsShow(alice, ['S-A-3', 'S-A-4'], 'BOOKED', SEEN_WITHIN_MS);
    await screenshot(alice, '3-alice-booked');
  });

  it('a seat taken by someone else leaves the selection; one taken unseen answers with the 409 message', async () => {
    const eventId = await createEvent(api, 2, 8);
    const bobToken = await api.token('bob');
    const takeAsBob = async (seatId: string) =>
      expect(
        (
          await api.call('POST', `/v1/events/${eventId}/holds`, {
            token: bobToken,
            body: { seatIds: [seatId] },
          })
        ).status,
      ).toBe(201);

    const alice = await openPicker(`token=${await api.token('alice')}&event=${eventId}`);
    await seat(alice, 'S-A-1').click();
    await takeAsBob('S-A-1');
    await seatsShow(alice, ['S-A-1'], 'HELD', SEEN_WITHIN_MS);
    expect(await seat(alice, 'S-A-1').getAttribute('aria-pressed')).toBe('false');
    expect(await alice.textContent('#message')).toContain('Just taken by someone else: S-A-1');

    // this page never hears the stream, so it still shows S-A-2 free when Bob takes it
    const blind = await openPicker(`token=${await api.token('dave')}&event=${eventId}`, { stream: false });
    await seat(blind, 'S-A-2').click();
    await takeAsBob('S-A-2');
    await blind.click('#hold');
    await blind.waitForSelector('#message[data-kind="error"]:text("Not available any more: S-A-2 (held)")');
    expect(await seat(blind, 'S-A-2').getAttribute('data-status')).toBe('HELD');
    expect(await blind.textContent('#counts')).toBe('14 of 16 free · 2 held · 0 booked');
    expect(await blind.isHidden('#holding')).toBe(true);
    await screenshot(blind, '4-dave-refused-409');
  });

  it('best available: the service picks N seats side by side and the other page sees them held; too many together is explained', async () => {
    const eventId = await createEvent(api, 2, 6);
    const alice = await openPicker(`token=${await api.token('alice')}&event=${eventId}`);
    const bob = await openPicker(`token=${await api.token('bob')}&event=${eventId}`);

    await alice.fill('#best-quantity', '3');
    await alice.click('#hold-best');
    await alice.waitForSelector('#holding:not([hidden])', { timeout: 5000 });
    const held = (await alice.textContent('#hold-seats'))!.split(', ');
    expect(held).toHaveLength(3);
    expect(new Set(held.map((s) => s.replace(/-\d+$/, ''))).size).toBe(1); // one row
    expect(await alice.textContent('#message')).toContain(`Best available: held ${held.join(', ')}`);
    await seatsShow(bob, held, 'HELD', SEEN_WITHIN_MS);
    await screenshot(alice, '5-alice-best-available');

    // 7 side by side: no row of 6 has them, though 9 seats are free
    await bob.fill('#best-quantity', '7');
    await bob.click('#hold-best');
    await bob.waitForSelector(
      '#message[data-kind="error"]:text("Not that many seats side by side in one row. Pick seats apart on the map.")',
    );
    expect(await bob.isHidden('#holding')).toBe(true);
    await screenshot(bob, '5-bob-not-enough-together');
  });
});

if (!CHROMIUM) {
  console.warn(NO_CHROMIUM);
}
