// @ts-check
/** Small helpers over the page's own elements (index.html) and the texts it shows. */

/** @param {string} id */
export const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** @param {string} id */
export const button = (id) => /** @type {HTMLButtonElement} */ (document.getElementById(id));

/**
 * The status line under the panel.
 * @param {string} text
 * @param {'info' | 'error'} [kind]
 */
export function say(text, kind = 'info') {
  const box = byId('message');
  box.textContent = text;
  box.dataset.kind = kind;
}

/** @param {import('./seat-map.js').LiveState} state the seat-map stream's state, in the header */
export function setLive(state) {
  const live = byId('live');
  live.dataset.state = state;
  live.textContent = state.endsWith('connecting') ? `${state}…` : state;
}

/** @param {number} seconds */
export function formatSeconds(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * A wait, roughly (a queue's estimate is no better): "less than a minute", "about 4 min", "about 2 h 5 min".
 * @param {number} seconds
 */
export function formatWait(seconds) {
  const minutes = Math.round(seconds / 60);
  if (minutes < 1) {
    return 'less than a minute';
  }
  return minutes < 60 ? `about ${minutes} min` : `about ${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/** @param {string} iso a time the API gave, as the user's clock reads it */
export function formatTime(iso) {
  return new Date(iso).toLocaleTimeString();
}

/**
 * The token's subject, for display only (the server checks the signature).
 * @param {string} token
 */
export function userName(token) {
  try {
    const payload = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    return String(JSON.parse(atob(payload)).sub ?? '?');
  } catch {
    return '?';
  }
}

export function newOrderId() {
  return `order-${crypto.getRandomValues(new Uint32Array(1))[0].toString(36)}`;
}
