/**
 * Uncontended hold load over HTTP, shared by bench:http (service vs floor) and bench:cluster (one Redis
 * vs a Redis Cluster): each request holds 1-4 distinct free seats of 10,000-seat events.
 */
import { seatId } from '../support/service';
import { load, LoadResult, share } from '../support/load';

export const SEATS_PER_EVENT = 10_000;

export interface Target {
  name: string;
  base: string;
  /** headers that authenticate `user` (a JWT for the service, a plain header for the floor) */
  auth(user: number): Record<string, string>;
  newEvent(seats: number): Promise<string>;
}

/** Hands out 1-4 distinct seats no other request got, moving to the next event when one is used up. */
export class FreshSeats {
  private event = 0;
  private cursor = 0;
  private n = 0;
  /** Every seat was handed out once: later requests ask for held seats and get 409s. */
  ranOut = false;
  constructor(private readonly events: string[]) {}

  next(): { eventId: string; seatIds: string[] } {
    const count = 1 + (this.n++ % 4);
    if (this.cursor + count > SEATS_PER_EVENT) {
      this.event = (this.event + 1) % this.events.length;
      this.ranOut ||= this.event === 0;
      this.cursor = 0;
    }
    const seatIds = Array.from({ length: count }, (_, k) => seatId(this.cursor + k));
    this.cursor += count;
    return { eventId: this.events[this.event], seatIds };
  }
}

/**
 * `n` new events of SEATS_PER_EVENT seats for a run. A sale's event is warm: with `readSeatMap` its seat
 * map is read once, so the service has its catalogue cached (a target without a seat map, like the
 * floor, passes false).
 */
export async function newEvents(target: Target, n: number, readSeatMap = true): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = await target.newEvent(SEATS_PER_EVENT);
    if (readSeatMap) {
      await fetch(`${target.base}/v1/events/${id}/seats`, { headers: target.auth(0) });
    }
    ids.push(id);
  }
  return ids;
}

export function holdRequest(target: Target, user: number, eventId: string, seatIds: string[]) {
  return {
    method: 'POST',
    path: `/v1/events/${eventId}/holds`,
    headers: { 'content-type': 'application/json', ...target.auth(user) },
    body: JSON.stringify({ seatIds }),
  };
}

/** FreshSeats asks for 1, 2, 3, 4, 1, ... seats in turn. */
const MEAN_SEATS_PER_REQUEST = 2.5;

/**
 * Events enough for one run of `seconds` at `requestsPerSecond` with twice the room: a run that runs out
 * of seats turns holds into 409s and caps holds/s at the seats provided, which would measure the bench.
 */
export const eventsForRate = (requestsPerSecond: number, seconds: number) =>
  Math.ceil((requestsPerSecond * seconds * 2 * MEAN_SEATS_PER_REQUEST) / SEATS_PER_EVENT) + 1;

export async function uncontended(
  target: Target,
  events: string[],
  seconds: number,
  rate?: number,
): Promise<LoadResult & { ranOut: boolean }> {
  const seats = new FreshSeats(events);
  let user = 0;
  const result = await load({
    url: target.base,
    connections: rate ? 100 : 32,
    durationSeconds: seconds,
    rate,
    next: () => {
      const { eventId, seatIds } = seats.next();
      return holdRequest(target, user++ % 5000, eventId, seatIds);
    },
  });
  return { ...result, ranOut: seats.ranOut };
}

export const holdsPerSecond = (r: LoadResult) => Math.round((r.statuses[201] ?? 0) / r.seconds);
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One report row of a load run: requests, holds/s, latency percentiles, 409 share, every status's count. */
export const loadRow = (name: string, r: LoadResult): (string | number)[] => [
  name,
  r.requests,
  holdsPerSecond(r),
  r.latencyMs.p50,
  r.latencyMs.p99,
  r.latencyMs.p999,
  `${share(r, 409).toFixed(1)} %`,
  Object.entries(r.statuses)
    .map(([s, n]) => `${s}×${n}`)
    .join(' '),
];

/**
 * A flash sale: 500 connections (500 users) fighting for seats of one new 1,000-seat event for `seconds`.
 * `body` is what a request asks for; by default 1-4 seats picked at random. Returns the load's result and
 * the seats in 201 answers (a seat in two of them would be a seat sold twice).
 */
export async function flashSale(
  target: Target,
  seconds: number,
  body: () => unknown = () => {
    const wanted = new Set<string>();
    const count = 1 + Math.floor(Math.random() * 4);
    while (wanted.size < count) {
      wanted.add(seatId(Math.floor(Math.random() * 1000)));
    }
    return { seatIds: [...wanted] };
  },
) {
  const eventId = await target.newEvent(1000);
  let user = 0;
  const granted: string[] = [];
  const result = await load({
    url: target.base,
    connections: 500,
    durationSeconds: seconds,
    next: () => ({
      method: 'POST',
      path: `/v1/events/${eventId}/holds`,
      headers: { 'content-type': 'application/json', ...target.auth(user++ % 500) },
      body: JSON.stringify(body()),
    }),
    onResponse: (status, body) => {
      if (status === 201) {
        granted.push(...(JSON.parse(body) as { seatIds: string[] }).seatIds);
      }
    },
  });
  return {
    result,
    eventId,
    granted: granted.length,
    grantedSeats: granted,
    duplicates: granted.length - new Set(granted).size,
  };
}
