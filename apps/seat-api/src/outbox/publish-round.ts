/**
 * One round of the relay: every shard it relays hands in its next batch (or withdraws), then the batches
 * go to Kafka together, in as few sends as fit `maxPerSend` records, instead of one send per shard.
 * While many holds fall due, the sweep appends to all 64 streams at once and each pass finds a few
 * records per stream: one send each would cost a produce round trip per shard (the idempotent producer
 * sends one request at a time), which bounds the relay more than the records do.
 *
 * Order: a batch is never split (each lies whole in one send, in stream order) and kafkajs keeps a send's
 * records in array order per partition, so one show's records (all in one shard's stream) keep their
 * order. A batch whose shard's lease was lost by the time of sending is left out (answer false: not
 * published, the next owner publishes it). A failed send fails its batches and every later one (none of
 * them may be acknowledged); batches of earlier sends were published and answer true.
 */
interface Part<T> {
  items: T[];
  signal: AbortSignal;
  done: (published: boolean) => void;
  fail: (e: unknown) => void;
}

export class PublishRound<T> {
  private readonly parts: Part<T>[] = [];
  private waiting: number;

  constructor(
    participants: number,
    private readonly maxPerSend: number,
    private readonly send: (items: T[]) => Promise<void>,
  ) {
    this.waiting = participants;
  }

  /** Hands in a shard's batch; resolves true once Kafka took it, false if it was left out (lease lost). */
  submit(items: T[], signal: AbortSignal): Promise<boolean> {
    const answer = new Promise<boolean>((done, fail) => this.parts.push({ items, signal, done, fail }));
    this.arrived();
    return answer;
  }

  /** A participant that hands in nothing this round (nothing read, not its shard, or an error). */
  withdraw(): void {
    this.arrived();
  }

  private arrived(): void {
    this.waiting--;
    if (this.waiting === 0) {
      void this.flush();
    }
  }

  private async flush(): Promise<void> {
    let rest = this.parts;
    while (rest.length > 0) {
      // checked before each send: a lease lost meanwhile keeps its batch out of this and later sends
      const live = rest.filter((p) => !p.signal.aborted);
      for (const p of rest) {
        if (p.signal.aborted) {
          p.done(false);
        }
      }
      if (live.length === 0) {
        return;
      }
      // whole batches only, as many as fit (one batch alone may reach maxPerSend)
      let count = live[0].items.length;
      let to = 1;
      while (to < live.length && count + live[to].items.length <= this.maxPerSend) {
        count += live[to].items.length;
        to++;
      }
      const group = live.slice(0, to);
      rest = live.slice(to);
      try {
        const items = group.flatMap((p) => p.items);
        if (items.length > 0) {
          await this.send(items);
        }
      } catch (e) {
        for (const p of [...group, ...rest]) {
          p.fail(e);
        }
        return;
      }
      for (const p of group) {
        p.done(true);
      }
    }
  }
}
