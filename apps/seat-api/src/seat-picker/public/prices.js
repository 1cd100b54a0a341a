// @ts-check
import { ApiFailure } from './api-client.js';
import { byId, say } from './page.js';

/**
 * Prices on the page, for a show that has a price list (GET /v1/events/{id}/prices; a show without one
 * shows none of this): each category's price range beside the map, the price of a seat under the pointer,
 * a ticket-type choice for each selected seat (sent with the hold as `seats`) and for each seat of the hold
 * (PATCH /v1/holds/{id}/lines/{seatId}), and the running total. The total of a hold is the API's (it is
 * priced under the version the hold was made under); before the hold, the page adds up the list's prices.
 */

/** @typedef {{ key: string, label: string, price: number, maxPerHold?: number }} TicketType */
/** @typedef {{ category: string, minPrice?: number, maxPrice?: number, ticketTypes: TicketType[] }} CategoryPrices */
/** @typedef {{ priceListVersion: number, currency: string, categories: CategoryPrices[] }} Prices */
/** @typedef {{ seatId: string, category: string, ticketType: string, unitPrice: number, discount: number }} Line */

/**
 * An amount in minor units as the user's locale writes it in `currency` (its own number of decimals).
 * @param {number} minor
 * @param {string} currency
 */
export function formatMoney(minor, currency) {
  const format = new Intl.NumberFormat(undefined, { style: 'currency', currency });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(minor / 10 ** digits);
}

/**
 * @param {string} tag
 * @param {string} [text]
 */
function el(tag, text) {
  const node = document.createElement(tag);
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

/**
 * @param {object} options
 * @param {import('./api-client.js').Api} options.api
 * @param {string} options.eventPath `/v1/events/<eventId>`
 * @param {import('./hold-panel.js').HoldPanel} options.panel
 * @param {(err: unknown) => string} options.explain
 */
export function pricePanel({ api, eventPath, panel, explain }) {
  /** @type {Prices | null} */
  let prices = null;
  /** @type {Map<string, string>} the ticket type chosen for each selected seat */
  const chosen = new Map();

  /** @param {string} seatId */
  /** @param {string} area */
  const areaCategoryOf = (area) => panel.map.areas.get(area)?.category ?? '';
  /**
   * A seat's category; a hold's line of a place ("FLOOR.2", its area and its number in the hold) is its
   * area's.
   * @param {string} seatId
   */
  const categoryOf = (seatId) =>
    panel.map.buttons.get(seatId)?.dataset.category ?? areaCategoryOf(seatId.replace(/\.\d+$/, ''));
  /** @param {string} category */
  const typesOf = (category) => prices?.categories.find((c) => c.category === category)?.ticketTypes ?? [];
  /** @param {number} minor */
  const money = (minor) => formatMoney(minor, prices?.currency ?? 'EUR');

  /** What the page shows of the list: each category's range, in the legend's place. */
  function showRanges() {
    const list = byId('price-ranges');
    list.hidden = prices === null;
    list.replaceChildren(
      ...(prices?.categories ?? []).map((c) => {
        const item = el('li');
        item.dataset.category = c.category;
        item.textContent =
          c.minPrice === undefined
            ? `${c.category}: with a promo code`
            : c.minPrice === c.maxPrice
              ? `${c.category}: ${money(c.minPrice)}`
              : `${c.category}: ${money(c.minPrice)} – ${money(/** @type {number} */ (c.maxPrice))}`;
        return item;
      }),
    );
  }

  /** The seat under the pointer: its category and what each of its ticket types costs. */
  function showSeatPrice(/** @type {Event} */ e) {
    const seat = /** @type {HTMLElement | null} */ (
      /** @type {HTMLElement} */ (e.target).closest?.('.seat[data-seat-id], .area[data-area]')
    );
    if (!seat || !prices) {
      return;
    }
    const types = typesOf(seat.dataset.category ?? '');
    byId('seat-price').textContent =
      `${seat.dataset.seatId ?? seat.dataset.area} · ${seat.dataset.category}: ` +
      (types.length === 0
        ? 'with a promo code only'
        : types.map((t) => `${t.label} ${money(t.price)}`).join(' · '));
  }

  /**
   * A ticket-type picker for one seat.
   * @param {string} seatId
   * @param {string} current
   * @param {(ticketType: string) => void} changed
   */
  function typePicker(seatId, current, changed) {
    const select = /** @type {HTMLSelectElement} */ (el('select'));
    select.setAttribute('aria-label', `Ticket type for ${seatId}`);
    select.dataset.seatId = seatId;
    const types = typesOf(categoryOf(seatId));
    // a hold may carry a type the public list does not show (one a promo code unlocked)
    const shown =
      types.some((t) => t.key === current) || !current
        ? types
        : [...types, { key: current, label: current, price: NaN }];
    for (const t of shown) {
      const option = /** @type {HTMLOptionElement} */ (
        el('option', Number.isNaN(t.price) ? t.label : `${t.label} ${money(t.price)}`)
      );
      option.value = t.key;
      option.selected = t.key === current;
      select.append(option);
    }
    select.disabled = panel.busy;
    select.addEventListener('change', () => changed(select.value));
    return select;
  }

  /** The selection's lines and what they add up to, before the hold. */
  function showPick() {
    const lines = byId('pick-lines');
    const seats = [...panel.selection];
    for (const seatId of [...chosen.keys()]) {
      if (!panel.selection.has(seatId)) {
        chosen.delete(seatId);
      }
    }
    lines.replaceChildren(
      ...seats.map((seatId) => {
        const item = el('li', `${seatId} `);
        item.append(
          typePicker(seatId, chosen.get(seatId) ?? typesOf(categoryOf(seatId))[0]?.key ?? '', (t) => {
            chosen.set(seatId, t);
            render();
          }),
        );
        return item;
      }),
    );
    // places: their category's default ticket type (the first), per place
    const places = panel.placesChosen();
    lines.append(
      ...places.map(({ area, quantity }) => {
        const type = typesOf(areaCategoryOf(area))[0];
        return el(
          'li',
          `${area} × ${quantity}${type ? ` · ${type.label} ${money(type.price * quantity)}` : ''}`,
        );
      }),
    );
    const total =
      seats.reduce((sum, seatId) => {
        const types = typesOf(categoryOf(seatId));
        const key = chosen.get(seatId) ?? types[0]?.key;
        return sum + (types.find((t) => t.key === key)?.price ?? 0);
      }, 0) +
      places.reduce((sum, p) => sum + (typesOf(areaCategoryOf(p.area))[0]?.price ?? 0) * p.quantity, 0);
    byId('pick-total').textContent = seats.length + places.length > 0 ? `Total: ${money(total)}` : '';
  }

  /** The hold's lines as the API priced them, each with its type picker, and its total. */
  function showHold() {
    const hold =
      /** @type {(import('./hold-panel.js').Hold & { lines?: Line[], total?: number, discountTotal?: number, currency?: string }) | null} */ (
        panel.hold
      );
    const lines = byId('hold-lines');
    if (!hold?.lines) {
      lines.replaceChildren();
      byId('hold-total').textContent = '';
      return;
    }
    lines.replaceChildren(
      ...hold.lines.map((line) => {
        const item = el('li', `${line.seatId} `);
        item.append(typePicker(line.seatId, line.ticketType, (t) => void changeLine(line.seatId, t)));
        item.append(el('span', ` ${formatMoney(line.unitPrice - line.discount, hold.currency ?? 'EUR')}`));
        return item;
      }),
    );
    const off = hold.discountTotal ? ` (${formatMoney(hold.discountTotal, hold.currency ?? 'EUR')} off)` : '';
    byId('hold-total').textContent = `Total: ${formatMoney(hold.total ?? 0, hold.currency ?? 'EUR')}${off}`;
  }

  /**
   * @param {string} seatId
   * @param {string} ticketType
   */
  function changeLine(seatId, ticketType) {
    return panel.act(async () => {
      if (!panel.hold) {
        return;
      }
      const changed = await api(
        'PATCH',
        `/v1/holds/${panel.hold.holdId}/lines/${encodeURIComponent(seatId)}`,
        { ticketType },
      );
      panel.startHold(changed);
      say(`${seatId} is now ${ticketType}.`);
    });
  }

  function render() {
    const on = prices !== null && panel.canHold;
    byId('pick-prices').hidden = !on;
    byId('hold-prices').hidden = !on;
    if (on) {
      showPick();
      showHold();
    }
  }

  return {
    async start() {
      try {
        prices = /** @type {Prices} */ (await api('GET', `${eventPath}/prices`));
      } catch (err) {
        prices = null; // no price list (404): a show without prices; anything else is said
        if (!(err instanceof ApiFailure && err.status === 404)) {
          say(explain(err), 'error');
        }
      }
      byId('map').addEventListener('mouseover', showSeatPrice);
      showRanges();
      render();
    },
    render,
    /**
     * A hold's body for the selection: the seats (with the ticket type chosen for each on a priced show)
     * and the places chosen in each general-admission area (priced by the server at their category's
     * default ticket type), either left out when there are none.
     * @param {string[]} seatIds
     * @param {import('./hold-panel.js').Places[]} [places]
     */
    holdBody(seatIds, places = []) {
      const withPlaces = places.length > 0 ? { places } : {};
      if (seatIds.length === 0) {
        return withPlaces;
      }
      if (!prices) {
        return { seatIds, ...withPlaces };
      }
      return {
        seats: seatIds.map((seatId) =>
          chosen.has(seatId) ? { seatId, ticketType: chosen.get(seatId) } : { seatId },
        ),
        ...withPlaces,
      };
    },
  };
}

/** @typedef {ReturnType<typeof pricePanel>} PricePanel */
