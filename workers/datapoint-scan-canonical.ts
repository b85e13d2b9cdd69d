// The canonical data point, `{"timestamp":<ms>,"value":"<decimal>"}` or with a JSON number
// value and no whitespace, as almost every client sends it: its keys compared a 32-bit word at
// a time and its timestamp read four digits at a time (SWAR), written straight into the byte
// scanner's point columns (datapoint-scan.ts). The scanner's hot loop calls it once per point
// and takes any other shape the general way.
import { TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../engine/limits.ts';
import { VALUE_KIND_NUMBER, VALUE_KIND_STRING } from './datapoint-body.ts';
import { bytesOf } from './json-bytes.ts';

/** Smallest bytes a point can take: {"timestamp":1,"value":1} is 25. */
export const POINT_BYTES_MIN = 25;

/** The body and the point columns of the scanner, which scanPointCanonical appends to. */
export interface PointColumns {
  readonly b: Uint8Array;
  /** The body again, for reading four bytes at once. */
  readonly words: DataView;
  readonly n: number;
  pointCount: number;
  readonly timestampMs: Float64Array;
  readonly valueKind: Uint8Array;
  readonly numberValue: Float64Array;
  readonly valueOffset: Uint32Array;
  readonly valueBytes: Uint32Array;
}

// Imported constants read per point, as module constants: in the worker threads tsx compiles
// these modules to CommonJS (piscina require()s the task), where each read of an imported
// binding is a getter call (about a third of the workers' CPU).
const KIND_NUMBER = VALUE_KIND_NUMBER;
const KIND_STRING = VALUE_KIND_STRING;
const CANONICAL_TIMESTAMP_MIN = TIMESTAMP_MS_MIN;
const CANONICAL_TIMESTAMP_MAX = TIMESTAMP_MS_MAX;

/** scanPointCanonical's fixed bytes. */
const CANONICAL_TIMESTAMP = bytesOf('{"timestamp":');
const CANONICAL_VALUE = bytesOf(',"value":');
/** Digits that make an exact integer in a double (10^15 < 2^53): Clinger's exact case. */
const CANONICAL_DIGITS_MAX = 15;
const POW10 = new Float64Array(CANONICAL_DIGITS_MAX + 1).map((_, i) => 10 ** i);
/** The canonical keys as little-endian 32-bit words, compared four bytes at a time. */
const littleEndianWord = (bytes: Uint8Array, at: number) => ((bytes[at] as number) | ((bytes[at + 1] as number) << 8) | ((bytes[at + 2] as number) << 16) | ((bytes[at + 3] as number) << 24)) >>> 0;

const TIMESTAMP_WORD_0 = littleEndianWord(CANONICAL_TIMESTAMP, 0);
const TIMESTAMP_WORD_1 = littleEndianWord(CANONICAL_TIMESTAMP, 4);
const TIMESTAMP_WORD_2 = littleEndianWord(CANONICAL_TIMESTAMP, 8);
const VALUE_WORD_0 = littleEndianWord(CANONICAL_VALUE, 0);
const VALUE_WORD_1 = littleEndianWord(CANONICAL_VALUE, 4);

/**
 * The shape almost every client sends, `{"timestamp":<ms>,"value":"<decimal>"}` or with a
 * JSON number value, without whitespace: matched byte by byte and parsed in one pass (about
 * half the CPU of the general loop). Returns the index after the point, or -1 without side
 * effects for anything else (signs other than a leading '-', exponents, more than 15
 * digits, whitespace, other keys), which the scanner then takes the general way. Values are
 * the same doubles parseNumericText and scanJsonNumber give (Clinger's exact case).
 */
export function scanPointCanonical(scanner: PointColumns, start: number): number {
  const { b, n, words } = scanner;
  // Both keys are compared a word at a time, and the timestamp read four digits at a time:
  // SWAR on 32-bit words, with the same rules as byte by byte (scanning is the
  // longest step of an ingest request).
  if (start + POINT_BYTES_MIN > n) return -1;
  if (words.getUint32(start, true) !== TIMESTAMP_WORD_0 || words.getUint32(start + 4, true) !== TIMESTAMP_WORD_1
    || words.getUint32(start + 8, true) !== TIMESTAMP_WORD_2 || b[start + 12] !== 0x3a) return -1;
  let p = start + CANONICAL_TIMESTAMP.length;
  let c = b[p]!;
  if (c < 0x31 || c > 0x39) return -1;
  let timestamp = 0;
  const timestampStart = p;
  while (p + 4 <= n) {
    const word = words.getUint32(p, true);
    // Four ASCII digits: every high nibble 3, and still 3 after adding 6 to every byte.
    if ((word & 0xf0f0f0f0) !== 0x30303030 || ((word + 0x06060606) & 0xf0f0f0f0) !== 0x30303030) break;
    const digits = word - 0x30303030;
    const pairs = digits * 10 + (digits >>> 8); // bytes 0 and 2: the first and second pair of digits
    timestamp = timestamp * 10000 + (pairs & 0xff) * 100 + ((pairs >>> 16) & 0xff);
    p += 4;
  }
  while (p < n && (c = b[p]!) >= 0x30 && c <= 0x39) {
    timestamp = timestamp * 10 + (c - 0x30);
    p++;
  }
  if (p - timestampStart > CANONICAL_DIGITS_MAX || timestamp < CANONICAL_TIMESTAMP_MIN || timestamp > CANONICAL_TIMESTAMP_MAX) return -1;
  if (p + CANONICAL_VALUE.length > n || words.getUint32(p, true) !== VALUE_WORD_0 || words.getUint32(p + 4, true) !== VALUE_WORD_1 || b[p + 8] !== 0x3a) return -1;
  p += CANONICAL_VALUE.length;
  const quoted = b[p] === 0x22;
  if (quoted) p++;
  const offset = p;
  const negative = b[p] === 0x2d;
  if (negative) p++;
  const digitsStart = p;
  let mantissa = 0;
  while (p < n && (c = b[p]!) >= 0x30 && c <= 0x39) {
    mantissa = mantissa * 10 + (c - 0x30);
    p++;
  }
  const integerDigits = p - digitsStart;
  // A JSON number has no leading zero; a numeric string may.
  if (integerDigits === 0 || (!quoted && integerDigits > 1 && b[digitsStart] === 0x30)) return -1;
  let fractionDigits = 0;
  if (b[p] === 0x2e) {
    p++;
    while (p < n && (c = b[p]!) >= 0x30 && c <= 0x39) {
      mantissa = mantissa * 10 + (c - 0x30);
      fractionDigits++;
      p++;
    }
    if (fractionDigits === 0) return -1;
  }
  if (integerDigits + fractionDigits > CANONICAL_DIGITS_MAX) return -1;
  const length = p - offset;
  if (quoted) {
    if (b[p] !== 0x22) return -1;
    p++;
  }
  if (b[p] !== 0x7d) return -1;
  const magnitude = fractionDigits === 0 ? mantissa : mantissa / POW10[fractionDigits]!;
  const i = scanner.pointCount++;
  scanner.timestampMs[i] = timestamp;
  scanner.valueKind[i] = quoted ? KIND_STRING : KIND_NUMBER;
  scanner.numberValue[i] = negative ? -magnitude : magnitude;
  scanner.valueOffset[i] = offset;
  scanner.valueBytes[i] = length;
  return p + 1;
}
