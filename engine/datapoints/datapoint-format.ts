// Exact formatting of stored values for the API (SPEC "Data point": values are strings;
// BIGINT a 64-bit integer, NUMERIC/DECIMAL32 exact decimals). No value passes through a
// double unless its valueType is a floating one.
import { DECIMAL_FORMAT, type DatapointValue, type ValueType } from './types.ts';

/** A scaled integer as a decimal string: (123450n, 3) -> '123.45'. Trailing zeros dropped. */
export function formatScaled(scaled: bigint, scale: number): string {
  const negative = scaled < 0n;
  const digits = (negative ? -scaled : scaled).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** numerator / denominator rounded half away from zero (exact decimal averages). */
export function divideRounded(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('divideRounded needs a positive denominator');
  const negative = numerator < 0n;
  const magnitude = negative ? -numerator : numerator;
  const quotient = (magnitude * 2n + denominator) / (denominator * 2n);
  return negative ? -quotient : quotient;
}

/** The API's string for a value read back from the store (see DatapointValue). */
export function formatDatapointValue(valueType: ValueType, value: DatapointValue): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') {
    if (valueType === 'NUMERIC' || valueType === 'DECIMAL32') return formatScaled(value, DECIMAL_FORMAT[valueType].scale);
    return value.toString();
  }
  return String(value);
}
