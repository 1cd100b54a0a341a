// @ts-check
/**
 * The seat API as the page calls it: JSON over fetch with the user's token, a refusal as an ApiFailure
 * carrying the API's error envelope, and the sentence that tells the user what a failure means.
 */

/** A refused call, carrying the API's error envelope `{ statusCode, code, message, errors? }`. */
export class ApiFailure extends Error {
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
 * @typedef {(method: string, path: string, body?: unknown, extraHeaders?: Record<string, string>) => Promise<any>} Api
 */

/**
 * @param {string} token the user's JWT; empty: calls go without one (the public seat map only)
 * @returns {Api}
 */
export function apiClient(token) {
  return async (method, path, body, extraHeaders = {}) => {
    /** @type {Record<string, string>} */
    const headers = { ...extraHeaders, accept: 'application/json' };
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
  };
}

/**
 * @param {unknown} err
 * @param {boolean} demoEvent whether the page shows the demo event (a 404 then means it was not seeded)
 */
export function explain(err, demoEvent) {
  if (!(err instanceof ApiFailure)) {
    return `Cannot reach the service (${err instanceof Error ? err.message : String(err)}).`;
  }
  const { code, message, errors } = err.body;
  const shortage = (errors ?? []).find((e) => !e.seatId)?.reason;
  if (code === 'SEATS_UNAVAILABLE' && shortage === 'SOLD_OUT') {
    return 'Sold out: no seat left to hold.';
  }
  if (code === 'SEATS_UNAVAILABLE' && shortage === 'NOT_ENOUGH_TOGETHER') {
    const apart = (errors ?? []).some((e) => /** @type {{ splitAvailable?: boolean }} */ (e).splitAvailable);
    return `Not that many seats side by side in one row.${apart ? ' Pick seats apart on the map.' : ''}`;
  }
  if (code === 'SEATS_UNAVAILABLE') {
    const alone = (errors ?? []).find((e) => e.reason === 'ORPHAN_SEAT');
    if (alone) {
      return `That would leave ${alone.seatId} alone in its row: take it too, or pick other seats.`;
    }
    const seats = (errors ?? []).map((e) => `${e.seatId} (${(e.reason ?? 'taken').toLowerCase()})`);
    return `Not available any more: ${seats.join(', ')}. Pick other seats.`;
  }
  if (code === 'SOLD_OUT') {
    return `${message ?? 'Too few places free'}: choose fewer places.`;
  }
  if (code === 'QUEUE_REQUIRED') {
    return 'Sales of this event go through its queue: you are taking your place in it.';
  }
  if (err.status === 401) {
    return 'Your token was refused (expired?). Open the link the service printed at start.';
  }
  if (err.status === 404 && code === 'EVENT_NOT_FOUND' && demoEvent) {
    return 'No demo event here: start the service with SEED_DEMO_EVENT=true, or open /#token=…&event=<eventId>.';
  }
  const retry = err.retryAfter ? ` Try again in ${err.retryAfter} s.` : '';
  return `${message ?? 'Request refused'} (${code ?? err.status}).${retry}`;
}
