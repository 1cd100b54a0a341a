/**
 * A second, private Kafka broker for tests that must stop and start Kafka (the shared broker on 9092
 * serves every other test and must stay up). Same jars and script as the shared one, other ports and dir.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './private-redis';

const run = promisify(execFile);
const script = path.resolve(__dirname, '..', '..', 'scripts', 'infra.sh');

export class PrivateKafka {
  private constructor(
    readonly port: number,
    private readonly controllerPort: number,
    private readonly dir: string,
  ) {}

  get brokers(): string {
    return `127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PrivateKafka> {
    const dir = mkdtempSync(path.join(tmpdir(), 'kafka-'));
    const kafka = new PrivateKafka(await freePort(), await freePort(), dir);
    await kafka.up();
    return kafka;
  }

  private env() {
    return {
      ...process.env,
      INFRA_DIR: this.dir,
      KAFKA_PORT: String(this.port),
      KAFKA_CONTROLLER_PORT: String(this.controllerPort),
      KAFKA_BROKERS: '',
      // same jars as the shared broker (downloaded once into the repo's .infra)
      KAFKA_LIBS: path.resolve(__dirname, '..', '..', '.infra', 'kafka', 'libs'),
    };
  }

  /** Starts (or restarts, keeping its data) the broker and waits until it answers. */
  async up(): Promise<void> {
    await run('bash', [script, 'up'], { env: this.env(), timeout: 120_000 });
  }

  async down(): Promise<void> {
    await run('bash', [script, 'down'], { env: this.env(), timeout: 60_000 });
  }

  async destroy(): Promise<void> {
    await this.down().catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
