// @ts-check
import { apiClient, explain } from './api-client.js';
import { holdActions } from './hold-actions.js';
import { HoldPanel } from './hold-panel.js';
import { button, byId, newOrderId, userName } from './page.js';
import { pricePanel } from './prices.js';
import { queueScreen } from './queue-screen.js';
import { waitlistBanner } from './waitlist-banner.js';

/**
 * The seat picker: shows an event's live seat map (seat-map.js), and holds, extends, releases and
 * confirms seats through the public API, as any client would. Plain ES modules served as-is (no build
 * step, no third-party code); type checked with JSDoc by `npm run typecheck` (tsconfig.page.json).
 * This module reads who and what from the URL and wires the page; the rest is in:
 *   api-client.js   calls to the API, refusals, and what to tell the user about them
 *   hold-panel.js   the selection (seats, and places of general-admission areas), the hold and its
 *                   countdown, how seats and areas look to this user
 *   hold-actions.js hold (the seats picked, or the best available N), extend, release, confirm, and
 *                   the hold brought back after a reload
 *   page.js         element lookups, the status line, formats
 *   prices.js       a priced show's price ranges, the price of a seat on hover, ticket types, the total
 *   queue-screen.js the event's on-sale queue: your place and wait instead of the map until your turn,
 *                   then the map, with the admission pass on every hold
 *   seat-map.js     the map (seats, and each area as one block with its free places), kept live by the
 *                   seat-map stream
 *   waitlist-banner.js the waiting list: join, your place, the banner with the seats offered
 *
 * Identity comes from the URL fragment, `#token=<jwt>&event=<eventId>`: a fragment never leaves the
 * browser, so the token stays out of access logs and Referer headers. Without `event` the page shows the
 * demo event; without `token` it is read-only.
 */

/** Seeded by SEED_DEMO_EVENT=true (DEMO_EVENT_ID in catalogue/demo-seed.service.ts; a test keeps them equal). */
const DEMO_EVENT_ID = '00000000-0000-4000-8000-00000000d3e0';

const fragment = new URLSearchParams(location.hash.slice(1));
const token = fragment.get('token') ?? '';
const eventId = fragment.get('event') || DEMO_EVENT_ID;
const eventPath = `/v1/events/${encodeURIComponent(eventId)}`;
const api = apiClient(token);

const panel = new HoldPanel({
  canHold: token !== '',
  eventPath,
  holdKey: `seat-picker:${eventId}:${token.slice(-16)}`, // this user's hold survives a reload
  api,
  explain: (err) => explain(err, eventId === DEMO_EVENT_ID),
});
const queue = queueScreen({
  api,
  eventPath,
  key: `seat-picker:queue:${eventId}:${token.slice(-16)}`, // this user's place survives a reload
  panel,
  explain: (err) => explain(err, eventId === DEMO_EVENT_ID),
});
const prices = pricePanel({
  api,
  eventPath,
  panel,
  explain: (err) => explain(err, eventId === DEMO_EVENT_ID),
});
panel.onRender = () => prices.render();
const actions = holdActions(panel, api, eventPath, queue, prices);
const waitlist = waitlistBanner({
  api,
  eventPath,
  key: `seat-picker:waitlist:${eventId}:${token.slice(-16)}`,
  panel,
  explain: (err) => explain(err, eventId === DEMO_EVENT_ID),
});

function start() {
  byId('who').textContent = token
    ? `as ${userName(token)} · event ${eventId}`
    : `read-only · event ${eventId}`;
  button('hold').addEventListener('click', () => void actions.holdSeats());
  button('clear').addEventListener('click', () => panel.clearSelection());
  byId('best').addEventListener('submit', (e) => {
    e.preventDefault();
    const quantity = Number(/** @type {HTMLInputElement} */ (byId('best-quantity')).value);
    void actions.holdBest(quantity);
  });
  button('extend').addEventListener('click', () => void actions.extendHold());
  button('release').addEventListener('click', () => void actions.releaseHold());
  byId('confirm').addEventListener('submit', (e) => {
    e.preventDefault();
    void actions.confirmHold();
  });
  /** @type {HTMLInputElement} */ (byId('order-id')).value = newOrderId();
  // a new fragment is a new identity or event: start over
  addEventListener('hashchange', () => location.reload());
  setInterval(() => panel.tick(), 250);
  panel.render();
  void prices.start();
  void queue.start(); // then the map, unless the event's queue stands in the way
  void actions.restoreHold();
  waitlist.start();
}

start();
