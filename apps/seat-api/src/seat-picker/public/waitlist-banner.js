// @ts-check
import { button, byId, formatSeconds, say } from './page.js';

/** @typedef {import('./hold-panel.js').Hold} Hold */
/**
 * @typedef {{ entryId: string, status: 'WAITING' | 'OFFERED' | 'ACCEPTED' | 'LAPSED' | 'LEFT',
 *   position?: number, holdId?: string, offerExpiresAt?: string }} Entry
 */

/** What the user is told when their entry closes, by its last status. */
const CLOSED = {
  ACCEPTED: 'You booked the seats offered from the waiting list.',
  LAPSED: 'The seats offered to you were not booked in time; they went to the next in line.',
  LEFT: 'You left the waiting list.',
};

/** How often the page asks how the entry stands (an offer is made within about this long of a free seat). */
export const WAITLIST_POLL_MS = 2000;

/**
 * The waiting list on the page: join it (how many seats), see your place in line, and the banner when
 * seats are offered: which seats and how long is left to book them. The offer is a hold of yours, so it
 * goes into the hold panel: Confirm books it as any hold. The entry id is kept in localStorage, so the
 * banner comes back after a reload or in another tab.
 * @param {object} options
 * @param {import('./api-client.js').Api} options.api
 * @param {string} options.eventPath `/v1/events/<eventId>`
 * @param {string} options.key localStorage key of this user's entry on this event
 * @param {import('./hold-panel.js').HoldPanel} options.panel
 * @param {(err: unknown) => string} options.explain
 */
export function waitlistBanner({ api, eventPath, key, panel, explain }) {
  /** @type {string | null} */
  let entryId = localStorage.getItem(key);
  /** @type {Entry | null} */
  let entry = null;
  /** @type {string[]} */
  let offered = [];

  const render = () => {
    byId('waitlist-join').hidden = !panel.canHold || entryId !== null;
    const banner = byId('waitlist-banner');
    banner.hidden = entry === null;
    if (!entry) {
      return;
    }
    banner.dataset.status = entry.status;
    const left = entry.offerExpiresAt ? (Date.parse(entry.offerExpiresAt) - Date.now()) / 1000 : 0;
    byId('waitlist-text').textContent =
      entry.status === 'OFFERED'
        ? `Seats offered to you: ${offered.join(', ')}. ${formatSeconds(left)} left to book them.`
        : `You are on the waiting list: number ${entry.position ?? '?'} in line.`;
  };

  /** @param {string} [text] */
  const forget = (text) => {
    entryId = null;
    entry = null;
    offered = [];
    localStorage.removeItem(key);
    if (text) {
      say(text);
    }
    render();
  };

  const refresh = async () => {
    if (!entryId) {
      render();
      return;
    }
    try {
      /** @type {Entry} */
      const read = await api('GET', `/v1/waitlist/${encodeURIComponent(entryId)}`);
      entry = read;
    } catch {
      forget(); // gone, or not this user's: nothing to show
      return;
    }
    if (entry.status in CLOSED) {
      forget(CLOSED[/** @type {keyof typeof CLOSED} */ (entry.status)]);
      return;
    }
    if (entry.status === 'OFFERED' && entry.holdId && offered.length === 0) {
      /** @type {Hold} */
      const hold = await api('GET', `/v1/holds/${encodeURIComponent(entry.holdId)}`);
      offered = hold.seatIds;
      if (hold.status === 'ACTIVE' && !panel.hold) {
        panel.startHold(hold); // Confirm in the panel books the offer
      }
    }
    render();
  };

  /** @param {number} quantity */
  const join = async (quantity) => {
    try {
      /** @type {{ entryId: string, position: number }} */
      const joined = await api('POST', `${eventPath}/waitlist`, { quantity });
      entryId = joined.entryId;
      localStorage.setItem(key, entryId);
      say(`You are on the waiting list: number ${joined.position} in line.`);
      await refresh();
    } catch (err) {
      say(explain(err), 'error');
    }
  };

  const leave = async () => {
    if (!entryId) {
      return;
    }
    try {
      await api('DELETE', `/v1/waitlist/${encodeURIComponent(entryId)}`);
    } catch (err) {
      say(explain(err), 'error');
      return;
    }
    if (panel.hold && panel.hold.holdId === entry?.holdId) {
      panel.endHold('You declined the seats offered; they go to the next in line.');
    }
    forget(CLOSED.LEFT);
  };

  const start = () => {
    byId('waitlist-join').addEventListener('submit', (e) => {
      e.preventDefault();
      void join(Number(/** @type {HTMLInputElement} */ (byId('waitlist-quantity')).value));
    });
    button('waitlist-leave').addEventListener('click', () => void leave());
    setInterval(() => void refresh().catch(() => undefined), WAITLIST_POLL_MS);
    // the countdown moves every second while an offer is open
    setInterval(() => entry?.status === 'OFFERED' && render(), 1000);
    void refresh().catch(() => undefined);
  };

  return { start };
}
