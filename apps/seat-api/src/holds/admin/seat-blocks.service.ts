import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { currentLock, DistributedLock } from '@app/distributed-lock';
import { SeatBlockEntity } from '@app/database';
import { AuditAction } from '../../audit/audit-action';
import { ActionRefused, AuditedActions } from '../../audit/audited-actions';
import { blockAreaPlaces, blockSeatRows, unblockSeatRows } from '../../audit/prepared-changes';
import { AuthUser } from '../../auth/auth-user';
import { CatalogueService } from '../../catalogue/catalogue.service';
import { DomainError } from '../../common/errors/domain-error';
import { ErrorCode } from '../../common/errors/error-code';
import { StaffHoldStore } from '../../hold-store';
import { areasNotFound, busy, lockLostAsBusy, seatsNotFound, soldOut, staleFence } from '../hold-errors';
import { SEAT_LOCK, SeatLockHost, SeatLockSettings } from '../seat-lock';
import { BlockedSeatsView, PlaceBlockView, SeatBlockView } from './dto/seat-block.dto';

const givenUp = () => busy('The change took too long and was given up; nothing was done. Try again');

/**
 * Admins take seats off sale (production kills, house seats) and put them back, all or none, with a
 * reason. PostgreSQL (seat_blocks) is the record and Redis is repaired from it at an event's first load,
 * as booked seats are. Each is one audited action over both stores (AuditedActions, prepared-changes.ts):
 * the seat_blocks rows change in the transaction of the PENDING entry, then one Redis script changes the
 * seats (block-seats.lua / unblock-seats.lua) and marks the action applied; an action refused or given up
 * takes the rows back with its entry. Under the seats' lock, so a block and a hold of one seat never both
 * win: a seat held (or booked) is refused 409, to be released (or cancelled) first.
 */
@Injectable()
export class SeatBlocksService implements SeatLockHost {
  private readonly logger = new Logger('SeatBlocks');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly catalogue: CatalogueService,
    private readonly staff: StaffHoldStore,
    private readonly audited: AuditedActions,
    /** Read by SEAT_LOCK (seat-lock.ts) on each locked call. */
    readonly seatLock: SeatLockSettings,
  ) {}

  async block(actor: AuthUser, eventId: string, seatIds: string[], reason: string): Promise<SeatBlockView> {
    const sorted = await this.knownSeats(eventId, seatIds);
    await this.locked(eventId, sorted, actor, reason, true);
    this.logger.log({ msg: 'seats blocked', eventId, seats: sorted.length, actor: actor.id });
    return { eventId, seatIds: sorted, status: 'BLOCKED' };
  }

  async unblock(actor: AuthUser, eventId: string, seatIds: string[], reason: string): Promise<SeatBlockView> {
    const sorted = await this.knownSeats(eventId, seatIds);
    await this.locked(eventId, sorted, actor, reason, false);
    this.logger.log({ msg: 'seats unblocked', eventId, seats: sorted.length, actor: actor.id });
    return { eventId, seatIds: sorted, status: 'AVAILABLE' };
  }

  /**
   * Takes `quantity` places of general-admission area `area` off sale (`block`) or puts them back, with a
   * reason, as one audited action: event_areas.blocked changes with its PENDING entry, the area's count in
   * Redis with its mark (block-places.lua). Under a lock of the area's own (`@<area>`), so two changes of
   * one area's blocks run one at a time; holds of places take no lock, the Lua step decides.
   */
  async blockPlaces(
    actor: AuthUser,
    eventId: string,
    area: string,
    quantity: number,
    reason: string,
    block: boolean,
  ): Promise<PlaceBlockView> {
    const seats = await this.catalogue.requireSeats(eventId);
    if (!seats.areas.has(area)) {
      throw areasNotFound([area]);
    }
    await this.audited.settle(eventId);
    try {
      await this.lockedPlaces(eventId, [`@${area}`], area, quantity, actor, reason, block);
    } catch (e) {
      throw lockLostAsBusy(e);
    }
    this.logger.log({
      msg: block ? 'places blocked' : 'places unblocked',
      eventId,
      area,
      quantity,
      actor: actor.id,
    });
    return { eventId, area, quantity, status: block ? 'BLOCKED' : 'AVAILABLE' };
  }

  @DistributedLock(SEAT_LOCK)
  private async lockedPlaces(
    eventId: string,
    lockKeys: string[],
    area: string,
    quantity: number,
    actor: AuthUser,
    reason: string,
    block: boolean,
  ): Promise<void> {
    const lock = currentLock(); // here, before any await (see currentLock)
    const record = {
      eventId,
      actor: actor.id,
      action: block ? AuditAction.PLACES_BLOCK : AuditAction.PLACES_UNBLOCK,
      target: area,
      reason,
      // seatIds: the area's lock key, by which a PENDING entry of it is found under that lock
      detail: { area, quantity, seatIds: lockKeys },
    };
    await this.audited.run(
      record,
      async (_id, action) => {
        lock.assertValid();
        const r = await this.staff.blockPlaces({ eventId, area, quantity, block, action });
        if (r.ok) {
          return;
        }
        switch (r.error) {
          case 'SOLD_OUT':
            throw new ActionRefused(soldOut([{ area, free: r.count }]));
          case 'NOT_BLOCKED':
            throw new ActionRefused(
              new DomainError(ErrorCode.PLACES_NOT_BLOCKED, `Area ${area} has ${r.count} place(s) blocked`, {
                details: [{ area, blocked: r.count }],
              }),
            );
          case 'ACTION_CANCELLED':
            throw new ActionRefused(givenUp());
        }
      },
      blockAreaPlaces(eventId, area, block ? quantity : -quantity, lockKeys[0]),
    );
  }

  /** The event's blocked seats, with why and by whom (staff only: the public map never says). */
  async list(eventId: string): Promise<BlockedSeatsView> {
    await this.catalogue.requireSeats(eventId);
    const rows = await this.db
      .getRepository(SeatBlockEntity)
      .find({ where: { eventId }, order: { seatId: 'ASC' } });
    return {
      eventId,
      items: rows.map((b) => ({
        seatId: b.seatId,
        reason: b.reason,
        blockedBy: b.blockedBy,
        blockedAt: b.blockedAt.toISOString(),
      })),
    };
  }

  private async knownSeats(eventId: string, seatIds: string[]): Promise<string[]> {
    const seats = await this.catalogue.requireSeats(eventId);
    const unknown = seatIds.filter((s) => !seats.has(s));
    if (unknown.length > 0) {
      throw seatsNotFound(unknown);
    }
    // an earlier action left half-way (its request died) is finished or taken back first
    await this.audited.settle(eventId);
    return [...seatIds].sort();
  }

  private async locked(eventId: string, seatIds: string[], actor: AuthUser, reason: string, block: boolean) {
    try {
      await this.lockedChange(eventId, seatIds, actor, reason, block);
    } catch (e) {
      throw lockLostAsBusy(e);
    }
  }

  @DistributedLock(SEAT_LOCK)
  private async lockedChange(
    eventId: string,
    seatIds: string[],
    actor: AuthUser,
    reason: string,
    block: boolean,
  ): Promise<void> {
    const lock = currentLock(); // here, before any await (see currentLock)
    const record = {
      eventId,
      actor: actor.id,
      action: block ? AuditAction.SEATS_BLOCK : AuditAction.SEATS_UNBLOCK,
      target: seatIds.join(','),
      reason,
      detail: { seatIds },
    };
    const prepared = block
      ? blockSeatRows(eventId, seatIds, reason, actor.id)
      : unblockSeatRows(eventId, seatIds);
    await this.audited.run(
      record,
      async (_id, action) => {
        lock.assertValid();
        const p = { eventId, seatIds, fencingToken: lock.fencingToken, action };
        const r = block ? await this.staff.blockSeats(p) : await this.staff.unblockSeats(p);
        if (r.ok) {
          return;
        }
        switch (r.error) {
          case 'SEATS_UNAVAILABLE':
            throw new ActionRefused(
              new DomainError(
                ErrorCode.SEATS_UNAVAILABLE,
                `${r.conflicts.length} seat(s) are not available`,
                {
                  details: r.conflicts,
                },
              ),
            );
          case 'NOT_BLOCKED':
            throw new ActionRefused(
              new DomainError(ErrorCode.SEAT_NOT_BLOCKED, `${r.seatIds.length} seat(s) are not blocked`, {
                details: r.seatIds.map((seatId) => ({ seatId })),
              }),
            );
          case 'STALE_FENCING_TOKEN':
            throw new ActionRefused(staleFence('release'));
          case 'ACTION_CANCELLED':
            throw new ActionRefused(givenUp());
        }
      },
      prepared,
    );
  }
}
