import { Controller, Logger } from '@nestjs/common';
import { Ctx, KafkaContext, Payload } from '@nestjs/microservices';
import { OtherEventTypeError, parseSeatExpired, SeatExpiredSchemaError } from '@app/contracts';
import { counter } from '@app/observability';
import { ConfiguredEventPattern } from '@app/kafka';
import { DeadLetterPublisher } from './dead-letter.publisher';
import { HoldExpiryRecorder } from './hold-expiry.recorder';

const consumed = counter(
  'expiry_consumer_messages_total',
  'Messages of the SeatExpired topic handled, by outcome',
  ['outcome'],
);

/** Attempts before a message that keeps failing is parked on the dead-letter topic. */
const MAX_ATTEMPTS = 3;

/**
 * Records every SeatExpired in hold_expiries. The offset is committed only after the row is stored (or
 * the message is parked on the dead-letter topic), so a crash re-delivers, and the unique CloudEvent id
 * makes the re-delivery a no-op. A poison message (or one that fails alone, with the database up) is parked
 * on the dead-letter topic and never blocks its partition; a database outage does block it, on purpose.
 */
@Controller()
export class SeatExpiredConsumer {
  private readonly logger = new Logger('SeatExpiredConsumer');

  constructor(
    private readonly recorder: HoldExpiryRecorder,
    private readonly deadLetters: DeadLetterPublisher,
  ) {}

  @ConfiguredEventPattern('seatExpired') // KAFKA_TOPIC_SEAT_EXPIRED, resolved at bootstrap
  async handle(@Payload() _payload: object, @Ctx() context: unknown): Promise<void> {
    // Nest 12 types pattern handlers as (data, ...args: unknown[]); the context is a KafkaContext here
    const ctx = context as KafkaContext;
    const message = ctx.getMessage();
    const origin = { topic: ctx.getTopic(), partition: ctx.getPartition() };
    let outcome = 'recorded';
    try {
      const event = parseSeatExpired(message.value);
      const inserted = await this.withRetries(() => this.recorder.record(event));
      outcome = inserted ? 'recorded' : 'duplicate';
    } catch (e) {
      if (e instanceof OtherEventTypeError) {
        // a type this consumer does not know (one added to the topic later): not its own, and not poison
        consumed.inc({ outcome: 'skipped' });
        await this.commitPast(ctx, origin, message.offset);
        return;
      }
      if (!(e instanceof SeatExpiredSchemaError) && !(await this.recorder.reachable())) {
        // PostgreSQL itself is down: every message would fail the same way, and parking good events on the
        // dead-letter topic would lose them from the history. Leave the offset uncommitted instead: kafkajs
        // retries, restarts the consumer, and redelivers from the last commit once the database is back.
        consumed.inc({ outcome: 'deferred' });
        throw new Error(`PostgreSQL unreachable; offset ${message.offset} stays uncommitted`, { cause: e });
      }
      const reason =
        e instanceof SeatExpiredSchemaError
          ? `poison: ${e.message}`
          : `failed after ${MAX_ATTEMPTS} attempts: ${(e as Error).message}`;
      this.logger.warn(
        `offset ${message.offset} of ${origin.topic}[${origin.partition}] to the dead-letter topic (${reason})`,
      );
      await this.deadLetters.publish(message, origin, reason); // if this throws, Kafka redelivers: nothing is lost
      outcome = e instanceof SeatExpiredSchemaError ? 'poison' : 'failed';
    }
    consumed.inc({ outcome });
    await this.commitPast(ctx, origin, message.offset);
  }

  private async commitPast(
    ctx: KafkaContext,
    origin: { topic: string; partition: number },
    offset: string,
  ): Promise<void> {
    await ctx
      .getConsumer()
      .commitOffsets([
        { topic: origin.topic, partition: origin.partition, offset: (BigInt(offset) + 1n).toString() },
      ]);
  }

  private async withRetries<T>(fn: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn();
      } catch (e) {
        if (attempt >= MAX_ATTEMPTS) {
          throw e;
        }
        await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
      }
    }
  }
}
