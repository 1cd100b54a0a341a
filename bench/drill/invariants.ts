/**
 * What must hold after every fault, checked against the stores themselves (not the service's word):
 * PostgreSQL bookings and expiry history, Redis seat states and outboxes, and the Kafka topic as an
 * independent consumer reads it.
 */
import Redis from 'ioredis';
import { Client } from 'pg';
import { HoldLedgerEntry } from './shoppers';
import { HoldLayout } from '../../apps/seat-api/src/hold-store/hold-keys';

/** The services' hold-store layout (they run with the default HOLD_SHARDS). The drill's event is alone in its shard. */
export const DRILL_LAYOUT = new HoldLayout(64);

export interface Findings {
  /** problems found; empty means every invariant held */
  problems: string[];
  counts: Record<string, number>;
}

export async function checkInvariants(p: {
  pg: Client;
  schema: string;
  redis: Redis;
  eventId: string;
  ledger: Map<string, HoldLedgerEntry>;
  /** CloudEvent ids of every SeatExpired on the topic, duplicates included */
  topicIds: string[];
}): Promise<Findings> {
  const problems: string[] = [];
  const q = async (sql: string) => (await p.pg.query(sql, [p.eventId])).rows as Record<string, string>[];
  const s = `"${p.schema}"`;

  // bookings: a seat is booked at most once (the primary key says so; check anyway) ...
  const booked = await q(
    `SELECT bs.seat_id, count(*)::int AS n FROM ${s}.booking_seats bs JOIN ${s}.bookings b ON b.id = bs.booking_id
      WHERE bs.event_id = $1 AND b.status = 'CONFIRMED' GROUP BY bs.seat_id`,
  );
  const doubleBooked = booked.filter((r) => Number(r.n) > 1);
  if (doubleBooked.length) {
    problems.push(`${doubleBooked.length} seat(s) booked twice`);
  }
  const bookedSeats = new Set(booked.map((r) => r.seat_id));

  // ... and Redis agrees with PostgreSQL: every booked seat is BOOKED, no seat is still held
  const seatHash = await p.redis.hgetall(DRILL_LAYOUT.eventKeys(p.eventId).seats);
  const redisBooked = new Set(
    Object.entries(seatHash)
      .filter(([, v]) => v.startsWith('B'))
      .map(([k]) => k),
  );
  const stillHeld = Object.entries(seatHash).filter(([, v]) => v.startsWith('H|')).length;
  const bookedNotInRedis = [...bookedSeats].filter((x) => !redisBooked.has(x));
  const bookedOnlyInRedis = [...redisBooked].filter((x) => !bookedSeats.has(x));
  if (bookedNotInRedis.length || bookedOnlyInRedis.length) {
    problems.push(
      `Redis and PostgreSQL disagree on booked seats: ${bookedNotInRedis.length} booked only in PostgreSQL, ${bookedOnlyInRedis.length} only in Redis`,
    );
  }

  // expiry history: one row per (hold, seat), never for a seat of a confirmed booking
  const history = await q(
    `SELECT hold_id, seat_id, event_message_id FROM ${s}.hold_expiries WHERE event_id = $1`,
  );
  const rowKeys = history.map((r) => `${r.hold_id}/${r.seat_id}`);
  const duplicateRows = rowKeys.length - new Set(rowKeys).size;
  if (duplicateRows) {
    problems.push(`${duplicateRows} duplicate expiry history row(s)`);
  }
  const confirmedHolds = new Set(
    (await q(`SELECT hold_id FROM ${s}.bookings WHERE event_id = $1 AND status = 'CONFIRMED'`)).map(
      (r) => r.hold_id,
    ),
  );
  const expiredButBooked = history.filter((r) => confirmedHolds.has(r.hold_id)).length;
  if (expiredButBooked) {
    problems.push(`${expiredButBooked} seat(s) both expired and booked under the same hold`);
  }

  // every hold the client saw and then left alone (or saw refused as expired) expired: one row per seat
  const expiredKeys = new Set(rowKeys);
  let lost = 0;
  let mustExpire = 0;
  let confirmedMissing = 0;
  for (const h of p.ledger.values()) {
    if (h.fate === 'held' || h.fate === 'expired') {
      for (const seat of h.seatIds) {
        mustExpire++;
        lost += expiredKeys.has(`${h.holdId}/${seat}`) ? 0 : 1;
      }
    }
    if (h.fate === 'confirmed' && !confirmedHolds.has(h.holdId)) {
      confirmedMissing++;
    }
  }
  if (lost) {
    problems.push(`${lost} expired seat(s) without a history row (lost SeatExpired)`);
  }
  if (confirmedMissing) {
    problems.push(`${confirmedMissing} confirm(s) answered 201 without a CONFIRMED booking`);
  }

  // the topic: every history row came from a message on it; duplicates there are absorbed by the consumer
  const onTopic = new Set(p.topicIds);
  const rowsWithoutMessage = history.filter((r) => !onTopic.has(r.event_message_id)).length;
  const messagesWithoutRow = [...onTopic].filter(
    (id) => id.startsWith(`${p.eventId}:`) && !history.some((r) => r.event_message_id === id),
  ).length;
  if (rowsWithoutMessage || messagesWithoutRow) {
    problems.push(
      `${rowsWithoutMessage} row(s) without a message, ${messagesWithoutRow} message(s) without a row`,
    );
  }

  // what the clients were told: no seat in two holds at once, no seat held after it was booked
  const { twoHolds, heldAfterBooked, examples } = clientSeenOverlaps(p.ledger);
  if (twoHolds) {
    problems.push(`${twoHolds} time(s) a seat was in two holds at once (both answered 201, neither ended)`);
  }
  if (heldAfterBooked) {
    problems.push(`${heldAfterBooked} hold(s) answered 201 on a seat already booked`);
  }
  problems.push(...examples.slice(0, 5));

  // the outbox drained
  const outbox = await p.redis.xlen(DRILL_LAYOUT.shardKeys(DRILL_LAYOUT.shardOf(p.eventId)).outbox);
  if (outbox) {
    problems.push(`outbox still holds ${outbox} record(s)`);
  }
  if (stillHeld) {
    problems.push(`${stillHeld} seat(s) still held after every hold should have expired`);
  }
  return {
    problems,
    counts: {
      'seats booked': bookedSeats.size,
      'expiry rows': history.length,
      'SeatExpired on topic (distinct)': onTopic.size,
      'SeatExpired on topic (duplicates, absorbed)': p.topicIds.length - onTopic.size,
      'seats the client left to expire': mustExpire,
      'lost (no history row)': lost,
      'duplicate history rows': duplicateRows,
      'seats still held': stillHeld,
      'seat in two holds at once (client-seen)': twoHolds,
      'hold on a seat already booked (client-seen)': heldAfterBooked,
      '201 answered only after the hold had expired (left out of the two checks above)': [
        ...p.ledger.values(),
      ].filter((h) => h.heldUntil <= h.heldFrom).length,
      'outbox records left': outbox,
    },
  };
}

/**
 * Intervals clients were sure of (shoppers.ts): a hold certainly held its seats from its 201 answer until
 * the earliest of its expiresAt and the sending of its release or confirm; a confirmed booking certainly
 * holds them from its answer on. Two such intervals of one seat that overlap by more than `slackMs` (the
 * service's and the drill's clocks are the machine's one clock; the slack covers the ms rounding) mean a
 * seat was in two holds, or held after it was booked: e.g. an acknowledged hold lost in a failover.
 */
export function clientSeenOverlaps(
  ledger: Map<string, HoldLedgerEntry>,
  slackMs = 20,
): { twoHolds: number; heldAfterBooked: number; examples: string[] } {
  const bySeat = new Map<string, HoldLedgerEntry[]>();
  for (const h of ledger.values()) {
    // a 201 that arrived after the hold's expiresAt (its instance was paused in between) promised nothing
    if (h.heldUntil <= h.heldFrom) {
      continue;
    }
    for (const seat of h.seatIds) {
      bySeat.set(seat, [...(bySeat.get(seat) ?? []), h]);
    }
  }
  const at = (ms: number) => new Date(ms).toISOString().slice(11, 23);
  const show = (h: HoldLedgerEntry) => `${h.holdId} (sure from ${at(h.heldFrom)} to ${at(h.heldUntil)})`;
  const examples: string[] = [];
  let twoHolds = 0;
  let heldAfterBooked = 0;
  for (const [seat, holds] of bySeat) {
    holds.sort((a, b) => a.heldFrom - b.heldFrom);
    let longest: HoldLedgerEntry | undefined;
    let booked: HoldLedgerEntry | undefined;
    for (const h of holds) {
      if (longest && h.heldFrom + slackMs < longest.heldUntil) {
        twoHolds++;
        examples.push(`seat ${seat}: ${show(longest)} and ${show(h)}`);
      }
      if (booked && h.heldUntil > booked.bookedFrom! + slackMs) {
        heldAfterBooked++;
        examples.push(
          `seat ${seat}: booked by ${booked.holdId} at ${at(booked.bookedFrom!)}, then ${show(h)}`,
        );
      }
      if (!longest || h.heldUntil > longest.heldUntil) {
        longest = h;
      }
      if (h.bookedFrom !== undefined && (!booked || h.bookedFrom < booked.bookedFrom!)) {
        booked = h;
      }
    }
  }
  return { twoHolds, heldAfterBooked, examples };
}
