import { BaseConfig } from './base-config';
import { ExpiryConsumerEnvironment } from './expiry-consumer-environment';
import { validateEnvironment } from './validate-environment';

/** apps/expiry-consumer's configuration: what its providers inject (ConfigModule.forRoot(ExpiryConsumerConfig)). */
export class ExpiryConsumerConfig extends BaseConfig<ExpiryConsumerEnvironment> {
  /** Validates the consumer's variables only (no AUTH_*, no REDIS_*). */
  static override load(source: NodeJS.ProcessEnv = process.env): ExpiryConsumerConfig {
    return new ExpiryConsumerConfig(validateEnvironment(ExpiryConsumerEnvironment, source));
  }

  get http() {
    return { port: this.env.EXPIRY_CONSUMER_PORT, host: this.env.HOST };
  }

  override get kafka() {
    return { ...super.kafka, consumerGroup: this.env.KAFKA_CONSUMER_GROUP };
  }
}
