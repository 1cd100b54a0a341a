/**
 * Every boolean and every integer variable of every app's environment class, with the spellings it accepts
 * and the ones it refuses. The variables are discovered from the classes themselves (their validation
 * metadata and defaults), so a variable added later, to any app, is covered without editing this file.
 */
import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';
import { AppConfig } from './app-config';
import { BaseEnvironment } from './base-environment';
import { SeatApiEnvironment } from './environment';
import { ExpiryConsumerConfig } from './expiry-consumer-config';
import { ExpiryConsumerEnvironment } from './expiry-consumer-environment';
import { ConfigValidationError } from './validate-environment';
import { WaitlistConfig } from './waitlist-config';
import { WaitlistEnvironment } from './waitlist-environment';

interface App {
  type: new () => BaseEnvironment;
  /** Validates an environment the way the app does at boot. */
  load: (source: NodeJS.ProcessEnv) => { env: BaseEnvironment };
  /** What the app requires besides the variable under test. */
  base: Record<string, string>;
}

const APPS: Record<string, App> = {
  'seat-api': {
    type: SeatApiEnvironment,
    load: (s) => AppConfig.load(s),
    base: { AUTH_JWT_SECRET: 'a-secret-of-sufficient-length', REDIS_URL: 'redis://127.0.0.1:6379' },
  },
  'expiry-consumer': { type: ExpiryConsumerEnvironment, load: (s) => ExpiryConsumerConfig.load(s), base: {} },
  waitlist: {
    type: WaitlistEnvironment,
    load: (s) => WaitlistConfig.load(s),
    base: { AUTH_JWT_SECRET: 'a-secret-of-sufficient-length' },
  },
};

/** The properties of `type` (its own and inherited) that carry the given class-validator check. */
function withCheck(type: new () => BaseEnvironment, check: 'isBoolean' | 'isInt'): string[] {
  const metas = getMetadataStorage().getTargetValidationMetadatas(type, '', true, false);
  return [...new Set(metas.filter((m) => m.name === check).map((m) => m.propertyName))];
}

/** The `@Min`/`@Max` bounds class-validator holds for a property. */
function bound(type: new () => BaseEnvironment, name: string, kind: 'min' | 'max'): number {
  const meta = getMetadataStorage()
    .getTargetValidationMetadatas(type, '', true, false)
    .find((m) => m.propertyName === name && m.name === kind);
  if (!meta) {
    throw new Error(`${name} has no @${kind === 'min' ? 'Min' : 'Max'}: every integer variable needs bounds`);
  }
  return meta.constraints[0] as number;
}

/** Checked against each other (min <= default <= max): set together, so each can take any value in its bounds. */
const TTL_GROUP = ['HOLD_MIN_TTL_SECONDS', 'HOLD_DEFAULT_TTL_SECONDS', 'HOLD_MAX_TTL_SECONDS'];

it('finds the variables it tests, in every app', () => {
  expect(withCheck(SeatApiEnvironment, 'isBoolean')).toEqual(
    expect.arrayContaining(['SWEEPER_ENABLED', 'REDIS_AUTO_PIPELINING', 'SEED_DEMO_EVENT']),
  );
  expect(withCheck(SeatApiEnvironment, 'isInt')).toEqual(
    expect.arrayContaining(['PORT', 'HTTP_BODY_LIMIT_BYTES', 'SWEEP_INTERVAL_MS', 'SHUTDOWN_DRAIN_MS']),
  );
  expect(withCheck(ExpiryConsumerEnvironment, 'isInt')).toEqual(
    expect.arrayContaining(['EXPIRY_CONSUMER_PORT', 'DATABASE_POOL_SIZE', 'KAFKA_TOPIC_PARTITIONS']),
  );
  // the consumer validates nothing of the seat API's own
  expect(withCheck(ExpiryConsumerEnvironment, 'isInt')).not.toContain('PORT');
  expect(withCheck(ExpiryConsumerEnvironment, 'isBoolean')).not.toContain('SWEEPER_ENABLED');
});

describe.each(Object.keys(APPS))('%s', (appName) => {
  const app = APPS[appName];
  const defaults = new app.type() as unknown as Record<string, unknown>;
  const booleans = withCheck(app.type, 'isBoolean');
  const integers = withCheck(app.type, 'isInt');

  /** The parsed value of one variable, or the error the app's validation threw. */
  function parse(name: string, value: string, withGroup = false): { value?: unknown; error?: Error } {
    const group =
      withGroup && TTL_GROUP.includes(name) ? Object.fromEntries(TTL_GROUP.map((k) => [k, value])) : {};
    try {
      const env = app.load({ ...app.base, ...group, [name]: value }).env as unknown as Record<
        string,
        unknown
      >;
      return { value: env[name] };
    } catch (e) {
      return { error: e as Error };
    }
  }

  function expectRefused(name: string, value: string): void {
    const r = parse(name, value);
    if (!r.error) {
      throw new Error(`${name}=${JSON.stringify(value)} was accepted as ${JSON.stringify(r.value)}`);
    }
    expect(r.error).toBeInstanceOf(ConfigValidationError);
    expect(r.error.message).toContain(name);
  }

  // the expiry consumer has no boolean variable
  if (booleans.length > 0) {
    describe.each(booleans)('boolean %s', (name) => {
      it.each(['true', 'TRUE', 'True', '1', 'yes', 'YES', 'on', 'On'])('reads %j as true', (text) => {
        expect(parse(name, text)).toEqual({ value: true });
      });

      it.each(['false', 'FALSE', 'False', '0', 'no', 'NO', 'off', 'Off'])('reads %j as false', (text) => {
        expect(parse(name, text)).toEqual({ value: false });
      });

      it.each(['maybe', 'tru', 'enabled', '2', '-1', ' ', ' true', 'false ', 'y', 'n', 'null', '[]'])(
        'refuses %j, naming the variable',
        (text) => expectRefused(name, text),
      );
    });
  }

  describe.each(integers)('integer %s', (name) => {
    it('accepts its bounds and its default, in plain decimal digits', () => {
      const min = bound(app.type, name, 'min');
      const max = bound(app.type, name, 'max');
      expect(parse(name, String(min), true)).toEqual({ value: min });
      expect(parse(name, String(max), true)).toEqual({ value: max });
      const fallback = defaults[name];
      if (typeof fallback === 'number') {
        expect(parse(name, String(fallback))).toEqual({ value: fallback }); // optional ones have none
      }
    });

    it('refuses values outside its bounds', () => {
      expectRefused(name, String(bound(app.type, name, 'max') + 1));
      const min = bound(app.type, name, 'min');
      if (min > 0) {
        expectRefused(name, String(min - 1));
      }
    });

    it.each([
      '12abc',
      'abc',
      '1e3',
      '1E3',
      '0x10',
      '0b1',
      '0o7',
      '1.5',
      '100.0',
      '1_000',
      '1,000',
      '+100',
      '-1',
      '-0',
      ' ',
      ' 100',
      '100 ',
      'Infinity',
      'NaN',
      'true',
      '99999999999999999999',
    ])('refuses %j, naming the variable', (text) => expectRefused(name, text));
  });
});
