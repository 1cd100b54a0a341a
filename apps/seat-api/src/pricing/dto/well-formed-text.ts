import { ValidateBy, ValidationOptions } from 'class-validator';

/** A UTF-16 surrogate without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Text that PostgreSQL's jsonb can hold: no lone surrogate (JSON.stringify writes one as a `\ud800` escape,
 * which jsonb refuses), so a price list or promo code stored as jsonb is refused 400 naming the field, not
 * failed 500 at the insert.
 */
export const WellFormedText = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'wellFormedText',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !LONE_SURROGATE.test(value),
        defaultMessage: (args) =>
          `${args?.property ?? 'text'} must be well-formed Unicode (no lone surrogate)`,
      },
    },
    options,
  );
