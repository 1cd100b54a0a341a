/**
 * Every boolean and every integer variable, with the spellings it accepts and the ones it refuses.
 * The variables are discovered from `Environment` itself (its defaults and its validation metadata), so a
 * variable added later is covered without editing this file.
 */
import 'reflect-metadata';
import { getMetadataStorage } from 'class-validator';
import { Environment } from './environment';
import { ConfigValidationError, loadConfig } from './load-config';

const base = { AUTH_JWT_SECRET: 'a-secret-of-sufficient-length', REDIS_URL: 'redis://127.0.0.1:6379' };
const defaults = new Environment() as unknown as Record<string, unknown>;
const names = Object.keys(defaults);
const booleans = names.filter((k) => typeof defaults[k] === 'boolean');
const integers = names.filter((k) => typeof defaults[k] === 'number');

/** The `@Min`/`@Max` bounds class-validator holds for a property. */
function bound(name: string, kind: 'min' | 'max'): number {
  const meta = getMetadataStorage()
    .getTargetValidationMetadatas(Environment, '', true, false)
    .find((m) => m.propertyName === name && m.name === kind);
  if (!meta) {
    throw new Error(`${name} has no @${kind === 'min' ? 'Min' : 'Max'}: every integer variable needs bounds`);
  }
  return meta.constraints[0] as number;
}

/** Checked against each other (min <= default <= max): set together, so each can take any value in its bounds. */
const TTL_GROUP = ['HOLD_MIN_TTL_SECONDS', 'HOLD_DEFAULT_TTL_SECONDS', 'HOLD_MAX_TTL_SECONDS'];

/** The parsed value of one variable, or the error loadConfig threw. */
function parse(name: string, value: string, withGroup = false): { value?: unknown; error?: Error } {
  const group =
    withGroup && TTL_GROUP.includes(name) ? Object.fromEntries(TTL_GROUP.map((k) => [k, value])) : {};
  try {
    const env = loadConfig({ ...base, ...group, [name]: value }).env as unknown as Record<string, unknown>;
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

it('finds the variables it tests', () => {
  expect(booleans).toEqual(
    expect.arrayContaining(['SWEEPER_ENABLED', 'REDIS_AUTO_PIPELINING', 'SEED_DEMO_EVENT']),
  );
  expect(integers).toEqual(expect.arrayContaining(['PORT', 'HTTP_BODY_LIMIT_BYTES', 'SWEEP_INTERVAL_MS']));
});

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

describe.each(integers)('integer %s', (name) => {
  it('accepts its bounds and its default, in plain decimal digits', () => {
    const min = bound(name, 'min');
    const max = bound(name, 'max');
    expect(parse(name, String(min), true)).toEqual({ value: min });
    expect(parse(name, String(max), true)).toEqual({ value: max });
    expect(parse(name, String(defaults[name]))).toEqual({ value: defaults[name] });
  });

  it('refuses values outside its bounds', () => {
    expectRefused(name, String(bound(name, 'max') + 1));
    const min = bound(name, 'min');
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
