/**
 * The seat picker page in front of an event's on-sale queue, in Debian's Chromium, against the real seat
 * API: a page that opens a queued event shows the queue screen (the place, the wait) instead of the seat
 * map, moves on to the map by itself in the user's turn and holds with the admission pass (seats or best
 * available); a second user waits, the place shown, until the first one's hold ends that turn, then moves
 * on the same way; a reload keeps the place; a page that opened before the queue did is taken into it by
 * its hold's 409 QUEUE_REQUIRED. Screenshots go to test-output/seat-picker/.
 */
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { eventually } from '@test/support/eventually';
import { Api, createEvent, startApi } from '@test/support/seat-api';
import { CHROMIUM, launchChromium, NO_CHROMIUM, screenshot, seatsShow } from './browser';

const PAGE_READY_MS = 10_000;
const SEEN_WITHIN_MS = 1000; // a seat change reaches the live map within a second
/** Deadline for a turn to come, the wait for the sales start included: the queue steps every 100 ms here (QUEUE_STEP_MS). */
const TURN_WITHIN_MS = 20_000;
/** The screen's texts, as the page writes them (queue-screen.js). */
const TURN_LEFT = /^Your turn: \d+:\d\d left to hold seats\.$/;

let api: Api;
let admin: string;

beforeAll(async () => {
  api = await startApi({ QUEUE_STEP_MS: '100' });
  admin = await api.token('admin-1', ['admin']);
});
afterAll(async () => {
  await api?.close();
});

const at = (msFromNow: number) => new Date(Date.now() + msFromNow).toISOString();

/** The claims of a JWT, read without checking it (the seat API checked it when it took the hold). */
const claimsOf = (jwt: string) =>
  JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()) as { aud: string; sub: string };

(CHROMIUM ? describe : describe.skip)('the page in front of an on-sale queue, in Chromium', () => {
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

  /** A user's page (its own browser profile) at `/#<fragment>`, with the holds and joins it sends. */
  async function openPicker(fragment: string): Promise<{ page: Page; holds: Request[]; joins: Request[] }> {
    const context = await browser.newContext({ viewport: { width: 1100, height: 640 } });
    contexts.push(context);
    const page = await context.newPage();
    const holds: Request[] = [];
    const joins: Request[] = [];
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('request', (r) => {
      if (!r.url().startsWith(api.base) && !r.url().startsWith('data:')) {
        problems.push(`request outside the service: ${r.url()}`);
      }
      const path = new URL(r.url()).pathname;
      if (r.method() === 'POST' && path.endsWith('/holds')) {
        holds.push(r);
      }
      if (r.method() === 'POST' && path.endsWith('/queue/entries')) {
        joins.push(r);
      }
    });
    await page.goto(`${api.base}/#${fragment}`);
    return { page, holds, joins };
  }

  /** The page shows the queue screen with the entry in `status`, and nothing of the map. */
  async function queueShows(page: Page, status: string, timeout = PAGE_READY_MS) {
    await page.waitForSelector(`#queue[data-status="${status}"]:not([hidden])`, { timeout });
    expect(await page.getAttribute('#map', 'hidden')).not.toBeNull();
    for (const part of ['#legend', '#counts', '#pick']) {
      expect([part, await page.isHidden(part)]).toEqual([part, true]);
    }
  }

  /** The page moved on to the live seat map in the user's turn, with the time left to hold seats. */
  async function inTurn(page: Page) {
    await page.waitForSelector('#queue-turn:not([hidden])', { timeout: TURN_WITHIN_MS });
    await page.waitForSelector('#live[data-state="live"]', { timeout: PAGE_READY_MS });
    await page.waitForSelector('.seat[data-seat-id]', { timeout: PAGE_READY_MS }); // visible
    expect(await page.isHidden('#queue')).toBe(true);
    expect(await page.textContent('#queue-turn')).toMatch(TURN_LEFT);
  }

  it('shows the queue instead of the map, moves on to the map in the turn and holds with the pass; the next user waits, then moves on too', async () => {
    const eventId = await createEvent(api, 2, 8);
    const set = await api.call('PUT', `/v1/events/${eventId}/queue`, {
      token: admin,
      // one shopper at a time, at a pace that admits at once whenever there is room; the start leaves a
      // slow machine time to show Ann's page before it
      body: { opensAt: at(1000), salesStartAt: at(10_000), admitPerMinute: 6000, maxActiveShoppers: 1 },
    });
    expect(set.status).toBe(200);

    // Ann, before the sales start: in line, her place to be drawn at the start; no map meanwhile
    const ann = await openPicker(`token=${await api.token('ann')}&event=${eventId}`);
    await queueShows(ann.page, 'PREQUEUE');
    expect(await ann.page.textContent('#queue-place')).toMatch(
      /^Your place in line will be drawn when sales start, at .+\.$/,
    );
    expect(await ann.page.getAttribute('#queue-place >> xpath=..', 'aria-live')).toBe('polite');
    await screenshot(ann.page, 'queue-1-ann-before-the-start');

    // the start: her turn comes, and the page moves on to the seat map by itself
    await inTurn(ann.page);
    expect(await ann.page.textContent('#message')).toMatch(/^Your turn has come/);
    await ann.page.locator('[data-seat-id="S-A-3"]').click();
    await ann.page.click('#hold');
    await ann.page.waitForSelector('#holding:not([hidden])', { timeout: PAGE_READY_MS });
    expect(await ann.page.textContent('#hold-seats')).toBe('S-A-3');
    await seatsShow(ann.page, ['S-A-3'], 'HELD', SEEN_WITHIN_MS); // the map's stream is live again
    // the hold carried her pass (the service takes no hold without it while the queue is open)
    const annPass = (await ann.holds[0].allHeaders())['queue-pass'];
    expect(claimsOf(annPass)).toMatchObject({ aud: eventId, sub: 'ann' });
    await screenshot(ann.page, 'queue-2-ann-in-her-turn');

    // Bob comes while Ann is shopping: he waits, his place shown, and a reload keeps it (no second join)
    const bob = await openPicker(`token=${await api.token('bob')}&event=${eventId}`);
    await queueShows(bob.page, 'WAITING');
    expect(await bob.page.textContent('#queue-place')).toBe('You are next in line.');
    expect(await bob.page.textContent('#queue-wait')).toBe(
      'Your turn comes as soon as a customer choosing seats now is done.',
    );
    await bob.page.reload();
    await queueShows(bob.page, 'WAITING');
    expect(await bob.page.textContent('#queue-place')).toBe('You are next in line.');
    expect(bob.joins).toHaveLength(1);
    await screenshot(bob.page, 'queue-3-bob-waits');

    // Ann lets her seat go: that ends her turn, and Bob's comes
    await ann.page.click('#release');
    await queueShows(ann.page, 'DONE');
    expect(await ann.page.textContent('#queue-title')).toBe('Your turn is over');
    expect(await ann.page.isHidden('#queue-join')).toBe(true);
    await screenshot(ann.page, 'queue-4-ann-turn-over');

    await inTurn(bob.page);
    await seatsShow(bob.page, ['S-A-3'], 'AVAILABLE', PAGE_READY_MS);
    await bob.page.fill('#best-quantity', '2');
    await bob.page.click('#hold-best');
    await bob.page.waitForSelector('#holding:not([hidden])', { timeout: PAGE_READY_MS });
    const bobSeats = (await bob.page.textContent('#hold-seats'))!.split(', ');
    expect(bobSeats).toHaveLength(2);
    await seatsShow(bob.page, bobSeats, 'HELD', SEEN_WITHIN_MS);
    const bobPass = (await bob.holds[0].allHeaders())['queue-pass'];
    expect(claimsOf(bobPass)).toMatchObject({ aud: eventId, sub: 'bob' });
    expect(bobPass).not.toBe(annPass);
    await screenshot(bob.page, 'queue-5-bob-in-his-turn');
  });

  it('a page that opened before the event had a queue: its hold is refused 409 QUEUE_REQUIRED and it takes the user into the queue', async () => {
    const eventId = await createEvent(api, 2, 8);
    const carol = await openPicker(`token=${await api.token('carol')}&event=${eventId}`);
    await carol.page.waitForSelector('#live[data-state="live"]', { timeout: PAGE_READY_MS });
    expect(await carol.page.isHidden('#queue')).toBe(true);

    const set = await api.call('PUT', `/v1/events/${eventId}/queue`, {
      token: admin,
      body: { opensAt: at(1000), salesStartAt: at(60_000), admitPerMinute: 60, maxActiveShoppers: 1 },
    });
    expect(set.status).toBe(200);
    await eventually(
      async () => (await api.call('GET', `/v1/events/${eventId}/queue`)).body.phase === 'PREQUEUE',
      PAGE_READY_MS,
      'the queue open',
    );

    await carol.page.locator('[data-seat-id="S-A-1"]').click();
    await carol.page.click('#hold');
    await queueShows(carol.page, 'PREQUEUE');
    expect(await carol.page.textContent('#message')).toBe(
      'Sales of this event go through its queue: you are taking your place in it.',
    );
    expect((await carol.holds[0].allHeaders())['queue-pass']).toBeUndefined();
    expect(carol.joins).toHaveLength(1);
    await screenshot(carol.page, 'queue-6-carol-sent-to-the-queue');
  });
});

if (!CHROMIUM) {
  console.warn(NO_CHROMIUM);
}
