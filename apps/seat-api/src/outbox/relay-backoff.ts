/**
 * How long the relay waits before trying Kafka again: doubles per failure from `minMs` up to `maxMs`,
 * back to nothing on success. Each attempt while Kafka is down costs a producer and a burst of kafkajs
 * retries (~3 s); the cap bounds the extra delay once Kafka is back.
 */
export class RelayBackoff {
  private delayMs = 0;
  private until = 0;

  constructor(
    private readonly minMs: number,
    private readonly maxMs: number,
  ) {}

  /** True while the last failure's wait has not passed. */
  get waiting(): boolean {
    return Date.now() < this.until;
  }

  failed(): void {
    this.delayMs = Math.min(this.maxMs, Math.max(this.minMs, this.delayMs * 2));
    this.until = Date.now() + this.delayMs;
  }

  succeeded(): void {
    this.delayMs = 0;
    this.until = 0;
  }
}
