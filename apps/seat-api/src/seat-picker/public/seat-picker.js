// @ts-check
import { LiveSeatMap } from './seat-map.js';

/**
 * The seat picker: shows an event's live seat map (seat-map.js), and holds, extends, releases and
 * confirms seats through the public API, as any client would. Plain ES modules served as-is (no build
 * step, no third-party code); type checked with JSDoc by `npm run typecheck` (tsconfig.page.json).
 *
 * Identity comes from the URL fragment, `#token=<jwt>&event=<eventId>`: a fragment never leaves the
 * browser, so the token stays out of access logs and Referer headers. Without `event` the page shows the
 * demo event; without `token` it is read-only.
 */

/** Seeded by SEED_DEMO_EVENT=true (DEMO_EVENT_ID in catalogue/demo-seed.service.ts; a test keeps them equal). */
const DEMO_EVENT_ID = '00000000-0000-4000-8000-00000000d3e0';

/** @typedef {import('./seat-map.js').SeatStatus} SeatStatus */
/** @typedef {{ holdId: string, status: string, seatIds: string[], createdAt: string, expiresAt: string, expiresInSeconds: number }} Hold */
/** @typedef {{ seatIds: string[], orderId: string }} Booking */

const fragment = new URLSearchParams(location.hash.slice(1));
const token = fragment.get('token') ?? '';
const eventId = fragment.get('event') || DEMO_EVENT_ID;
const eventPath = `/v1/events/${encodeURIComponent(eventId)}`;
const holdKey = `seat-picker:${eventId}:${token.slice(-16)}`; // this user's hold survives a reload

/** @type {Set<string>} */
const selection = new Set();
/** @type {Set<string>} seats this page confirmed, drawn as yours */
const booked = new Set();
/** @type {Hold | null} */
let hold = null;
let holdEndsAt = 0; // performance.now() time: the server's expiresInSeconds, free of clock skew
let holdTtl = 300; // an extension asks for as long as the hold was first given
let busy = false;

/** @param {string} id */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** @param {string} id */
const button = (id) => /** @type {HTMLButtonElement} */ (document.getElementById(id));

/** A refused call, carrying the API's error envelope `{ statusCode, code, message, errors? }`. */
class ApiFailure extends Error {
  /**
   * @param {number} status
   * @param {{ code?: string, message?: string, errors?: { seatId?: string, reason?: string }[] }} body
   * @param {string | null} retryAfter
   */
  constructor(status, body, retryAfter) {
    super(body.message ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.retryAfter = retryAfter;
  }
}

/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
async function api(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  if (token) {
    headers.authorization = `Bearer ${token}`;
  }
  if (body !== undefined) {
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  const data = text ? JSON.parse(text) : undefined;
  if (!res.ok) {
    throw new ApiFailure(res.status, data ?? {}, res.headers.get('retry-after'));
  }
  return data;
}

/** @param {unknown} err */
function explain(err) {
  if (!(err instanceof ApiFailure)) {
    return `Cannot reach the service (${err instanceof Error ? err.message : String(err)}).`;
  }
  const { code, message, errors } = err.body;
  if (code === 'SEATS_UNAVAILABLE') {
    const seats = (errors ?? []).map((e) => `${e.seatId} (${(e.reason ?? 'taken').toLowerCase()})`);
    return `Not available any more: ${seats.join(', ')}. Pick other seats.`;
  }
  if (err.status === 401) {
    return 'Your token was refused (expired?). Open the link the service printed at start.';
  }
  if (err.status === 404 && code === 'EVENT_NOT_FOUND' && eventId === DEMO_EVENT_ID) {
    return 'No demo event here: start the service with SEED_DEMO_EVENT=true, or open /#token=…&event=<eventId>.';
  }
  const retry = err.retryAfter ? ` Try again in ${err.retryAfter} s.` : '';
  return `${message ?? 'Request refused'} (${code ?? err.status}).${retry}`;
}

/**
 * @param {string} text
 * @param {'info' | 'error'} [kind]
 */
function say(text, kind = 'info') {
  const box = byId('message');
  box.textContent = text;
  box.dataset.kind = kind;
}

/**
 * How a seat looks and whether it can be clicked. The map never says who holds a seat: "yours" is what
 * this page holds or booked.
 * @param {HTMLButtonElement} b
 * @param {string} seatId
 * @param {SeatStatus} status
 */
function paintSeat(b, seatId, status) {
  const mine = (hold?.seatIds.includes(seatId) ?? false) || booked.has(seatId);
  b.dataset.status = status;
  b.dataset.mine = String(mine);
  b.setAttribute('aria-pressed', String(selection.has(seatId)));
  // one hold at a time: release or confirm it before picking again
  b.disabled = !token || busy || hold !== null || mine || status !== 'AVAILABLE';
  b.title = `${seatId} · ${b.dataset.category} · ${mine ? 'yours' : status.toLowerCase()}`;
  b.setAttribute('aria-label', b.title);
}

/** Counted from what the page draws, so a seat a 409 just marked taken is counted too. */
function showCounts() {
  const free = map.count('AVAILABLE');
  byId('counts').textContent =
    `${free} of ${map.statuses.size} free · ${map.count('HELD')} held · ${map.count('BOOKED')} booked`;
}

/**
 * A selected seat someone else just took leaves the selection, with a word why. Not while a call runs:
 * the seats this page is holding right now turn HELD too, and the call's answer says what happened.
 */
function dropTakenSeats() {
  if (busy) {
    return;
  }
  const taken = [...selection].filter((seatId) => map.statuses.get(seatId) !== 'AVAILABLE');
  if (taken.length > 0) {
    for (const seatId of taken) {
      selection.delete(seatId);
      map.paint(seatId);
    }
    say(`Just taken by someone else: ${taken.join(', ')}.`, 'error');
    renderPanel();
  }
}

/** @param {import('./seat-map.js').LiveState} state */
function setLive(state) {
  const live = byId('live');
  live.dataset.state = state;
  live.textContent = state.endsWith('connecting') ? `${state}…` : state;
}

/** @param {string} seatId */
function toggle(seatId) {
  if (!selection.delete(seatId)) {
    selection.add(seatId);
  }
  map.paint(seatId);
  renderPanel();
}

function renderPanel() {
  byId('pick').hidden = hold !== null;
  byId('holding').hidden = hold === null;
  byId('selected').textContent = !token
    ? 'Read-only: this link carries no token. Open the link the service printed at start.'
    : selection.size > 0
      ? `Selected: ${[...selection].join(', ')}`
      : 'Click free seats to select them, then hold them.';
  button('hold').disabled = busy || selection.size === 0;
  button('clear').disabled = busy || selection.size === 0;
  for (const id of ['extend', 'release']) {
    button(id).disabled = busy;
  }
  if (hold) {
    byId('hold-seats').textContent = hold.seatIds.join(', ');
    button('extend').textContent = `Extend (+${formatSeconds(holdTtl)})`;
  }
}

/** @param {number} seconds */
function formatSeconds(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function tick() {
  if (!hold) {
    return;
  }
  const left = (holdEndsAt - performance.now()) / 1000;
  if (left <= 0) {
    endHold('Your hold ran out; its seats are free again.');
    return;
  }
  const countdown = byId('countdown');
  countdown.textContent = formatSeconds(left);
  countdown.classList.toggle('urgent', left < 30);
}

/** @param {Hold} h */
function startHold(h) {
  hold = h;
  holdEndsAt = performance.now() + h.expiresInSeconds * 1000;
  sessionStorage.setItem(holdKey, h.holdId);
  map.paintAll();
  renderPanel();
  tick();
}

/**
 * @param {string} why
 * @param {'info' | 'error'} [kind]
 */
function endHold(why, kind = 'info') {
  hold = null;
  sessionStorage.removeItem(holdKey);
  map.paintAll();
  renderPanel();
  say(why, kind);
}

/**
 * Runs one API call with the controls disabled, so a double click cannot send it twice.
 * @param {() => Promise<void>} action
 */
async function act(action) {
  busy = true;
  map.paintAll();
  renderPanel();
  try {
    await action();
  } catch (err) {
    say(explain(err), 'error');
    if (err instanceof ApiFailure) {
      onRefusal(err);
    }
  } finally {
    busy = false;
    map.paintAll();
    renderPanel();
  }
}

/** @param {ApiFailure} err what a refusal tells about the seats or the hold */
function onRefusal(err) {
  if (err.body.code === 'SEATS_UNAVAILABLE') {
    // the stream will say so too; the 409 already names the seats and why
    for (const { seatId, reason } of err.body.errors ?? []) {
      if (seatId && (reason === 'HELD' || reason === 'BOOKED')) {
        selection.delete(seatId);
        map.set(seatId, reason);
      }
    }
    showCounts();
  } else if (hold && ['HOLD_NOT_ACTIVE', 'HOLD_EXPIRED', 'HOLD_NOT_FOUND'].includes(err.body.code ?? '')) {
    endHold(explain(err), 'error'); // it ended elsewhere (ran out, released in another tab)
  }
}

const holdSeats = () =>
  act(async () => {
    const seatIds = [...selection];
    /** @type {Hold} */
    const created = await api('POST', `${eventPath}/holds`, { seatIds });
    selection.clear();
    holdTtl = Math.round((Date.parse(created.expiresAt) - Date.parse(created.createdAt)) / 1000);
    startHold(created);
    say(`Held ${seatIds.join(', ')} for ${formatSeconds(created.expiresInSeconds)}.`);
  });

const extendHold = () =>
  act(async () => {
    if (!hold) {
      return;
    }
    startHold(await api('POST', `/v1/holds/${hold.holdId}/extend`, { ttlSeconds: holdTtl }));
    say(`Extended: ${formatSeconds(hold.expiresInSeconds)} left.`);
  });

const releaseHold = () =>
  act(async () => {
    if (!hold) {
      return;
    }
    await api('DELETE', `/v1/holds/${hold.holdId}`);
    endHold(`Released ${hold.seatIds.join(', ')}.`);
  });

const confirmHold = () =>
  act(async () => {
    if (!hold) {
      return;
    }
    const input = /** @type {HTMLInputElement} */ (byId('order-id'));
    /** @type {Booking} */
    const booking = await api('POST', `/v1/holds/${hold.holdId}/confirm`, { orderId: input.value });
    booking.seatIds.forEach((seatId) => booked.add(seatId));
    endHold(`Booked ${booking.seatIds.join(', ')} for order ${booking.orderId}.`);
    input.value = newOrderId();
  });

/** After a reload, this user's hold (if still active) comes back with its countdown. */
async function restoreHold() {
  const holdId = sessionStorage.getItem(holdKey);
  if (!token || !holdId) {
    return;
  }
  try {
    /** @type {Hold} */
    const saved = await api('GET', `/v1/holds/${encodeURIComponent(holdId)}`);
    if (saved.status === 'ACTIVE' && saved.expiresInSeconds > 0 && !hold) {
      startHold(saved);
      return;
    }
  } catch {
    // gone or not ours any more: nothing to restore
  }
  sessionStorage.removeItem(holdKey);
}

function newOrderId() {
  return `order-${crypto.getRandomValues(new Uint32Array(1))[0].toString(36)}`;
}

/** The token's subject, for display only (the server checks the signature). */
function userName() {
  try {
    const payload = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    return String(JSON.parse(atob(payload)).sub ?? '?');
  } catch {
    return '?';
  }
}

/** @param {unknown} err */
function mapFailed(err) {
  say(explain(err), 'error');
  return !(err instanceof ApiFailure && err.status === 404); // no such event: stop trying
}

const map = new LiveSeatMap(byId('map'), eventPath, {
  paint: paintSeat,
  click: toggle,
  changed: () => {
    showCounts();
    dropTakenSeats();
  },
  live: setLive,
  load: () => api('GET', `${eventPath}/seats`),
  failed: mapFailed,
});

function start() {
  byId('who').textContent = token ? `as ${userName()} · event ${eventId}` : `read-only · event ${eventId}`;
  button('hold').addEventListener('click', () => void holdSeats());
  button('clear').addEventListener('click', () => {
    selection.clear();
    map.paintAll();
    renderPanel();
  });
  button('extend').addEventListener('click', () => void extendHold());
  button('release').addEventListener('click', () => void releaseHold());
  byId('confirm').addEventListener('submit', (e) => {
    e.preventDefault();
    void confirmHold();
  });
  /** @type {HTMLInputElement} */ (byId('order-id')).value = newOrderId();
  // a new fragment is a new identity or event: start over
  addEventListener('hashchange', () => location.reload());
  setInterval(tick, 250);
  renderPanel();
  map.connect();
  void restoreHold();
}

start();
