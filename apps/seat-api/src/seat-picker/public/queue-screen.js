// @ts-check
import { ApiFailure } from './api-client.js';
import { button, byId, formatSeconds, formatTime, formatWait, say, setLive } from './page.js';

/**
 * @typedef {{ phase: 'SCHEDULED' | 'PREQUEUE' | 'ON_SALE', opensAt: string, salesStartAt: string,
 *   order: 'shuffle-then-fifo' | 'fifo', paused: boolean, servingNumber: number, lastNumber: number,
 *   etaSecondsPerPlace: number, activeShoppers: number, maxActiveShoppers: number, waiting: number }} QueueStatus
 *   GET /v1/events/{eventId}/queue, and each `status` event of its stream
 */
/**
 * @typedef {{ entryId: string, status: 'PREQUEUE' | 'WAITING' | 'ADMITTED' | 'DONE' | 'LEFT' | 'SKIPPED',
 *   number?: number, placesAhead?: number, refreshAfterSeconds: number, pass?: string,
 *   passExpiresAt?: string }} QueueEntry this user's place: POST .../queue/entries, GET /v1/queue/entries/{id}
 */
/** @typedef {ReturnType<typeof queueScreen>} QueueScreen */

/** How long to wait before asking again after the service refused a stream or did not answer. */
const RETRY_MS = 5000;
/** Reads of the entry prompted by the status (the turn may have come) or by a hold ending, at most this often. */
const PROMPTED_READ_GAP_MS = 1000;
/** A join refused because the queue is not open yet by the service's clock: asked again after this long. */
const NOT_OPEN_RETRY_MS = 1000;

/** What the user is told of an entry that is out of the line, by its status. */
const OUTCOME = {
  // joining again answers the same DONE entry (queue-join.lua): no button for it
  DONE: {
    title: 'Your turn is over',
    text: 'The seats you held were booked or let go, or your time to hold seats ran out. The queue gives each customer one turn.',
  },
  LEFT: { title: 'You left the queue', text: 'Join again for a new place at the back of the line.' },
  SKIPPED: {
    title: 'Your turn was passed over',
    text: 'Your turn came while this page was not following the queue, so it went to the next in line. Join again for a new place at the back.',
  },
};

/** @param {HTMLElement} el @param {string} text set only when it changes, so a live region speaks only then */
function setText(el, text) {
  if (el.textContent !== text) {
    el.textContent = text;
  }
}

/**
 * The event's on-sale queue on the page. While the queue is open (PREQUEUE or ON_SALE, or a hold was
 * refused 409 QUEUE_REQUIRED) a user without a turn sees the queue screen instead of the seat map: the page
 * joins once and keeps the entry id in sessionStorage (a reload keeps the place), shows the place, the
 * estimated wait and a pause, follows the public status by its stream, and reads the entry every
 * refreshAfterSeconds (an entry not read is passed over when its turn comes) and at once when the status
 * says the turn may have come. Once ADMITTED the map comes back by itself, every new hold carries the pass
 * (passHeaders) and the time left to hold seats is shown; the turn ends with its last hold. The seat-map
 * stream is open only while the map is shown: a waiting page costs the service one small status stream.
 * @param {object} options
 * @param {import('./api-client.js').Api} options.api
 * @param {string} options.eventPath `/v1/events/<eventId>`
 * @param {string} options.key sessionStorage key of this user's entry on this event
 * @param {import('./hold-panel.js').HoldPanel} options.panel
 * @param {(err: unknown) => string} options.explain
 */
export function queueScreen({ api, eventPath, key, panel, explain }) {
  /** @type {QueueStatus | null} null: the event has no queue, as far as the page knows */
  let status = null;
  /** a hold was refused 409 QUEUE_REQUIRED: the queue gates, whatever the last status said */
  let required = false;
  /** the first answers came: until then neither the map nor the queue screen is shown */
  let decided = false;
  /** @type {string | null} */
  let entryId = sessionStorage.getItem(key);
  /** @type {QueueEntry | null} */
  let entry = null;
  let joining = false;
  /** a join was refused for a reason that waiting does not fix: the user tries again by the button */
  let joinRefused = false;
  let reading = false;
  let readAgain = false;
  let lastRead = 0;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let readTimer;
  /** @type {EventSource | null} */
  let stream = null;
  let streamRetryAt = 0;
  /** @type {import('./seat-map.js').LiveState} */
  let streamState = 'connecting';
  /** @type {boolean | null} the queue screen stands instead of the map (null: not decided yet) */
  let shown = null;
  let hadHold = false;

  const gates = () => required || (status !== null && status.phase !== 'SCHEDULED');
  const pass = () => (entry?.status === 'ADMITTED' ? entry.pass : undefined);
  const admitted = () => pass() !== undefined;
  /** Seconds left to hold seats with the pass (by this device's clock, as the waiting list's offer). */
  const passLeft = () => (entry?.passExpiresAt ? (Date.parse(entry.passExpiresAt) - Date.now()) / 1000 : 0);
  /** Places ahead, worked out from the live status between reads of the entry (its number minus servingNumber). */
  const placesAhead = () => {
    if (entry?.number === undefined) {
      return 0;
    }
    return status ? Math.max(0, entry.number - status.servingNumber - 1) : (entry.placesAhead ?? 0);
  };

  /** @param {import('./seat-map.js').LiveState} state the queue stream's, in the header while it is shown */
  const live = (state) => {
    streamState = state;
    if (shown) {
      setLive(state);
    }
  };

  /** @param {boolean} next whether the queue screen stands instead of the map */
  const show = (next) => {
    if (next === shown) {
      return;
    }
    shown = next;
    byId('queue').hidden = !next;
    byId('map').hidden = next;
    byId('legend').hidden = next;
    byId('counts').hidden = next; // the map's counts, not followed while the map is closed
    panel.queued = next;
    panel.render();
    panel.map.paintAll();
    if (next) {
      panel.map.disconnect();
      setLive(streamState);
    } else {
      panel.map.connect();
    }
  };

  const renderScreen = () => {
    const s = status;
    const outcome =
      entry && entry.status in OUTCOME ? OUTCOME[/** @type {keyof OUTCOME} */ (entry.status)] : null;
    const inLine = entry?.status === 'PREQUEUE' || entry?.status === 'WAITING';
    let title = 'This event sells through a queue';
    let place = '';
    let wait = '';
    if (!panel.canHold) {
      place = 'Read-only: this link carries no token, so it cannot join the queue.';
      wait = s ? `${s.waiting} waiting, ${s.activeShoppers} choosing seats now.` : '';
    } else if (outcome) {
      title = outcome.title;
      wait = outcome.text;
    } else if (!entry) {
      place =
        s?.phase === 'SCHEDULED'
          ? `The queue opens at ${formatTime(s.opensAt)}.`
          : joinRefused
            ? 'Your place in the queue could not be taken.'
            : 'Taking your place in the queue…';
    } else if (entry.status === 'PREQUEUE') {
      title = 'You are in the queue';
      const startsAt = s ? `, at ${formatTime(s.salesStartAt)}` : '';
      if (s?.order === 'fifo') {
        place = `You are number ${entry.number} in line; sales start${startsAt}.`;
        wait = `Estimated wait once sales start: ${formatWait(placesAhead() * s.etaSecondsPerPlace)}.`;
      } else {
        place = `Your place in line will be drawn when sales start${startsAt}.`;
      }
    } else if (entry.status === 'WAITING') {
      title = 'You are in the queue';
      const ahead = placesAhead();
      place =
        ahead === 0
          ? 'You are next in line.'
          : `${ahead} ${ahead === 1 ? 'customer is' : 'customers are'} ahead of you.`;
      wait =
        ahead > 0
          ? `Estimated wait: ${formatWait(ahead * (s?.etaSecondsPerPlace ?? 0))}.`
          : s && s.activeShoppers >= s.maxActiveShoppers
            ? 'Your turn comes as soon as a customer choosing seats now is done.'
            : 'Your turn comes in a moment.';
    }
    const screen = byId('queue');
    screen.dataset.status = entry?.status ?? (joinRefused ? 'REFUSED' : 'JOINING');
    setText(byId('queue-title'), title);
    setText(byId('queue-place'), place);
    setText(byId('queue-wait'), wait);
    byId('queue-paused').hidden = !s?.paused || outcome !== null;
    byId('queue-note').hidden = !panel.canHold || !(inLine || !entry);
    const join = button('queue-join');
    join.hidden = !panel.canHold || !(joinRefused || entry?.status === 'LEFT' || entry?.status === 'SKIPPED');
    join.textContent = entry ? 'Join the queue again' : 'Try again';
    join.disabled = joining;
    button('queue-leave').hidden = !inLine;
  };

  const render = () => {
    if (!decided) {
      return;
    }
    show(gates() && !admitted() && panel.hold === null);
    const turn = byId('queue-turn');
    turn.hidden = !admitted();
    if (!turn.hidden) {
      const left = passLeft();
      setText(
        turn,
        left > 0
          ? `Your turn: ${formatSeconds(left)} left to hold seats.`
          : 'Your time to hold seats is up; a hold you have goes on as usual.',
      );
    }
    if (shown) {
      renderScreen();
    }
  };

  const forget = () => {
    entry = null;
    entryId = null;
    sessionStorage.removeItem(key);
    clearTimeout(readTimer);
  };

  /** @param {QueueEntry} next the entry as the service just answered it */
  const keep = (next) => {
    const before = entry?.status;
    entry = next;
    entryId = next.entryId;
    sessionStorage.setItem(key, next.entryId);
    clearTimeout(readTimer);
    if (next.status === 'PREQUEUE' || next.status === 'WAITING' || next.status === 'ADMITTED') {
      // while waiting this keeps the place (an entry not read is passed over); once admitted it tells when the turn ends
      readTimer = setTimeout(() => void readEntry(), next.refreshAfterSeconds * 1000);
    }
    if (before !== 'ADMITTED' && admitted()) {
      say(`Your turn has come: ${formatSeconds(passLeft())} to hold seats.`);
    }
  };

  const readEntry = async () => {
    if (!entryId) {
      return;
    }
    if (reading) {
      readAgain = true; // what prompted this read may be newer than the answer on its way
      return;
    }
    reading = true;
    lastRead = Date.now();
    try {
      keep(await api('GET', `/v1/queue/entries/${encodeURIComponent(entryId)}`));
    } catch (err) {
      if (err instanceof ApiFailure && err.status === 404) {
        forget(); // the queue was switched off, taking its entries with it: ask what stands now
        await loadStatus();
      } else {
        clearTimeout(readTimer);
        readTimer = setTimeout(() => void readEntry(), RETRY_MS);
      }
    } finally {
      reading = false;
    }
    if (readAgain) {
      readAgain = false;
      readSoon();
    }
    update();
  };

  /** Reads the entry soon: the places were drawn, the turn may have come, or a hold of the turn ended. */
  const readSoon = () => {
    const wait = lastRead + PROMPTED_READ_GAP_MS - Date.now();
    if (wait <= 0) {
      void readEntry();
      return;
    }
    clearTimeout(readTimer);
    readTimer = setTimeout(() => void readEntry(), wait);
  };

  /** @param {QueueStatus} next */
  const onStatus = (next) => {
    status = next;
    const inLine = entry?.status === 'PREQUEUE' || entry?.status === 'WAITING';
    if (
      (entry?.status === 'PREQUEUE' && next.phase === 'ON_SALE') ||
      (entry?.status === 'WAITING' && entry.number !== undefined && next.servingNumber >= entry.number) ||
      // a browser slows the timers of a tab in the background, not its streams: the place is kept anyway
      (inLine && Date.now() - lastRead >= (entry?.refreshAfterSeconds ?? 0) * 1000)
    ) {
      readSoon();
    }
    update();
  };

  /** The queue's status once: at start, and when its stream was refused (404: the event has none now). */
  const loadStatus = async () => {
    try {
      onStatus(await api('GET', `${eventPath}/queue`));
    } catch (err) {
      if (err instanceof ApiFailure && err.status === 404) {
        status = null;
        required = false;
      } else if (status !== null || required) {
        setTimeout(() => void loadStatus(), RETRY_MS);
      }
      // otherwise the map is shown, and a hold refused QUEUE_REQUIRED brings the queue back
    }
    update();
  };

  /** The public status, live: opened while this user is in the line or about to be, closed once admitted. */
  const follow = () => {
    if (stream || Date.now() < streamRetryAt) {
      return;
    }
    live('connecting');
    const s = new EventSource(`${eventPath}/queue/stream`);
    stream = s;
    s.addEventListener('open', () => live('live'));
    s.addEventListener('status', (e) => onStatus(JSON.parse(/** @type {MessageEvent} */ (e).data)));
    s.addEventListener('error', () => {
      if (s.readyState !== EventSource.CLOSED) {
        live('reconnecting'); // the browser reconnects by itself
        return;
      }
      // refused (404: no queue any more; 429, 503): ask once now, open it again later if there is a queue
      stream = null;
      streamRetryAt = Date.now() + RETRY_MS;
      live('offline');
      void loadStatus();
    });
  };

  const unfollow = () => {
    stream?.close();
    stream = null;
  };

  const join = async () => {
    joining = true;
    joinRefused = false;
    lastRead = Date.now(); // joining counts as reading the entry: it is seen now
    try {
      keep(await api('POST', `${eventPath}/queue/entries`));
    } catch (err) {
      const code = err instanceof ApiFailure ? err.body.code : undefined;
      if (code === 'QUEUE_NOT_OPEN') {
        // the status ran a moment ahead of the service's clock
        await new Promise((r) => setTimeout(r, NOT_OPEN_RETRY_MS));
      } else if (code === 'QUEUE_NOT_FOUND') {
        required = false;
        await loadStatus();
      } else {
        joinRefused = true;
        say(explain(err), 'error');
      }
    } finally {
      joining = false;
    }
    update();
  };

  const leave = async () => {
    if (!entryId) {
      return;
    }
    try {
      await api('DELETE', `/v1/queue/entries/${encodeURIComponent(entryId)}`);
    } catch (err) {
      say(explain(err), 'error');
      return;
    }
    await readEntry();
  };

  /** Joins once when the queue gates; follows its status while in line; draws the screen or the map. */
  const update = () => {
    if (!decided) {
      return;
    }
    if (panel.canHold && gates() && entryId === null && !joining && !joinRefused) {
      void join();
    }
    const outOfLine = entry?.status === 'ADMITTED' || entry?.status === 'DONE';
    if ((status !== null || required) && !outOfLine) {
      follow();
    } else {
      unfollow();
    }
    render();
  };

  const tick = () => {
    const holding = panel.hold !== null;
    const expiresAt = Date.parse(entry?.passExpiresAt ?? '');
    if (admitted() && !holding && (hadHold || (Date.now() >= expiresAt && lastRead < expiresAt))) {
      readSoon(); // a turn ends with its last hold, or with its pass unused: the entry says which
    }
    hadHold = holding;
    update();
  };

  const start = async () => {
    button('queue-join').addEventListener('click', () => void join());
    button('queue-leave').addEventListener('click', () => void leave());
    setInterval(tick, 1000);
    // both first, so a reload of an admitted page goes straight to the map
    await Promise.all([entryId ? readEntry() : undefined, loadStatus()]);
    decided = true;
    update();
  };

  return {
    start,
    /** @returns {Record<string, string>} the header a new hold carries: the pass, in this user's turn */
    passHeaders: () => {
      const p = pass();
      return p ? { 'queue-pass': p } : {};
    },
    /** @param {unknown} err a new hold's refusal: the queue's ones bring the queue screen back */
    refused: (err) => {
      if (!(err instanceof ApiFailure)) {
        return;
      }
      if (err.body.code === 'QUEUE_REQUIRED') {
        required = true;
        update();
      } else if (err.body.code === 'ADMISSION_INVALID') {
        readSoon(); // the turn is over or its time ran out: the entry says which
      }
    },
  };
}
