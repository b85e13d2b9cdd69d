// Byte-level number grammars for datapoint bodies: JSON number tokens, numeric strings,
// exact 64-bit integers and exact scaled decimals. Pure functions over a byte range; which
// grammar applies to which value type is datapoint-encode.ts's concern.

/** 10^0 .. 10^22: every one is exact in a double (Clinger's fast path relies on it). */
const POW10 = new Float64Array(23).map((_, i) => 10 ** i);
/** Decimal digits that always fit a double exactly (10^15 < 2^53). */
const EXACT_DIGITS_MAX = 15;
/** Exponents are clamped here: values are at most 64 characters, so nothing past it matters. */
const EXPONENT_CLAMP = 100_000;
const TWO_POW_53 = 2 ** 53;

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

/** Why a value text did not give a value; the same words as PointValueError's reasons. */
export type NumberTextFailure = 'value-type-mismatch' | 'value-out-of-range';

const asciiDecoder = new TextDecoder('latin1');

/** The bytes [start, end) as a string; only for ASCII ranges (number text). */
export function asciiText(bytes: Uint8Array, start: number, end: number): string {
  return asciiDecoder.decode(bytes.subarray(start, end));
}

/**
 * The double nearest to mantissa * 10^exponent10 given the digits it came from.
 * Exact ints and small powers of ten give the correctly rounded result in one IEEE
 * operation (Clinger); anything else goes through Number(), which is correctly rounded too,
 * so both paths agree with JSON.parse bit for bit.
 */
function nearestDouble(bytes: Uint8Array, start: number, end: number, mantissa: number, digitCount: number, exponent10: number): number {
  if (digitCount <= EXACT_DIGITS_MAX && exponent10 >= -22 && exponent10 <= 22) {
    return exponent10 >= 0 ? mantissa * POW10[exponent10]! : mantissa / POW10[-exponent10]!;
  }
  return Number(asciiText(bytes, start, end));
}

/** The value of the last token scanJsonNumber accepted. */
export let jsonNumberValue = 0;

/**
 * Scans one RFC 8259 number token starting at `start`: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?
 * Returns the index after the token and leaves its value in jsonNumberValue, or -1 when the
 * bytes there are not a valid number token.
 */
export function scanJsonNumber(bytes: Uint8Array, start: number, end: number): number {
  let p = start;
  let negative = false;
  if (bytes[p] === 0x2d) {
    negative = true;
    p++;
  }
  const digitsStart = p;
  let c = p < end ? bytes[p]! : -1;
  let mantissa = 0;
  let digitCount = 0;
  if (c === 0x30) {
    p++;
    digitCount = 1;
  } else if (c >= 0x31 && c <= 0x39) {
    do {
      mantissa = mantissa * 10 + (c - 0x30);
      digitCount++;
      p++;
      c = p < end ? bytes[p]! : -1;
    } while (c >= 0x30 && c <= 0x39);
  } else {
    return -1;
  }
  let fractionDigits = 0;
  c = p < end ? bytes[p]! : -1;
  if (c === 0x2e) {
    p++;
    c = p < end ? bytes[p]! : -1;
    if (!(c >= 0x30 && c <= 0x39)) return -1;
    do {
      mantissa = mantissa * 10 + (c - 0x30);
      digitCount++;
      fractionDigits++;
      p++;
      c = p < end ? bytes[p]! : -1;
    } while (c >= 0x30 && c <= 0x39);
  }
  let exponent = 0;
  if (c === 0x65 || c === 0x45) {
    p = scanExponent(bytes, p + 1, end);
    if (p < 0) return -1;
    exponent = scannedExponent;
  }
  const value = nearestDouble(bytes, digitsStart, p, mantissa, digitCount, exponent - fractionDigits);
  jsonNumberValue = negative ? -value : value;
  return p;
}

let scannedExponent = 0;

/** [+-]?\d+ from `start`; leaves the (clamped) value in scannedExponent. */
function scanExponent(bytes: Uint8Array, start: number, end: number): number {
  let p = start;
  let negative = false;
  let c = p < end ? bytes[p]! : -1;
  if (c === 0x2b || c === 0x2d) {
    negative = c === 0x2d;
    p++;
    c = p < end ? bytes[p]! : -1;
  }
  if (!(c >= 0x30 && c <= 0x39)) return -1;
  let exponent = 0;
  do {
    if (exponent < EXPONENT_CLAMP) exponent = exponent * 10 + (c - 0x30);
    p++;
    c = p < end ? bytes[p]! : -1;
  } while (c >= 0x30 && c <= 0x39);
  scannedExponent = negative ? -exponent : exponent;
  return p;
}

/**
 * A numeric string's value: exactly [+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)? over [start, end),
 * no whitespace, no NaN/Infinity/hex. NaN when the text is not of that form; ±Infinity when
 * it is but overflows a double.
 */
export function parseNumericText(bytes: Uint8Array, start: number, end: number): number {
  let p = start;
  let negative = false;
  let c = p < end ? bytes[p]! : -1;
  if (c === 0x2b || c === 0x2d) {
    negative = c === 0x2d;
    p++;
    c = p < end ? bytes[p]! : -1;
  }
  const digitsStart = p;
  let mantissa = 0;
  let digitCount = 0;
  while (c >= 0x30 && c <= 0x39) {
    mantissa = mantissa * 10 + (c - 0x30);
    digitCount++;
    p++;
    c = p < end ? bytes[p]! : -1;
  }
  let fractionDigits = 0;
  if (c === 0x2e) {
    p++;
    c = p < end ? bytes[p]! : -1;
    while (c >= 0x30 && c <= 0x39) {
      mantissa = mantissa * 10 + (c - 0x30);
      digitCount++;
      fractionDigits++;
      p++;
      c = p < end ? bytes[p]! : -1;
    }
  }
  if (digitCount === 0) return NaN;
  let exponent = 0;
  if (c === 0x65 || c === 0x45) {
    p = scanExponent(bytes, p + 1, end);
    if (p < 0) return NaN;
    exponent = scannedExponent;
  }
  if (p !== end) return NaN;
  const value = nearestDouble(bytes, digitsStart, end, mantissa, digitCount, exponent - fractionDigits);
  return negative ? -value : value;
}

/**
 * An exact signed 64-bit integer from [+-]?\d+ over [start, end) (leading zeros allowed).
 * Never goes through a double past 15 digits.
 */
export function parseBigintText(bytes: Uint8Array, start: number, end: number): bigint | NumberTextFailure {
  let p = start;
  const sign = bytes[p];
  const negative = sign === 0x2d;
  if (negative || sign === 0x2b) p++;
  if (p >= end) return 'value-type-mismatch';
  let value = 0;
  for (let i = p; i < end; i++) {
    const c = bytes[i]!;
    if (c < 0x30 || c > 0x39) return 'value-type-mismatch';
    value = value * 10 + (c - 0x30);
  }
  if (end - p <= EXACT_DIGITS_MAX) return BigInt(negative ? -value : value);
  while (p < end - 1 && bytes[p] === 0x30) p++;
  if (end - p > 19) return 'value-out-of-range';
  const digits = BigInt(asciiText(bytes, p, end));
  const result = negative ? -digits : digits;
  return result < INT64_MIN || result > INT64_MAX ? 'value-out-of-range' : result;
}

/**
 * An exact decimal as an integer scaled by 10^scale, from
 * [+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)? over [start, end). Digits past the scale are
 * rounded half to even (SPEC leaves the choice open); a result of more than `precision`
 * digits is out of range.
 */
export function parseDecimalText(bytes: Uint8Array, start: number, end: number, precision: number, scale: number): bigint | NumberTextFailure {
  let p = start;
  let negative = false;
  let c = p < end ? bytes[p]! : -1;
  if (c === 0x2b || c === 0x2d) {
    negative = c === 0x2d;
    p++;
    c = p < end ? bytes[p]! : -1;
  }
  let digits = '';
  let mantissa = 0;
  let fractionDigits = 0;
  let inFraction = false;
  let digitCount = 0;
  for (; p < end; p++) {
    c = bytes[p]!;
    if (c >= 0x30 && c <= 0x39) {
      mantissa = mantissa * 10 + (c - 0x30);
      digitCount++;
      if (inFraction) fractionDigits++;
    } else if (c === 0x2e && !inFraction) {
      inFraction = true;
    } else {
      break;
    }
  }
  if (digitCount === 0) return 'value-type-mismatch';
  let exponent = 0;
  if (p < end) {
    if (c !== 0x65 && c !== 0x45) return 'value-type-mismatch';
    p = scanExponent(bytes, p + 1, end);
    if (p !== end) return 'value-type-mismatch';
    exponent = scannedExponent;
  }
  const shift = exponent - fractionDigits + scale;
  if (digitCount <= EXACT_DIGITS_MAX && shift >= 0 && shift <= 22) {
    const scaled = mantissa * POW10[shift]!;
    // Below 2^53 the product is an exact integer; the precision check is on that integer.
    if (scaled < TWO_POW_53) {
      if (scaled >= 10 ** precision) return 'value-out-of-range';
      return BigInt(negative ? -scaled : scaled);
    }
  }
  for (let i = start; i < end; i++) {
    const d = bytes[i]!;
    if (d >= 0x30 && d <= 0x39) digits += String.fromCharCode(d);
    else if (d === 0x65 || d === 0x45) break;
  }
  const scaled = parseDecimalTextScaled(digits.replace(/^0+/, ''), shift, precision);
  if (typeof scaled !== 'bigint') return scaled;
  return negative ? -scaled : scaled;
}

/** |value| * 10^scale from its significant digits and the power of ten to apply. */
function parseDecimalTextScaled(digits: string, shift: number, precision: number): bigint | NumberTextFailure {
  if (digits === '') return 0n;
  if (shift >= 0) {
    if (digits.length + shift > precision) return 'value-out-of-range';
    return BigInt(digits) * 10n ** BigInt(shift);
  }
  const kept = digits.length + shift;
  if (kept < 0) return 0n; // below a tenth of the last unit: rounds to zero
  let quotient = kept === 0 ? 0n : BigInt(digits.slice(0, kept));
  const firstDropped = digits.charCodeAt(kept) - 0x30;
  const restNonZero = /[1-9]/.test(digits.slice(kept + 1));
  const odd = (quotient & 1n) === 1n;
  if (firstDropped > 5 || (firstDropped === 5 && (restNonZero || odd))) quotient += 1n;
  if (quotient >= 10n ** BigInt(precision)) return 'value-out-of-range';
  return quotient;
}

/** The text of a decoded string's numeric form, when it has one (ASCII only). */
export function numericStringValue(text: string): number {
  const bytes = asciiBytes(text);
  return bytes === null ? NaN : parseNumericText(bytes, 0, bytes.length);
}

/** A string's bytes when it is ASCII only (the numeric grammar is), else null. */
export function asciiBytes(text: string): Uint8Array | null {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) return null;
    bytes[i] = c;
  }
  return bytes;
}
