/**
 * For `@Transform` on a query parameter (query strings arrive as text): only plain decimal integers
 * become numbers ('-1' too, so that `@Min` names the field); anything else ('abc', '1e2', '0x10', '1.5', a
 * repeated parameter) stays as it came and `@IsInt` refuses it, naming the field. (Implicit conversion
 * would have made 'abc' NaN and '1e2' 100.)
 */
export const integerText = ({ value }: { value: unknown }): unknown =>
  typeof value === 'string' && /^-?[0-9]{1,15}$/.test(value) ? Number(value) : value;
