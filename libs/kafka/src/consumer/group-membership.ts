import { Injectable } from '@nestjs/common';
import type { Consumer } from 'kafkajs';

/** Tracks whether the kafkajs consumer is in its group (GROUP_JOIN, REBALANCING, CRASH, STOP events). */
@Injectable()
export class GroupMembership {
  joined = false;
  memberId?: string;
  private waiters: (() => void)[] = [];

  /** Call before the consumer runs (see ObservedServerKafka), so the first GROUP_JOIN is not missed. */
  attach(consumer: Consumer): void {
    consumer.on(consumer.events.GROUP_JOIN, (e) => this.markJoined(e.payload.memberId));
    // a rebalance (another instance joining or leaving) ends in a new GROUP_JOIN; until then we are not in it
    consumer.on(consumer.events.REBALANCING, () => (this.joined = false));
    consumer.on(consumer.events.CRASH, () => (this.joined = false));
    consumer.on(consumer.events.STOP, () => (this.joined = false));
    consumer.on(consumer.events.DISCONNECT, () => (this.joined = false));
  }

  private markJoined(memberId: string): void {
    this.joined = true;
    this.memberId = memberId;
    this.waiters.splice(0).forEach((w) => w());
  }

  waitUntilJoined(timeoutMs: number): Promise<void> {
    if (this.joined) {
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const t = setTimeout(
        () => reject(new Error(`consumer did not join its group within ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}
