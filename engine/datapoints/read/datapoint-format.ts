// Exact formatting of stored values for the API (SPEC "Data point": values are strings;
// BIGINT a 64-bit integer, NUMERIC/DECIMAL32 exact decimals). No value passes through a
// double unless its valueType is a floating one.
import { DECIMAL_FORMAT, type DatapointValue, type ValueType } from '../types.ts';

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

/**
 * String(v), faster for a double with at most three decimals (most sensors' values and their
 * minima and maxima): integer digits (~45 ns) instead of the shortest round-trip search
 * (~115 ns), which a 6 h 1m answer runs ~1,000 times. The same text: below 10^15 thousandths
 * no other decimal of as few digits names the same double, so the shortest is this one.
 */
export function formatFloat(v: number): string {
  const thousandths = Math.round(v * 1000);
  if (thousandths / 1000 !== v || !(thousandths < 1e15 && thousandths > -1e15)) return String(v);
  const negative = thousandths < 0;
  const magnitude = negative ? -thousandths : thousandths;
  const whole = Math.floor(magnitude / 1000);
  const fraction = magnitude - whole * 1000;
  const sign = negative ? '-' : '';
  if (fraction === 0) return `${sign}${whole}`;
  if (fraction % 100 === 0) return `${sign}${whole}.${fraction / 100}`;
  if (fraction % 10 === 0) return `${sign}${whole}.${fraction < 100 ? '0' : ''}${fraction / 10}`;
  return `${sign}${whole}.${fraction < 10 ? '00' : fraction < 100 ? '0' : ''}${fraction}`;
}

/** The API's string for a value read back from the store (see DatapointValue). */
export function formatDatapointValue(valueType: ValueType, value: DatapointValue): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') {
    if (valueType === 'NUMERIC' || valueType === 'DECIMAL32') return formatScaled(value, DECIMAL_FORMAT[valueType].scale);
    return value.toString();
  }
  return formatFloat(value);
}
