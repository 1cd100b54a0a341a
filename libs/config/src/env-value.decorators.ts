import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, Max, Min } from 'class-validator';

/**
 * How the environment's text becomes numbers and booleans. Conversion is explicit, per variable: class-
 * transformer's `enableImplicitConversion` ran `Boolean('false')` (true) before any custom transform saw
 * the text, so no boolean could ever be switched off, and `Number()` took '1e3', '0x10', ' 100' and
 * '100.0' for numbers. Text that is not a clean spelling is left as it is, so the validator refuses it
 * and names the variable.
 */

/**
 * Plain decimal digits only: no sign, exponent, decimal point, hex/octal/binary prefix, separator or
 * surrounding space. Every integer variable is non-negative, so a sign is never needed; 15 digits always
 * fit a JavaScript number exactly.
 */
const DECIMAL = /^[0-9]{1,15}$/;

const TRUE = new Set(['true', '1', 'yes', 'on']);
const FALSE = new Set(['false', '0', 'no', 'off']);

/** `'300'` -> 300; anything else is returned untouched (and refused by `@IsInt`). */
export function parseInteger(value: unknown): unknown {
  return typeof value === 'string' && DECIMAL.test(value) ? Number(value) : value;
}

/** true/false, 1/0, yes/no, on/off in any letter case; anything else is returned untouched (and refused). */
export function parseBoolean(value: unknown): unknown {
  if (typeof value !== 'string') {
    return value;
  }
  const word = value.toLowerCase();
  return TRUE.has(word) ? true : FALSE.has(word) ? false : value;
}

function all(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => decorators.forEach((d) => d(target, key));
}

/** An integer variable within [min, max], written in plain decimal digits. */
export function EnvInteger(min: number, max: number): PropertyDecorator {
  return all(
    Transform(({ value }) => parseInteger(value)),
    IsInt({ message: ({ property }) => `${property} must be a whole number in plain decimal digits` }),
    Min(min, { message: ({ property }) => `${property} must be at least ${min}` }),
    Max(max, { message: ({ property }) => `${property} must be at most ${max}` }),
  );
}

/** A boolean variable: true/false, 1/0, yes/no, on/off (any letter case). */
export function EnvBoolean(): PropertyDecorator {
  return all(
    Transform(({ value }) => parseBoolean(value)),
    IsBoolean({ message: ({ property }) => `${property} must be true/false, 1/0, yes/no or on/off` }),
  );
}
