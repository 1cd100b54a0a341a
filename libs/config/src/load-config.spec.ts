import { BaseConfig } from './base-config';
import { ExpiryConsumerConfig } from './expiry-consumer-config';
import { ConfigValidationError, loadConfig } from './load-config';
import { WaitlistConfig } from './waitlist-config';

describe('loadConfig', () => {
  const base = { AUTH_JWT_SECRET: 'a-secret-of-sufficient-length', REDIS_URL: 'redis://127.0.0.1:6379' };

  it('applies defaults and converts numbers', () => {
    const config = loadConfig({ ...base, PORT: '4000' });
    expect(config.http.port).toBe(4000);
    expect(config.holds.defaultTtlSeconds).toBe(300);
    expect(config.kafka.brokers).toEqual(['127.0.0.1:9092']);
  });

  it('names a missing required variable', () => {
    expect(() => loadConfig({})).toThrow(/AUTH_JWT_SECRET/);
  });

  it('names every bad variable at once', () => {
    try {
      loadConfig({ ...base, PORT: 'eighty', REDIS_URL: 'http://x' });
      throw new Error('expected a ConfigValidationError');
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigValidationError);
      const msg = (e as Error).message;
      expect(msg).toMatch(/PORT/);
      expect(msg).toMatch(/REDIS_URL/);
    }
  });

  it('rejects a default ttl outside the allowed range', () => {
    expect(() => loadConfig({ ...base, HOLD_MIN_TTL_SECONDS: '60', HOLD_DEFAULT_TTL_SECONDS: '10' })).toThrow(
      /HOLD_DEFAULT_TTL_SECONDS/,
    );
  });

  it('waits for no replica by default, and refuses a WAIT timeout the client would give up before', () => {
    expect(loadConfig(base).replicaAck).toEqual({ replicas: 0, timeoutMs: 500 });
    expect(loadConfig({ ...base, REDIS_WAIT_REPLICAS: '1' }).replicaAck).toEqual({
      replicas: 1,
      timeoutMs: 500,
    });
    const late = {
      ...base,
      REDIS_WAIT_REPLICAS: '1',
      REDIS_WAIT_TIMEOUT_MS: '1000',
      REDIS_COMMAND_TIMEOUT_MS: '1000',
    };
    expect(() => loadConfig(late)).toThrow(/REDIS_WAIT_TIMEOUT_MS must be below REDIS_COMMAND_TIMEOUT_MS/);
    expect(loadConfig({ ...late, REDIS_WAIT_REPLICAS: '0' }).replicaAck.replicas).toBe(0); // unused: no rule
  });

  it('treats empty strings as unset', () => {
    expect(loadConfig({ ...base, PORT: '' }).http.port).toBe(3000);
  });

  it('reads CORS_ORIGINS as a list of origins, off when unset, and refuses wildcards and paths', () => {
    expect(loadConfig(base).http.corsOrigins).toEqual([]);
    expect(
      loadConfig({ ...base, CORS_ORIGINS: 'https://a.example,http://b.example:8080' }).http.corsOrigins,
    ).toEqual(['https://a.example', 'http://b.example:8080']);
    for (const bad of [
      '*',
      'https://*.example',
      'https://a.example/app',
      'a.example',
      'https://a.example, https://b',
    ]) {
      expect(() => loadConfig({ ...base, CORS_ORIGINS: bad })).toThrow(/CORS_ORIGINS/);
    }
  });

  it('drains 5 s on shutdown in production and not at all elsewhere, unless SHUTDOWN_DRAIN_MS says', () => {
    expect(loadConfig({ ...base, NODE_ENV: 'production' }).http.shutdownDrainMs).toBe(5000);
    expect(loadConfig({ ...base, NODE_ENV: 'development' }).http.shutdownDrainMs).toBe(0);
    expect(loadConfig({ ...base, NODE_ENV: 'production', SHUTDOWN_DRAIN_MS: '0' }).http.shutdownDrainMs).toBe(
      0,
    );
    expect(loadConfig({ ...base, SHUTDOWN_DRAIN_MS: '15000' }).http.shutdownDrainMs).toBe(15000);
  });
});

describe('each app validates only what it reads', () => {
  it('the expiry consumer needs neither AUTH_JWT_SECRET nor a Redis setting', () => {
    const config = ExpiryConsumerConfig.load({});
    expect(config.http.port).toBe(3001);
    expect(config.kafka.consumerGroup).toBe('seat-expiry-history');
  });

  it('the expiry consumer still refuses its own bad values, naming them', () => {
    expect(() => ExpiryConsumerConfig.load({ EXPIRY_CONSUMER_PORT: 'x', KAFKA_BROKERS: 'nohost' })).toThrow(
      /EXPIRY_CONSUMER_PORT[\s\S]*KAFKA_BROKERS/,
    );
  });

  it('the waiting list needs two database connections at least, one for an offer run and one beside it', () => {
    const env = { AUTH_JWT_SECRET: 'a-secret-of-sufficient-length' };
    expect(WaitlistConfig.load(env).database.poolSize).toBe(10);
    expect(() => WaitlistConfig.load({ ...env, DATABASE_POOL_SIZE: '1' })).toThrow(/DATABASE_POOL_SIZE/);
    expect(WaitlistConfig.load({ ...env, DATABASE_POOL_SIZE: '2' }).database.poolSize).toBe(2);
  });

  it('the migration tools read the shared variables only', () => {
    expect(BaseConfig.load({ DATABASE_SCHEMA: 'other' }).database.schema).toBe('other');
  });
});
