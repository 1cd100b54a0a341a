/**
 * Debian's Chromium driven by playwright-core, for the seat picker's browser tests. Never a browser that
 * a tool downloads: CHROMIUM_PATH, else /usr/bin/chromium (`apt-get install chromium`); when neither is
 * there the tests skip and say why.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium'].find(
  (path): path is string => !!path && existsSync(path),
);

export const NO_CHROMIUM =
  'seat picker browser tests SKIPPED: no Chromium at CHROMIUM_PATH or /usr/bin/chromium ' +
  '(install it with `apt-get install chromium`, or point CHROMIUM_PATH at a Chromium binary)';

/** Where screenshots go (ignored by git). */
export const OUTPUT_DIR = join(__dirname, '..', '..', 'test-output', 'seat-picker');

export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    // headless, and nothing that reaches out on its own (updates, first-run pages, background fetches)
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const path = join(OUTPUT_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

export type SeatStatus = 'AVAILABLE' | 'HELD' | 'BOOKED';

/**
 * Waits until every seat shows `status` on the page (polls the DOM), failing after `timeoutMs` with the
 * seats' last states: a wait with a deadline, not a measured duration.
 */
export async function seatsShow(page: Page, seatIds: string[], status: SeatStatus, timeoutMs: number) {
  try {
    await page.waitForFunction(
      ([ids, want]) => {
        // runs in the page (this project's types have no DOM; a string to evaluate would break the CSP)
        const doc = (globalThis as unknown as { document: PageDocument }).document;
        return ids.every(
          (id) => doc.querySelector(`[data-seat-id="${id}"]`)?.getAttribute('data-status') === want,
        );
      },
      [seatIds, status] as const,
      { timeout: timeoutMs, polling: 25 },
    );
  } catch (e) {
    const now = await Promise.all(
      seatIds.map(
        async (id) => `${id}=${await page.locator(`[data-seat-id="${id}"]`).getAttribute('data-status')}`,
      ),
    );
    throw new Error(`seats not ${status} within ${timeoutMs} ms (now ${now.join(', ')}): ${String(e)}`);
  }
}

interface PageDocument {
  querySelector(selector: string): { getAttribute(name: string): string | null } | null;
}
