/**
 * The seat picker's waiting list in a real browser (Debian's Chromium), with apps/waitlist in a child
 * process: on a sold-out show the user joins for two seats and sees their place in line; once the seats
 * are freed the banner names the seats offered with a countdown, the offer is the hold in the panel, and
 * Confirm books it; when the booking is read the banner goes. A screenshot of the banner goes to
 * test-output/seat-picker/.
 */
import { holdConfirmedEvent } from '@app/contracts';
import type { Browser, Page } from 'playwright-core';
import { CHROMIUM, launchChromium, NO_CHROMIUM, screenshot } from '../seat-picker/browser';
import { WaitlistHarness } from './harness';

jest.setTimeout(180_000);

let h: WaitlistHarness;
let browser: Browser;
const problems: string[] = [];

beforeAll(async () => {
  h = await WaitlistHarness.start();
  if (CHROMIUM) {
    await h.consumer();
    browser = await launchChromium(CHROMIUM);
  }
});
afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function openPicker(fragment: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 700 } });
  const page = await context.newPage();
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.goto(`${h.api.base}/#${fragment}`);
  await page.waitForSelector('.seat[data-seat-id]', { timeout: 10_000 });
  return page;
}

(CHROMIUM ? it : it.skip)(
  'joins on a sold-out show, shows the offer with its seats and countdown, books it',
  async () => {
    const show = await h.soldOut(2);
    const page = await openPicker(`token=${await h.api.token('wl-page')}&event=${show.eventId}`);

    await page.fill('#waitlist-quantity', '2');
    await page.click('#waitlist-join button[type="submit"]');
    await page.waitForSelector('#waitlist-banner[data-status="WAITING"]:not([hidden])', { timeout: 10_000 });
    expect(await page.textContent('#waitlist-text')).toBe('You are on the waiting list: number 1 in line.');
    expect(await page.isHidden('#waitlist-join')).toBe(true);

    await h.release('buyer', show);
    await page.waitForSelector('#waitlist-banner[data-status="OFFERED"]', { timeout: 30_000 });
    expect(await page.textContent('#waitlist-text')).toMatch(
      /^Seats offered to you: S-A-1, S-A-2\. \d+:\d\d left to book them\.$/,
    );
    // the offer is this user's hold: the panel shows it, with its own countdown
    await page.waitForSelector('#holding:not([hidden])', { timeout: 5000 });
    expect(await page.textContent('#hold-seats')).toBe('S-A-1, S-A-2');
    await screenshot(page, 'waitlist-offer');

    await page.click('#confirm button[type="submit"]');
    await page.waitForSelector('#holding[hidden]', { state: 'attached', timeout: 10_000 });
    expect(await page.textContent('#message')).toMatch(/^Booked S-A-1, S-A-2 for order /);
    const [entry] = await h.entries(show.eventId);
    await h.publish(
      holdConfirmedEvent(
        {
          eventId: show.eventId,
          holdId: entry.hold_id!,
          userId: 'wl-page',
          seatIds: show.seatIds,
          orderId: 'o',
        },
        new Date(),
      ),
    );
    await page.waitForSelector('#waitlist-banner[hidden]', { state: 'attached', timeout: 30_000 });
    expect(await page.textContent('#message')).toBe('You booked the seats offered from the waiting list.');
    expect(problems).toEqual([]);
  },
);

if (!CHROMIUM) {
  it.todo(NO_CHROMIUM);
}
