// @ts-check
/**
 * The live seat map: draws an event's seats as a grid by section and row, and keeps it current through
 * the seat-map stream (Server-Sent Events). It knows what the server says about each seat; what a seat
 * means to this user (selected, yours, clickable) is the picker's business, through the `paint` hook.
 */

/** @typedef {'AVAILABLE' | 'HELD' | 'BOOKED'} SeatStatus */
/** @typedef {{ seatId: string, section: string, row: string, number: number, category: string, status: SeatStatus }} Seat */
/** @typedef {{ name: string, category: string, capacity: number, free: number, held: number, booked: number, blocked: number }} Area a general-admission area: places counted, not named */
/** @typedef {{ version?: number, seats: Seat[], areas?: Area[] }} Snapshot the stream's first event, or GET /seats */
/** @typedef {{ version: number, changes: { seatId: string, status: SeatStatus }[] }} Changes a batch from the stream */
/** @typedef {{ version: number, areas: Area[] }} AreasChanged the areas a batch changed, each as it is now */
/** @typedef {'connecting' | 'live' | 'reconnecting' | 'offline'} LiveState */
/**
 * @typedef {object} SeatMapHooks
 * @property {(button: HTMLButtonElement, seatId: string, status: SeatStatus) => void} paint draws one seat
 * @property {(seatId: string) => void} click a seat was clicked
 * @property {(block: HTMLElement, area: Area) => void} paintArea draws one area's places and its controls
 * @property {() => void} changed after a snapshot or a batch of changes
 * @property {(state: LiveState) => void} live the stream's state
 * @property {() => Promise<Snapshot>} load the map without the stream (GET /seats)
 * @property {(err: unknown) => boolean} failed `load` failed: say why, and whether to keep trying
 */

/** How long to wait before opening the stream again after the server refused it (404, 429, 503...). */
const RETRY_MS = 5000;

/**
 * @param {string} tag
 * @param {string} className
 * @param {string} [text]
 */
function el(tag, className, text) {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

export class LiveSeatMap {
  /** @type {Map<string, SeatStatus>} what the server last said about each seat */
  statuses = new Map();
  /** @type {Map<string, HTMLButtonElement>} */
  buttons = new Map();
  /** @type {Map<string, Area>} what the server last said about each general-admission area */
  areas = new Map();
  /** @type {Map<string, HTMLElement>} each area's block on the map */
  areaBlocks = new Map();
  version = -1;
  /** @type {EventSource | null} the open stream, if any */
  stream = null;
  /** whether the page wants the stream: a retry after a refusal is dropped when it no longer does */
  wanted = false;

  /**
   * @param {HTMLElement} container
   * @param {string} eventPath `/v1/events/<eventId>`
   * @param {SeatMapHooks} hooks
   */
  constructor(container, eventPath, hooks) {
    this.container = container;
    this.eventPath = eventPath;
    this.hooks = hooks;
  }

  /**
   * One stream per page (a second call while it is open does nothing). On a dropped connection
   * EventSource reconnects by itself and resumes with Last-Event-ID (the version); when the server refuses
   * the stream (404, 429, 503) it gives up, so the map is loaded once through GET and the stream opened
   * again later. Either way, a page whose stream never connected still shows the map, without live changes.
   */
  connect() {
    this.wanted = true;
    if (this.stream) {
      return;
    }
    this.hooks.live('connecting');
    const stream = new EventSource(`${this.eventPath}/seats/stream`);
    this.stream = stream;
    stream.addEventListener('open', () => this.hooks.live('live'));
    stream.addEventListener('snapshot', (e) =>
      this.applySnapshot(JSON.parse(/** @type {MessageEvent} */ (e).data)),
    );
    stream.addEventListener('changes', (e) =>
      this.applyChanges(JSON.parse(/** @type {MessageEvent} */ (e).data)),
    );
    stream.addEventListener('areas', (e) =>
      this.applyAreas(JSON.parse(/** @type {MessageEvent} */ (e).data)),
    );
    stream.addEventListener('error', () => {
      if (stream.readyState !== EventSource.CLOSED) {
        this.hooks.live('reconnecting');
        if (this.statuses.size === 0) {
          void this.loadOnce(); // no map from the stream yet: show one while the browser keeps trying
        }
        return;
      }
      this.stream = null;
      this.hooks.live('offline');
      void this.loadOnce().then(
        (retry) => retry && setTimeout(() => this.wanted && this.connect(), RETRY_MS),
      );
    });
  }

  /**
   * Closes the stream: a page waiting in the on-sale queue shows no map, and holding a stream open for each
   * waiting shopper would cost the service what the queue is there to spare it. connect() starts afresh
   * (the stream's first event is a snapshot).
   */
  disconnect() {
    this.wanted = false;
    this.stream?.close();
    this.stream = null;
  }

  /** @returns {Promise<boolean>} whether opening the stream again makes sense */
  async loadOnce() {
    try {
      this.applySnapshot(await this.hooks.load());
      return true;
    } catch (err) {
      return this.hooks.failed(err);
    }
  }

  /** @param {Snapshot} snapshot */
  applySnapshot(snapshot) {
    const { seats } = snapshot;
    const areas = snapshot.areas ?? [];
    if (
      seats.length !== this.buttons.size ||
      !seats.every((s) => this.buttons.has(s.seatId)) ||
      areas.length !== this.areaBlocks.size ||
      !areas.every((a) => this.areaBlocks.has(a.name))
    ) {
      this.draw(seats, areas);
    }
    this.statuses.clear();
    seats.forEach((s) => this.statuses.set(s.seatId, s.status));
    this.areas = new Map(areas.map((a) => [a.name, a]));
    this.version = snapshot.version ?? -1;
    this.paintAll();
    this.hooks.changed();
  }

  /** @param {Changes} batch */
  applyChanges(batch) {
    // Statuses are absolute, so every batch is applied. One with the version already seen is not stale: a
    // hold that ran out frees its seats at its expireAt, before the sweeper makes a new version of it.
    if (batch.version < this.version) {
      return; // older than what the page shows
    }
    this.version = batch.version;
    batch.changes.forEach(({ seatId, status }) => this.set(seatId, status));
    this.hooks.changed();
  }

  /**
   * An area's places are absolute too: each event says how the areas it names are now (it follows the
   * `changes` event of the same version, if seats changed in that batch as well).
   * @param {AreasChanged} batch
   */
  applyAreas(batch) {
    if (batch.version < this.version) {
      return;
    }
    this.version = batch.version;
    for (const area of batch.areas) {
      this.areas.set(area.name, area);
      this.paintArea(area.name);
    }
    if (batch.areas.some((a) => !this.areaBlocks.has(a.name))) {
      // an area the snapshot did not have yet (Redis lost it, and its repair came after): draw the map again
      void this.loadOnce();
    }
    this.hooks.changed();
  }

  /**
   * What the server said about one seat (in the stream, or in a refusal).
   * @param {string} seatId
   * @param {SeatStatus} status
   */
  set(seatId, status) {
    this.statuses.set(seatId, status);
    this.paint(seatId);
  }

  /** @param {SeatStatus} status */
  count(status) {
    return [...this.statuses.values()].filter((s) => s === status).length;
  }

  /** @param {string} seatId */
  paint(seatId) {
    const button = this.buttons.get(seatId);
    if (button) {
      this.hooks.paint(button, seatId, this.statuses.get(seatId) ?? 'AVAILABLE');
    }
  }

  /** @param {string} name */
  paintArea(name) {
    const block = this.areaBlocks.get(name);
    const area = this.areas.get(name);
    if (block && area) {
      this.hooks.paintArea(block, area);
    }
  }

  paintAll() {
    this.buttons.forEach((_, seatId) => this.paint(seatId));
    this.areaBlocks.forEach((_, name) => this.paintArea(name));
  }

  /**
   * @param {Seat[]} seats grouped by section, then row, in the order the API lists them
   * @param {Area[]} areas each drawn as one block in front of the seated sections (the stage's floor):
   *   its free places and a quantity control, filled in by the `paintArea` hook
   */
  draw(seats, areas) {
    /** @type {Map<string, Map<string, Seat[]>>} */
    const sections = new Map();
    for (const seat of seats) {
      const rows = sections.get(seat.section) ?? new Map();
      sections.set(seat.section, rows);
      rows.set(seat.row, [...(rows.get(seat.row) ?? []), seat]);
    }
    this.buttons.clear();
    this.areaBlocks.clear();
    this.container.replaceChildren(el('div', 'stage', 'STAGE'));
    for (const area of areas) {
      const block = el('section', 'area');
      block.dataset.area = area.name;
      block.dataset.category = area.category;
      block.setAttribute('aria-label', `${area.name} (${area.category}): places, not seats`);
      this.areaBlocks.set(area.name, block);
      this.container.append(block);
    }
    for (const [name, rows] of sections) {
      const section = el('section', 'section');
      section.append(el('h2', '', name));
      for (const [rowName, rowSeats] of rows) {
        const row = el('div', 'row');
        row.append(el('span', 'row-label', rowName));
        for (const seat of rowSeats.sort((a, b) => a.number - b.number)) {
          const button = /** @type {HTMLButtonElement} */ (el('button', 'seat', String(seat.number)));
          button.type = 'button';
          button.dataset.seatId = seat.seatId;
          button.dataset.category = seat.category;
          button.addEventListener('click', () => this.hooks.click(seat.seatId));
          this.buttons.set(seat.seatId, button);
          row.append(button);
        }
        section.append(row);
      }
      this.container.append(section);
    }
  }
}
