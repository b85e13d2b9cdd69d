// The keys a JSON text names twice in one object (refused, where JSON.parse would
// silently keep the last), each with its path. For the JSON.parse scanner
// (datapoint-scan-json.ts), which words the errors; the byte-level fast path only proves a
// body free of duplicates (json-bytes.ts, ObjectKeys). Keys are compared decoded, as
// JSON.parse compares them: `"\u0061"` is `"a"`, and invalid UTF-8 decodes to U+FFFD as it does
// for JSON.parse. Iterative, so no body can overflow the stack.
import { decodeJsonString, jsonStringEnd, jsonStringFlags, VALUE_KIND_STRING, VALUE_KIND_STRING_ENCODED } from './datapoint-body.ts';

/** A key named again in one object: the path of its object's members down to it, e.g. ['items', 3, 'id']. */
export interface DuplicateKey {
  key: string;
  path: (string | number)[];
}

interface Frame {
  /** Objects only: the keys read so far. */
  keys: Set<string> | null;
  /** Objects: the key being read. Arrays: the index of the element being read. */
  segment: string | number;
  /** Objects: whether the next string is a key. */
  expectKey: boolean;
}

/**
 * At most `max` duplicate keys of `b`, in text order. `b` must be valid JSON (JSON.parse
 * accepted it): anything else gives an unspecified list, never an exception.
 */
export function duplicateKeysOf(b: Uint8Array, max: number): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  const frames: Frame[] = [];
  const n = b.length;
  for (let p = 0; p < n && found.length < max; p++) {
    const c = b[p]!;
    const top = frames[frames.length - 1];
    if (c === 0x22) {
      const close = jsonStringEnd(b, p, n);
      if (close < 0) return found;
      if (top?.keys && top.expectKey) {
        const key = decodeJsonString(b, p + 1, close - p - 1, jsonStringFlags & 0x80 ? VALUE_KIND_STRING_ENCODED : VALUE_KIND_STRING);
        if (top.keys.has(key)) found.push({ key, path: [...frames.slice(0, -1).map((frame) => frame.segment), key] });
        top.keys.add(key);
        top.segment = key;
        top.expectKey = false;
      }
      p = close;
    } else if (c === 0x7b) {
      frames.push({ keys: new Set(), segment: '', expectKey: true });
    } else if (c === 0x5b) {
      frames.push({ keys: null, segment: 0, expectKey: false });
    } else if (c === 0x7d || c === 0x5d) {
      frames.pop();
    } else if (c === 0x2c && top) {
      if (top.keys) top.expectKey = true;
      else top.segment = (top.segment as number) + 1;
    }
  }
  return found;
}

/** A path as the scanners write fields: `items[3].datapoints[7].value`. */
export function fieldOfPath(path: readonly (string | number)[]): string {
  let field = '';
  for (const segment of path) {
    if (typeof segment === 'number') field += `[${segment}]`;
    else field += field === '' ? segment : `.${segment}`;
  }
  return field;
}

/** Own keys of every object in a parsed value, without recursion (fewer than the text's members: a duplicate). */
export function countObjectKeys(value: unknown): number {
  let keys = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (next === null || typeof next !== 'object') continue;
    if (Array.isArray(next)) {
      for (const item of next) if (item !== null && typeof item === 'object') pending.push(item);
      continue;
    }
    for (const key of Object.keys(next)) {
      keys++;
      const item = (next as Record<string, unknown>)[key];
      if (item !== null && typeof item === 'object') pending.push(item);
    }
  }
  return keys;
}
