import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { BookingEntity } from '@app/database';
import { HoldStore } from '../holds/store';
import { stuckConfirms } from './expiry.metrics';

/**
 * Finishes or undoes a confirm that stopped half-way (process killed between PostgreSQL and Redis).
 * PostgreSQL decides: a CONFIRMED booking for the hold means finish it in Redis; otherwise we insert an
 * ABANDONED marker for the hold (unique per hold), so a confirm still in flight can no longer commit,
 * and give the seats back (the hold turns ACTIVE again, or EXPIRED with its SeatExpired records).
 */
@Injectable()
export class ConfirmReconciler {
  private readonly logger = new Logger('ConfirmReconciler');

  constructor(
    @InjectDataSource() private readonly db: DataSource,
    private readonly store: HoldStore,
  ) {}

  async reconcile(holdIds: string[]): Promise<void> {
    for (const holdId of holdIds) {
      const hold = await this.store.getHold(holdId);
      if (!hold || hold.status !== 'CONFIRMING') {
        continue;
      }
      await this.db
        .createQueryBuilder()
        .insert()
        .into(BookingEntity)
        .values({
          id: randomUUID(),
          holdId,
          orderId: null,
          eventId: hold.eventId,
          userId: hold.userId,
          status: 'ABANDONED',
          fencingToken: hold.fencingToken,
          seatIds: [],
        })
        .orIgnore()
        .execute();
      const decided = await this.db.getRepository(BookingEntity).findOneByOrFail({ holdId });
      if (decided.status === 'CONFIRMED') {
        await this.store.finishConfirm({ holdId, orderId: decided.orderId! });
        stuckConfirms.inc({ outcome: 'finished' });
        this.logger.warn(`hold ${holdId}: confirm had committed in PostgreSQL; seats marked BOOKED`);
      } else {
        await this.store.abandonConfirm({ holdId });
        stuckConfirms.inc({ outcome: 'abandoned' });
        this.logger.warn(`hold ${holdId}: confirm never committed; hold given back`);
      }
    }
  }
}
