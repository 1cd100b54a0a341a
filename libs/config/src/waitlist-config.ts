import { BaseConfig } from './base-config';
import { validateEnvironment } from './validate-environment';
import { WaitlistEnvironment } from './waitlist-environment';

/** apps/waitlist's configuration: what its providers inject (ConfigModule.forRoot(WaitlistConfig)). */
export class WaitlistConfig extends BaseConfig<WaitlistEnvironment> {
  /** Validates the waitlist app's variables only (no REDIS_*). */
  static override load(source: NodeJS.ProcessEnv = process.env): WaitlistConfig {
    return new WaitlistConfig(validateEnvironment(WaitlistEnvironment, source));
  }

  get http() {
    return { port: this.env.WAITLIST_PORT, host: this.env.HOST };
  }

  override get kafka() {
    return {
      ...super.kafka,
      consumerGroup: this.env.WAITLIST_CONSUMER_GROUP,
      sessionTimeoutMs: this.env.WAITLIST_SESSION_TIMEOUT_MS,
    };
  }

  get offers() {
    const e = this.env;
    return {
      ttlSeconds: e.WAITLIST_OFFER_TTL_SECONDS,
      seatApiUrl: e.WAITLIST_SEAT_API_URL.replace(/\/+$/, ''),
      jwtSecret: e.AUTH_JWT_SECRET,
      jwtIssuer: e.AUTH_JWT_ISSUER,
    };
  }
}
