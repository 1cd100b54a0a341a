import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HoldExpiryEntity } from '@app/database';
import type { SeatExpiredCloudEvent } from '@app/contracts';

/**
 * Stores one expiry per CloudEvent id: a redelivered message, or the same hold and seat announced again
 * (the id is `<holdId>:<seatId>`, see @app/contracts), inserts nothing (the id is the primary key).
 */
@Injectable()
export class HoldExpiryRecorder {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async record(ce: SeatExpiredCloudEvent): Promise<boolean> {
    const result = await this.db
      .createQueryBuilder()
      .insert()
      .into(HoldExpiryEntity)
      .values({
        eventMessageId: ce.id,
        holdId: ce.data.holdId,
        eventId: ce.data.eventId,
        seatId: ce.data.seatId,
        userId: ce.data.userId,
        expiredAt: new Date(ce.data.expireAt),
        fencingToken: ce.data.fencingToken,
        // places of a general-admission area: how many went back
        area: ce.data.area ?? null,
        quantity: ce.data.quantity ?? null,
      })
      .orIgnore()
      .execute();
    return (result.raw as unknown[]).length > 0;
  }

  /** Whether PostgreSQL answers at all: tells "this message fails" from "everything fails". */
  async reachable(): Promise<boolean> {
    try {
      await this.db.query('SELECT 1');
      return true;
    } catch {
      return false;
    }
  }
}
