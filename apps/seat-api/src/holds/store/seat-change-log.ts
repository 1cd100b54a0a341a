import { Inject, Injectable } from '@nestjs/common';
import { REDIS_CLIENT } from '@app/redis';
import Redis from 'ioredis';
import { AppConfig } from '@app/config';
import { HoldLayout } from './hold-keys';
import { SEAT_MAP_CHANGES, SEAT_MAP_SCAN, SEAT_MAP_SET_COUNTS } from './lua/seat-map.lua';

/**
 * A seat's state as the change log records it: 'A' available, 'B' booked, 'H<expireAtMs>' held until
 * then (lazy expiry: AVAILABLE after, whether or not the sweeper ran), 'H0' held while a confirm is in
 * flight. See lua/change-log.lua.ts.
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
  /** Seats the seats hash holds as 'H' (lapsed holds included) and as 'B', kept by every script. */
  held: number;
  booked: number;
  /** Entries after the version asked for, oldest first, at most as many as asked for. */
  entries: SeatChangeEntry[];
}

export interface SeatScanPage {
  /** '0' when the scan is complete. */
  cursor: string;
  version: number;
  nowMs: number;
  /** The seats of this chunk that are not free, flat [seatId, code, ...]. */
  seats: string[];
}

type Runner = (...args: (string | number)[]) => Promise<unknown>;

/**
 * Read side of the seat-map change log (the hold scripts write it, lua/change-log.lua.ts): what seat-map
 * snapshots use instead of reading every seat. Each method is one small script on one event's keys (its
 * shard's hash tag, so it works on Redis Cluster).
 */
@Injectable()
export class SeatChangeLog {
  private readonly run: Record<'changes' | 'scan' | 'setCounts', Runner>;
  private readonly layout: HoldLayout;

  constructor(@Inject(REDIS_CLIENT) redis: Redis, config: AppConfig) {
    this.layout = new HoldLayout(config.holds.shards);
    const scripts = {
      seatMapChanges: SEAT_MAP_CHANGES,
      seatMapScan: SEAT_MAP_SCAN,
      seatMapSetCounts: SEAT_MAP_SET_COUNTS,
    };
    for (const [name, lua] of Object.entries(scripts)) {
      if (!(name in redis)) {
        redis.defineCommand(name, { numberOfKeys: 4, lua });
      }
    }
    const fn = (name: keyof typeof scripts): Runner => {
      const command = (redis as unknown as Record<string, Runner>)[name];
      return (...args) => command.call(redis, ...args);
    };
    this.run = { changes: fn('seatMapChanges'), scan: fn('seatMapScan'), setCounts: fn('seatMapSetCounts') };
  }

  /** The entries after `fromVersion` (at most `max`), with the current version, counts and Redis time. */
  async changesSince(eventId: string, fromVersion: number, max: number): Promise<SeatChanges> {
    const r = (await this.run.changes(...this.keys(eventId), fromVersion, max)) as [
      number,
      number,
      number,
      number,
      [string, string[]][]?,
    ];
    return {
      nowMs: Number(r[0]),
      version: Number(r[1]),
      held: Number(r[2]),
      booked: Number(r[3]),
      entries: (r[4] ?? []).map(([id, seats]) => ({ version: Number(id.slice(0, id.indexOf('-'))), seats })),
    };
  }

  /** One chunk (about `count` seats) of a full scan, from `cursor` ('0' to start). */
  async scan(eventId: string, cursor: string, count: number): Promise<SeatScanPage> {
    const r = (await this.run.scan(...this.keys(eventId), cursor, count)) as [
      string,
      number,
      number,
      string[],
    ];
    return { cursor: String(r[0]), version: Number(r[1]), nowMs: Number(r[2]), seats: r[3] };
  }

  /** Corrects the kept counts to what a full build found at `version`; false if the version moved on. */
  async setCounts(eventId: string, version: number, held: number, booked: number): Promise<boolean> {
    return Number(await this.run.setCounts(...this.keys(eventId), version, held, booked)) === 1;
  }

  private keys(eventId: string): string[] {
    const k = this.layout.eventKeys(eventId);
    return [k.meta, k.changes, k.seats, k.holds];
  }
}
