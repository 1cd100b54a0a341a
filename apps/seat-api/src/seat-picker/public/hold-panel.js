// @ts-check
import { ApiFailure } from './api-client.js';
import { button, byId, formatSeconds, say, setLive } from './page.js';
import { LiveSeatMap } from './seat-map.js';

/** @typedef {import('./seat-map.js').SeatStatus} SeatStatus */
/** @typedef {import('./seat-map.js').Area} Area */
/** @typedef {{ area: string, quantity: number }} Places places of one general-admission area */
/** @typedef {{ holdId: string, status: string, seatIds: string[], places?: Places[], createdAt: string, expiresAt: string, expiresInSeconds: number }} Hold */

/** Most places of one area a hold may ask for (the API's limit). */
const MAX_PLACES = 10;

/**
 * What a hold or a selection takes, as the page writes it: "S-A-1, S-A-2, FLOOR × 2".
 * @param {string[]} seatIds
 * @param {Places[]} [places]
 */
export function describeTaken(seatIds, places = []) {
  return [...seatIds, ...places.map((p) => `${p.area} × ${p.quantity}`)].join(', ');
}

/**
 * What this user has on the page, and how it is drawn: the seats selected, the one hold with its
 * countdown, the seats booked here, how each seat of the live map looks to this user, and the panel beside
 * the map. It makes no API call of its own except loading the map (hold-actions.js calls the hold routes,
 * through `act`).
 */
export class HoldPanel {
  /** @type {Set<string>} */
  selection = new Set();
  /** @type {Map<string, number>} places chosen in each general-admission area (part of the selection) */
  places = new Map();
  /** @type {Set<string>} seats this page confirmed, drawn as yours */
  booked = new Set();
  /** @type {Hold | null} */
  hold = null;
  holdEndsAt = 0; // performance.now() time: the server's expiresInSeconds, free of clock skew
  holdTtl = 300; // an extension asks for as long as the hold was first given
  busy = false;
  /** the on-sale queue stands between this user and new holds (queue-screen.js): nothing to pick meanwhile */
  queued = false;
  /** @type {(() => void) | undefined} called after each render: the prices (prices.js) follow the panel */
  onRender;

  /**
   * @param {object} options
   * @param {boolean} options.canHold the page has a token (without one it is read-only)
   * @param {string} options.eventPath `/v1/events/<eventId>`
   * @param {string} options.holdKey sessionStorage key: this user's hold on this event survives a reload
   * @param {import('./api-client.js').Api} options.api
   * @param {(err: unknown) => string} options.explain
   */
  constructor({ canHold, eventPath, holdKey, api, explain }) {
    this.canHold = canHold;
    this.holdKey = holdKey;
    this.explain = explain;
    this.map = new LiveSeatMap(byId('map'), eventPath, {
      paint: (b, seatId, status) => this.paintSeat(b, seatId, status),
      click: (seatId) => this.toggle(seatId),
      paintArea: (block, area) => this.paintArea(block, area),
      changed: () => {
        this.showCounts();
        this.dropTakenSeats();
      },
      live: setLive,
      load: () => api('GET', `${eventPath}/seats`),
      failed: (err) => {
        say(explain(err), 'error');
        return !(err instanceof ApiFailure && err.status === 404); // no such event: stop trying
      },
    });
  }

  /**
   * How a seat looks and whether it can be clicked. The map never says who holds a seat: "yours" is what
   * this page holds or booked.
   * @param {HTMLButtonElement} b
   * @param {string} seatId
   * @param {SeatStatus} status
   */
  paintSeat(b, seatId, status) {
    const mine = (this.hold?.seatIds.includes(seatId) ?? false) || this.booked.has(seatId);
    b.dataset.status = status;
    b.dataset.mine = String(mine);
    b.setAttribute('aria-pressed', String(this.selection.has(seatId)));
    // one hold at a time: release or confirm it before picking again
    b.disabled =
      !this.canHold || this.queued || this.busy || this.hold !== null || mine || status !== 'AVAILABLE';
    b.title = `${seatId} · ${b.dataset.category} · ${mine ? 'yours' : status.toLowerCase()}`;
    b.setAttribute('aria-label', b.title);
  }

  /**
   * An area as one block: its name, its free places (live), the places this user holds in it, and a
   * quantity control whose value is part of the selection (held with the seats by the one Hold button).
   * @param {HTMLElement} block
   * @param {Area} area
   */
  paintArea(block, area) {
    let input = /** @type {HTMLInputElement | null} */ (block.querySelector('input'));
    if (!input) {
      const title = document.createElement('h2');
      title.textContent = `${area.name} · ${area.category}`;
      const free = document.createElement('p');
      free.className = 'area-free';
      const mine = document.createElement('p');
      mine.className = 'area-mine';
      const label = document.createElement('label');
      label.textContent = 'Places ';
      input = document.createElement('input');
      input.type = 'number';
      input.min = '0';
      input.value = '0';
      input.setAttribute('aria-label', `Places in ${area.name}`);
      const field = input;
      field.addEventListener('input', () => this.choosePlaces(area.name, Number(field.value)));
      label.append(input);
      block.append(title, free, mine, label);
    }
    const held = this.hold?.places?.find((p) => p.area === area.name)?.quantity ?? 0;
    block.dataset.free = String(area.free);
    /** @type {HTMLElement} */ (block.querySelector('.area-free')).textContent =
      `${area.free} of ${area.capacity} free · ${area.held} held · ${area.booked} booked`;
    /** @type {HTMLElement} */ (block.querySelector('.area-mine')).textContent =
      held > 0 ? `yours: ${held}` : '';
    input.max = String(Math.min(MAX_PLACES, Math.max(area.free, this.places.get(area.name) ?? 0)));
    input.disabled =
      !this.canHold ||
      this.queued ||
      this.busy ||
      this.hold !== null ||
      (area.free === 0 && !this.places.has(area.name));
    if (Number(input.value) !== (this.places.get(area.name) ?? 0)) {
      input.value = String(this.places.get(area.name) ?? 0);
    }
  }

  /**
   * @param {string} area
   * @param {number} quantity what the control says (0 or nonsense: none)
   */
  choosePlaces(area, quantity) {
    const n = Math.min(MAX_PLACES, Math.floor(quantity));
    if (n > 0) {
      this.places.set(area, n);
    } else {
      this.places.delete(area);
    }
    this.render();
  }

  /** The places chosen, as a hold's body names them. @returns {Places[]} */
  placesChosen() {
    return [...this.places].map(([area, quantity]) => ({ area, quantity }));
  }

  /** Counted from what the page draws, so a seat a 409 just marked taken is counted too. */
  showCounts() {
    const { map } = this;
    byId('counts').textContent =
      `${map.count('AVAILABLE')} of ${map.statuses.size} free · ${map.count('HELD')} held · ${map.count('BOOKED')} booked`;
  }

  /**
   * A selected seat someone else just took leaves the selection, with a word why. Not while a call runs:
   * the seats this page is holding right now turn HELD too, and the call's answer says what happened.
   */
  dropTakenSeats() {
    if (this.busy) {
      return;
    }
    const taken = [...this.selection].filter((seatId) => this.map.statuses.get(seatId) !== 'AVAILABLE');
    if (taken.length > 0) {
      for (const seatId of taken) {
        this.selection.delete(seatId);
        this.map.paint(seatId);
      }
      say(`Just taken by someone else: ${taken.join(', ')}.`, 'error');
      this.render();
    }
  }

  /** @param {string} seatId */
  toggle(seatId) {
    if (!this.selection.delete(seatId)) {
      this.selection.add(seatId);
    }
    this.map.paint(seatId);
    this.render();
  }

  clearSelection() {
    this.selection.clear();
    this.places.clear();
    this.map.paintAll();
    this.render();
  }

  render() {
    const { hold, busy, selection } = this;
    byId('pick').hidden = hold !== null || this.queued;
    byId('holding').hidden = hold === null;
    const picked = selection.size + this.places.size;
    byId('selected').textContent = !this.canHold
      ? 'Read-only: this link carries no token. Open the link the service printed at start.'
      : picked > 0
        ? `Selected: ${describeTaken([...selection], this.placesChosen())}`
        : 'Click free seats (or choose places) to select them, then hold them.';
    button('hold').disabled = busy || picked === 0;
    button('clear').disabled = busy || picked === 0;
    button('hold-best').disabled = busy || !this.canHold;
    for (const id of ['extend', 'release']) {
      button(id).disabled = busy;
    }
    if (hold) {
      byId('hold-seats').textContent = describeTaken(hold.seatIds, hold.places);
      button('extend').textContent = `Extend (+${formatSeconds(this.holdTtl)})`;
    }
    this.onRender?.();
  }

  /** The countdown, every 250 ms; the hold ends on the page when it runs out. */
  tick() {
    if (!this.hold) {
      return;
    }
    const left = (this.holdEndsAt - performance.now()) / 1000;
    if (left <= 0) {
      this.endHold('Your hold ran out; its seats are free again.');
      return;
    }
    const countdown = byId('countdown');
    countdown.textContent = formatSeconds(left);
    countdown.classList.toggle('urgent', left < 30);
  }

  /** @param {Hold} h a hold the API just answered (created, extended or read back) */
  startHold(h) {
    this.hold = h;
    this.holdEndsAt = performance.now() + h.expiresInSeconds * 1000;
    sessionStorage.setItem(this.holdKey, h.holdId);
    this.map.paintAll();
    this.render();
    this.tick();
  }

  /**
   * @param {string} why
   * @param {'info' | 'error'} [kind]
   */
  endHold(why, kind = 'info') {
    this.hold = null;
    sessionStorage.removeItem(this.holdKey);
    this.map.paintAll();
    this.render();
    say(why, kind);
  }

  /**
   * Runs one API call with the controls disabled, so a double click cannot send it twice.
   * @param {() => Promise<void>} action
   */
  async act(action) {
    this.busy = true;
    this.map.paintAll();
    this.render();
    try {
      await action();
    } catch (err) {
      say(this.explain(err), 'error');
      if (err instanceof ApiFailure) {
        this.onRefusal(err);
      }
    } finally {
      this.busy = false;
      this.map.paintAll();
      this.render();
    }
  }

  /** @param {ApiFailure} err what a refusal tells about the seats or the hold */
  onRefusal(err) {
    if (err.body.code === 'SEATS_UNAVAILABLE') {
      // the stream will say so too; the 409 already names the seats and why
      for (const { seatId, reason } of err.body.errors ?? []) {
        if (seatId && (reason === 'HELD' || reason === 'BOOKED')) {
          this.selection.delete(seatId);
          this.map.set(seatId, reason);
        }
      }
      this.showCounts();
    } else if (
      this.hold &&
      ['HOLD_NOT_ACTIVE', 'HOLD_EXPIRED', 'HOLD_NOT_FOUND'].includes(err.body.code ?? '')
    ) {
      this.endHold(this.explain(err), 'error'); // it ended elsewhere (ran out, released in another tab)
    }
  }
}
