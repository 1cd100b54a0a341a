// @ts-check
import { describeTaken } from './hold-panel.js';
import { byId, formatSeconds, newOrderId, say } from './page.js';

/** @typedef {import('./hold-panel.js').Hold} Hold */
/** @typedef {{ seatIds: string[], places?: import('./hold-panel.js').Places[], orderId: string }} Booking */

/**
 * The four things a user does with seats, each one API call run through the panel's `act` (controls
 * disabled meanwhile; a refusal explained and applied by the panel), plus bringing a hold back after a
 * reload.
 * @param {import('./hold-panel.js').HoldPanel} panel
 * @param {import('./api-client.js').Api} api
 * @param {string} eventPath `/v1/events/<eventId>`
 * @param {import('./queue-screen.js').QueueScreen} queue the event's on-sale queue, which gates new holds
 * @param {import('./prices.js').PricePanel} prices the seats' ticket types, on a priced show
 */
export function holdActions(panel, api, eventPath, queue, prices) {
  /**
   * A new hold (seats, or best available): while the event's queue is open it carries the admission pass
   * of this user's turn, and a refusal by the queue (no pass, or one that takes no more holds) goes to it.
   * @param {{ seatIds?: string[], seats?: { seatId: string, ticketType?: string }[], places?: import('./hold-panel.js').Places[] } | { bestAvailable: { quantity: number } }} body
   * @returns {Promise<Hold>}
   */
  const createHold = async (body) => {
    try {
      return await api('POST', `${eventPath}/holds`, body, queue.passHeaders());
    } catch (err) {
      queue.refused(err);
      throw err;
    }
  };

  /** The selection: the seats picked and the places chosen in each area, in one hold (all or none). */
  const holdSeats = () =>
    panel.act(async () => {
      const seatIds = [...panel.selection];
      const places = panel.placesChosen();
      const created = await createHold(prices.holdBody(seatIds, places));
      panel.selection.clear();
      panel.places.clear();
      panel.holdTtl = Math.round((Date.parse(created.expiresAt) - Date.parse(created.createdAt)) / 1000);
      panel.startHold(created);
      say(`Held ${describeTaken(seatIds, places)} for ${formatSeconds(created.expiresInSeconds)}.`);
    });

  /** The service picks: `quantity` seats side by side in one row, the best the layout has. */
  const holdBest = (/** @type {number} */ quantity) =>
    panel.act(async () => {
      const created = await createHold({ bestAvailable: { quantity } });
      panel.selection.clear();
      panel.holdTtl = Math.round((Date.parse(created.expiresAt) - Date.parse(created.createdAt)) / 1000);
      panel.startHold(created);
      say(
        `Best available: held ${created.seatIds.join(', ')} for ${formatSeconds(created.expiresInSeconds)}.`,
      );
    });

  const extendHold = () =>
    panel.act(async () => {
      if (!panel.hold) {
        return;
      }
      /** @type {Hold} */
      const extended = await api('POST', `/v1/holds/${panel.hold.holdId}/extend`, {
        ttlSeconds: panel.holdTtl,
      });
      panel.startHold(extended);
      say(`Extended: ${formatSeconds(extended.expiresInSeconds)} left.`);
    });

  const releaseHold = () =>
    panel.act(async () => {
      const { hold } = panel;
      if (!hold) {
        return;
      }
      await api('DELETE', `/v1/holds/${hold.holdId}`);
      panel.endHold(`Released ${describeTaken(hold.seatIds, hold.places)}.`);
    });

  const confirmHold = () =>
    panel.act(async () => {
      if (!panel.hold) {
        return;
      }
      const input = /** @type {HTMLInputElement} */ (byId('order-id'));
      /** @type {Booking} */
      const booking = await api('POST', `/v1/holds/${panel.hold.holdId}/confirm`, { orderId: input.value });
      booking.seatIds.forEach((seatId) => panel.booked.add(seatId));
      panel.endHold(`Booked ${describeTaken(booking.seatIds, booking.places)} for order ${booking.orderId}.`);
      input.value = newOrderId();
    });

  /** After a reload, this user's hold (if still active) comes back with its countdown. */
  const restoreHold = async () => {
    const holdId = sessionStorage.getItem(panel.holdKey);
    if (!panel.canHold || !holdId) {
      return;
    }
    try {
      /** @type {Hold} */
      const saved = await api('GET', `/v1/holds/${encodeURIComponent(holdId)}`);
      if (saved.status === 'ACTIVE' && saved.expiresInSeconds > 0 && !panel.hold) {
        panel.startHold(saved);
        return;
      }
    } catch {
      // gone or not ours any more: nothing to restore
    }
    sessionStorage.removeItem(panel.holdKey);
  };

  return { holdSeats, holdBest, extendHold, releaseHold, confirmHold, restoreHold };
}
