import { Inject, Injectable } from '@nestjs/common';
import { LuaScript, REDIS_CLIENT } from '@app/redis';
import Redis from 'ioredis';
import { AppConfig } from '@app/config';
import { HoldLayout } from './hold-keys';
import { HOLD_LUA_DIR, SEAT_MAP_SCRIPTS } from './lua/manifest';

/**
 * A seat's state as the change log records it: 'A' available, 'B' booked, 'H<expireAtMs>' held until
 * then (lazy expiry: AVAILABLE after, whether or not the sweeper ran), 'H0' held while a confirm is in
 * flight. See lua/change-log.lua.
 */
export type SeatCode = string;

/** One change-log entry: the version it made and the seats it changed, flat [seatId, code, ...]. */
export interface SeatChangeEntry {
  version: number;
  seats: string[];
}

export interface SeatChanges {
  /** Redis TIME (ms) when read. */
  nowMs: number;
  /** The event's current version (0 before its first change). */
  version: number;
  /**
   * The log's identity, made with its first entry: versions of another epoch are of a log Redis lost
   * ('' before the first entry, or for a log written before epochs).
   */
  epoch: string;
  /** Seats the seats hash holds as 'H' (lapsed holds included) and as 'B', kept by every script. */
  held: number;
  booked: number;
  /** Entries after the version asked for, oldest first, at most as many as asked for. */
  entries: SeatChangeEntry[];
  /** With nothing newer than the version asked for: the areas at the version (SeatMapHead.areas). */
  areas?: string[];
}

export interface SeatScanPage {
  /** '0' when the scan is complete. */
  cursor: string;
  /** The seats of this chunk that are not free, flat [seatId, code, ...]. */
  seats: string[];
}

/** A head start on a build: where the change log is before the first scan chunk is read. */
export interface SeatMapHead {
  version: number;
  epoch: string;
  nowMs: number;
  /**
   * The event's general-admission areas at this version, as the log's '@<area>' fields carry them
   * (name, "capacity|held|booked|blocked", flat): lua/places.lua.
   */
  areas: string[];
}

const SCRIPTS = {
  changes: new LuaScript(HOLD_LUA_DIR, SEAT_MAP_SCRIPTS.seatMapChanges),
  holdStatuses: new LuaScript(HOLD_LUA_DIR, SEAT_MAP_SCRIPTS.seatMapHoldStatuses),
  setCounts: new LuaScript(HOLD_LUA_DIR, SEAT_MAP_SCRIPTS.seatMapSetCounts),
};

/**
 * Read side of the seat-map change log (the hold scripts write it, lua/change-log.lua): what seat-map
 * snapshots use instead of reading every seat. Each method is one small script on one event's keys (its
 * shard's hash tag, so it works on Redis Cluster).
 */
@Injectable()
export class SeatChangeLog {
  private readonly layout: HoldLayout;

  constructor(
    @Inject(REDIS_CLIENT) private readonly redis: Redis,
    config: AppConfig,
  ) {
    this.layout = new HoldLayout(config.holds.shards);
  }

  /** The entries after `fromVersion` (at most `max`), with the current version, counts and Redis time. */
  async changesSince(eventId: string, fromVersion: number, max: number): Promise<SeatChanges> {
    const { meta, changes } = this.layout.eventKeys(eventId);
    const r = (await SCRIPTS.changes.run(this.redis, { meta, changes }, { fromVersion, max })) as [
      number,
      number,
      number,
      number,
      string,
      [string, string[]][]?,
      string[]?,
    ];
    return {
      nowMs: Number(r[0]),
      version: Number(r[1]),
      epoch: String(r[4]),
      held: Number(r[2]),
      booked: Number(r[3]),
      entries: (r[5] ?? []).map(([id, seats]) => ({ version: Number(id.slice(0, id.indexOf('-'))), seats })),
      areas: r[6] ?? [],
    };
  }

  /** The current version and Redis time: read before a build's first chunk. */
  async head(eventId: string): Promise<SeatMapHead> {
    const c = await this.changesSince(eventId, Number.MAX_SAFE_INTEGER, 0);
    return { version: c.version, epoch: c.epoch, nowMs: c.nowMs, areas: c.areas ?? [] };
  }

  /**
   * One chunk (about `count` seats) of a full scan from `cursor` ('0' to start), in change-log codes: a
   * plain HSCAN (never HGETALL, so Redis is busy for one chunk at a time, whatever the event's size),
   * parsed here rather than in Lua to keep Redis's share small. A held seat of a hold being confirmed must
   * read 'H0', and its seat value does not say so: such a seat's expireAt is its confirm deadline, at most
   * `confirmWindowMs` (CONFIRM_TIMEOUT_MS plus a margin) after `nowMs`, so only the held seats due by then
   * have their hold's status read (one small script per chunk, usually none).
   */
  async scan(
    eventId: string,
    cursor: string,
    count: number,
    nowMs: number,
    confirmWindowMs: number,
  ): Promise<SeatScanPage> {
    const [next, flat] = await this.redis.hscan(this.layout.eventKeys(eventId).seats, cursor, 'COUNT', count);
    const seats: string[] = [];
    const unsure = new Map<string, number[]>(); // hid -> positions in `seats` of codes that may be 'H0'
    for (let i = 0; i < flat.length; i += 2) {
      const value = flat[i + 1];
      if (value.startsWith('B')) {
        seats.push(flat[i], 'B');
      } else if (value.startsWith('H')) {
        // "H|hid|expireAt|fence"
        const [, hid, exp] = value.split('|');
        seats.push(flat[i], `H${exp}`);
        if (Number(exp) <= nowMs + confirmWindowMs) {
          unsure.set(hid, [...(unsure.get(hid) ?? []), seats.length - 1]);
        }
      }
    }
    if (unsure.size > 0) {
      const hids = [...unsure.keys()];
      const { meta, holds } = this.layout.eventKeys(eventId);
      const statuses = (await SCRIPTS.holdStatuses.run(this.redis, { meta, holds }, { hids })) as string[];
      statuses.forEach((status, k) => {
        if (status === 'CONFIRMING') {
          unsure.get(hids[k])!.forEach((at) => (seats[at] = 'H0'));
        }
      });
    }
    return { cursor: String(next), seats };
  }

  /** Corrects the kept counts to what a full build found at `version`; false if the version moved on. */
  async setCounts(eventId: string, version: number, held: number, booked: number): Promise<boolean> {
    const { meta } = this.layout.eventKeys(eventId);
    return Number(await SCRIPTS.setCounts.run(this.redis, { meta }, { version, held, booked })) === 1;
  }
}
