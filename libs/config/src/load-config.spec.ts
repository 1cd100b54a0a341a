import { ConfigValidationError, loadConfig } from './load-config';

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

  it('treats empty strings as unset', () => {
    expect(loadConfig({ ...base, PORT: '' }).http.port).toBe(3000);
  });
});
