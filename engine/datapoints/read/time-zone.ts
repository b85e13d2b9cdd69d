// Time zones of aggregate buckets: an IANA name (`Europe/Oslo`) or a fixed offset in the forms
// CDF and its clients send (`UTC`, `GMT`, `UTC+02:00`, `UTC-02`, `+05:30`, `+0400`, `-03`), offsets
// in multiples of 15 minutes up to 18 hours. A zone maps an instant to its offset and a local
// wall time back to the instant it first names (the earlier of two on a repeated hour; the end
// of the gap on a skipped one), which is all the bucket grid (aggregate-grid.ts) needs.
import { BadRequestError } from '../../errors.ts';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const OFFSET_MS_MAX = 18 * HOUR_MS;

export interface TimeZone {
  /** As the request named it. */
  name: string;
  /** The zone's offset from UTC at utcMs, in ms (local wall time = utcMs + offset). */
  offsetAt(utcMs: number): number;
  /** A fixed offset (never changes), else undefined. */
  fixedOffsetMs?: number;
}

function badZone(name: string, why: string): BadRequestError {
  return new BadRequestError(`timeZone ${JSON.stringify(name)}: ${why}`, [{ field: 'timeZone', message: why, value: name }]);
}

/** `±HH`, `±HHMM`, `±HH:MM` after an optional `UTC`/`GMT`; undefined when name has no such form. */
function fixedOffsetOf(name: string): number | undefined {
  if (/^(UTC|GMT|Z)$/i.test(name)) return 0;
  const match = /^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(name);
  if (!match) return undefined;
  const [, sign, hours, minutes] = match;
  const ms = (Number(hours) * 60 + Number(minutes ?? 0)) * MINUTE_MS;
  if (Number(minutes ?? 0) >= 60 || ms > OFFSET_MS_MAX) throw badZone(name, 'an offset is at most 18:00');
  if (ms % (15 * MINUTE_MS) !== 0) throw badZone(name, 'an offset is a multiple of 15 minutes');
  return sign === '-' ? -ms : ms;
}

const zones = new Map<string, TimeZone>();

/** The offset of a `GMT+05:30` / `GMT-00:53:28` / `GMT` name Intl writes. */
function offsetOfIntlName(text: string): number {
  const match = /^GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(text);
  if (!match || match[1] === undefined) return 0;
  const ms = ((Number(match[2]) * 60 + Number(match[3])) * 60 + Number(match[4] ?? 0)) * 1000;
  return match[1] === '-' ? -ms : ms;
}

/** Span of the offset tables an IANA zone builds on demand (one per year of instants asked about). */
const CHUNK_MS = 366 * DAY_MS;
/**
 * Spacing of the samples that find an IANA zone's transitions: no zone changes its offset twice
 * within 3 days, so equal offsets 3 days apart mean none in between; a change is then bisected
 * to the second (offsets change at whole seconds).
 */
const SAMPLE_MS = 3 * DAY_MS;

/** One chunk of a zone: the offset at its start and each change in it as [instant, offset from then]. */
interface OffsetChunk { first: number; changes: [at: number, offset: number][] }

function ianaZone(name: string): TimeZone {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', { timeZone: name, timeZoneName: 'longOffset' });
  } catch {
    throw badZone(name, 'not an IANA time zone name nor a UTC offset');
  }
  // Intl costs ~10 us a call; a day grid over decades asks for hundreds of thousands of offsets.
  const intlOffset = (utcMs: number): number => {
    const part = format.formatToParts(new Date(utcMs)).find((p) => p.type === 'timeZoneName');
    return offsetOfIntlName(part?.value ?? 'GMT');
  };
  const chunks = new Map<number, OffsetChunk>();
  const chunkOf = (index: number): OffsetChunk => {
    let chunk = chunks.get(index);
    if (chunk) return chunk;
    const from = index * CHUNK_MS;
    const first = intlOffset(from);
    chunk = { first, changes: [] };
    let [at, offset] = [from, first];
    while (at < from + CHUNK_MS) {
      const next = Math.min(at + SAMPLE_MS, from + CHUNK_MS);
      const nextOffset = intlOffset(next);
      if (nextOffset !== offset) {
        // The first whole second in (at, next] with the new offset.
        let [lo, hi] = [Math.floor(at / 1000), Math.floor(next / 1000)];
        while (hi - lo > 1) {
          const mid = Math.floor((lo + hi) / 2);
          if (intlOffset(mid * 1000) === offset) lo = mid;
          else hi = mid;
        }
        chunk.changes.push([hi * 1000, intlOffset(hi * 1000)]);
      }
      [at, offset] = [next, nextOffset];
    }
    if (chunks.size > 10_000) chunks.clear();
    chunks.set(index, chunk);
    return chunk;
  };
  return {
    name,
    offsetAt(utcMs: number): number {
      const chunk = chunkOf(Math.floor(utcMs / CHUNK_MS));
      let offset = chunk.first;
      for (const [at, after] of chunk.changes) {
        if (at > utcMs) break;
        offset = after;
      }
      return offset;
    },
  };
}

/** The zone a request names (undefined: UTC); 400 for a name that is neither form. */
export function parseTimeZone(name: string | undefined): TimeZone {
  const text = name ?? 'UTC';
  const known = zones.get(text);
  if (known) return known;
  const fixed = fixedOffsetOf(text.trim());
  const zone: TimeZone = fixed !== undefined ? { name: text, offsetAt: () => fixed, fixedOffsetMs: fixed } : ianaZone(text);
  if (zones.size > 1000) zones.clear();
  zones.set(text, zone);
  return zone;
}

/** The local wall time of an instant in the zone (ms since 1970-01-01T00:00 on the zone's calendar). */
export function wallOf(zone: TimeZone, utcMs: number): number {
  return utcMs + zone.offsetAt(utcMs);
}

/**
 * The first instant whose wall time is `wall`: of two (a repeated hour), the earlier; if none
 * (a skipped hour), the first instant after the gap, which is the transition itself.
 */
export function instantOf(zone: TimeZone, wall: number): number {
  if (zone.fixedOffsetMs !== undefined) return wall - zone.fixedOffsetMs;
  // Offsets a day either side bound every candidate (no zone moves by more than a day).
  const offsets = [...new Set([zone.offsetAt(wall - DAY_MS), zone.offsetAt(wall), zone.offsetAt(wall + DAY_MS)])];
  const valid = offsets.map((o) => wall - o).filter((u) => wallOf(zone, u) === wall);
  if (valid.length > 0) return Math.min(...valid);
  // A gap: the transition lies between the instants the offsets before and after it name.
  let lo = Math.min(...offsets.map((o) => wall - o));
  let hi = Math.max(...offsets.map((o) => wall - o));
  while (hi - lo > 1000) {
    const mid = Math.floor((lo + hi) / 2 / 1000) * 1000;
    if (mid <= lo) break;
    if (wallOf(zone, mid) < wall) lo = mid;
    else hi = mid;
  }
  return hi;
}
