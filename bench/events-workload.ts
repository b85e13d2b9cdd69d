// The events suite's workload: a deterministic event log of N events over 10,000
// correlation keys, 20 types, 5 metadata keys, descriptions of 20-200 words drawn from a
// Zipf-ranked vocabulary and 3 related resources each, from which the suite (events.ts) builds
// its requests, its COPY files and the answers every read is checked against.
import { v7 as uuidv7 } from 'uuid';
import { hashUniform, mulberry32 } from './prng.ts';

export interface EventsSize {
  eventCount: number;
  keyCount: number;
  /** Resources created first (a root and its children) that events relate to. */
  resourceCount: number;
  /** Events per create request at most (SPEC's batch cap); the 4 MiB body cap may cut it. */
  requestEventsMax: number;
  senders: number;
  pageSize: number;
  searchLimit: number;
  warmupCount: number;
  runCount: number;
}

export const EVENTS_SIZES: Record<'full' | 'small' | 'tiny', EventsSize> = {
  full: { eventCount: 1_000_000, keyCount: 10_000, resourceCount: 1_000, requestEventsMax: 10_000, senders: 2, pageSize: 1_000, searchLimit: 100, warmupCount: 5, runCount: 30 },
  small: { eventCount: 100_000, keyCount: 1_000, resourceCount: 300, requestEventsMax: 10_000, senders: 2, pageSize: 1_000, searchLimit: 100, warmupCount: 3, runCount: 30 },
  tiny: { eventCount: 3_000, keyCount: 30, resourceCount: 20, requestEventsMax: 1_000, senders: 2, pageSize: 1_000, searchLimit: 100, warmupCount: 1, runCount: 3 },
};

/** SPEC Limits: a request body other than POST /timeseries/data is at most 4 MiB. */
export const BODY_BYTES_MAX = 4 * 1024 * 1024;
const START_MS = Date.UTC(2026, 0, 1);
/** One event every 5 s: 1,000,000 events span about 58 days. */
const SPACING_MS = 5_000;
export const WORDS_MIN = 20;
export const WORDS_MAX = 200;
export const RELATED_PER_EVENT = 3;
/** Events of the type window: about 40,000 events wide, so a type has about 2,000 in it (two pages). */
export const TYPE_WINDOW_EVENTS = 40_000;

export const TYPES = [
  'alarm', 'warning', 'trip', 'maintenance', 'inspection', 'calibration', 'changeover', 'startup', 'shutdown', 'quality',
  'batch-start', 'batch-end', 'operator-note', 'work-order', 'downtime', 'setpoint-change', 'mode-change', 'sample', 'cleaning', 'safety',
];
const SUB_TYPES = [
  'high-limit', 'low-limit', 'rate-of-change', 'comm-loss', 'planned', 'unplanned', 'corrective', 'preventive', 'deviation', 'manual',
  'automatic', 'scheduled', 'escalated', 'repeat', 'first-out', 'cleared', 'bypassed', 'latched', 'shelved', 'test',
  'lab', 'inline', 'visual', 'vibration', 'thermal', 'electrical', 'mechanical', 'process', 'utility', 'hse',
];
const STATUSES = ['open', 'acknowledged', 'in-progress', 'closed', 'cancelled'];
const SOURCES = Array.from({ length: 24 }, (_, k) => `${['historian', 'scada', 'mes', 'cmms'][k % 4]}-${String(k).padStart(2, '0')}`);
const SHIFTS = ['A', 'B', 'C'];

/** Synthetic vocabulary: distinct 6-letter words (three consonant-vowel syllables), so no word is a prefix of another. */
export const VOCABULARY_SIZE = 20_000;
const CONSONANTS = 'bdfghklmnprstvz';
const VOWELS = 'aeiou';
/** Words of the search band: each in about 0.1% to 0.5% of the descriptions (Zipf ranks, see below). */
const SEARCH_CANDIDATES = 64;

function vocabularyWord(rank: number): string {
  // Spread ranks over the 75^3 syllable triples so frequent words do not share a first syllable.
  let v = (rank * 104_729 + 7_919) % 421_875;
  let word = '';
  for (let s = 0; s < 3; s++) {
    const syllable = v % 75;
    v = Math.floor(v / 75);
    word += (CONSONANTS[syllable % 15] as string) + (VOWELS[Math.floor(syllable / 15)] as string);
  }
  return word;
}

/**
 * The event log, every field a pure function of the event's index `i` (events are created in
 * index order and eventTime grows with it, so an eventTime names its event). Words follow a
 * Zipf law (s = 1) over VOCABULARY_SIZE words, as words of real log text do.
 */
export class EventLog {
  readonly words: string[] = Array.from({ length: VOCABULARY_SIZE }, (_, r) => vocabularyWord(r));
  readonly #cdf = new Float64Array(VOCABULARY_SIZE);
  readonly #table: Int32Array;
  /** Events of each correlation key, in index order (CSR). */
  readonly keyStart: Int32Array;
  readonly keyEvents: Int32Array;
  /** Search candidate ranks and, per candidate, a bitset of the events whose description holds it. */
  readonly searchRanks: number[];
  readonly #searchBits: Uint32Array[];
  /** Distinct values present, per distinct-list family. */
  readonly present = { types: new Set<string>(), 'sub-types': new Set<string>(), statuses: new Set<string>(), sources: new Set<string>() };

  constructor(readonly size: EventsSize) {
    let sum = 0;
    for (let r = 0; r < VOCABULARY_SIZE; r++) this.#cdf[r] = sum += 1 / (r + 1);
    for (let r = 0; r < VOCABULARY_SIZE; r++) this.#cdf[r] = (this.#cdf[r] as number) / sum;
    const buckets = 1 << 16;
    this.#table = new Int32Array(buckets + 1);
    let r = 0;
    for (let j = 0; j <= buckets; j++) {
      while (r < VOCABULARY_SIZE - 1 && (this.#cdf[r] as number) < j / buckets) r++;
      this.#table[j] = r;
    }
    // Ranks whose expected share of descriptions (1 - e^(-L·p), L the mean word count) is 0.1%..0.5%, log-spaced.
    const meanWords = (WORDS_MIN + WORDS_MAX) / 2;
    const rankForShare = (share: number) => Math.round(meanWords / (-Math.log(1 - share) * sum));
    const [lo, hi] = [rankForShare(0.005), rankForShare(0.001)];
    this.searchRanks = Array.from({ length: SEARCH_CANDIDATES }, (_, k) => Math.round(lo * (hi / lo) ** (k / (SEARCH_CANDIDATES - 1))));
    this.#searchBits = this.searchRanks.map(() => new Uint32Array(Math.ceil(size.eventCount / 32)));
    const counts = new Int32Array(size.keyCount + 1);
    for (let i = 0; i < size.eventCount; i++) (counts[this.key(i) + 1] as number)++;
    for (let k = 0; k < size.keyCount; k++) counts[k + 1] = (counts[k + 1] as number) + (counts[k] as number);
    this.keyStart = counts;
    this.keyEvents = new Int32Array(size.eventCount);
    const fill = Int32Array.from(counts);
    for (let i = 0; i < size.eventCount; i++) {
      const k = this.key(i);
      this.keyEvents[(fill[k] as number)++] = i;
      this.present.types.add(this.type(i));
      this.present['sub-types'].add(this.subType(i));
      this.present.statuses.add(this.status(i));
      this.present.sources.add(this.source(i));
    }
  }

  key(i: number): number {
    return Math.floor(hashUniform(i, 1) * this.size.keyCount);
  }

  externalIdOfKey(k: number): string {
    return `corr-${String(k).padStart(5, '0')}`;
  }

  externalId(i: number): string {
    return this.externalIdOfKey(this.key(i));
  }

  eventTime(i: number): number {
    return START_MS + i * SPACING_MS;
  }

  /** The event an eventTime names, or -1. */
  indexOf(eventTime: number): number {
    const i = (eventTime - START_MS) / SPACING_MS;
    return Number.isInteger(i) && i >= 0 && i < this.size.eventCount ? i : -1;
  }

  type(i: number): string {
    return TYPES[Math.floor(hashUniform(i, 2) * TYPES.length)] as string;
  }

  subType(i: number): string {
    return SUB_TYPES[Math.floor(hashUniform(i, 3) * SUB_TYPES.length)] as string;
  }

  status(i: number): string {
    return STATUSES[Math.floor(hashUniform(i, 4) * STATUSES.length)] as string;
  }

  source(i: number): string {
    return SOURCES[Math.floor(hashUniform(i, 5) * SOURCES.length)] as string;
  }

  metadata(i: number): Record<string, string> {
    const h = Math.floor(hashUniform(i, 6) * 2 ** 30);
    return { site: `site-${h % 10}`, area: `area-${(h >> 4) % 50}`, shift: SHIFTS[(h >> 10) % 3] as string, priority: String(1 + ((h >> 12) % 5)), operator: `op-${(h >> 15) % 200}` };
  }

  /** Three distinct resources (indexes into the created resources). */
  related(i: number): number[] {
    const n = this.size.resourceCount;
    const a = Math.floor(hashUniform(i, 7) * n);
    const b = (a + 1 + Math.floor(hashUniform(i, 8) * (n - 1))) % n;
    let c = (a + 1 + Math.floor(hashUniform(i, 10) * (n - 1))) % n;
    if (c === b) c = (c + 1) % n === a ? (c + 2) % n : (c + 1) % n;
    return [a, b, c].slice(0, RELATED_PER_EVENT);
  }

  /** The description's word ranks: 20-200 words. */
  descriptionRanks(i: number): number[] {
    const random = mulberry32((i * 2_654_435_761) ^ 0x5eed);
    const count = WORDS_MIN + Math.floor(hashUniform(i, 9) * (WORDS_MAX - WORDS_MIN + 1));
    const ranks: number[] = new Array(count);
    for (let w = 0; w < count; w++) {
      const u = random();
      const j = Math.floor(u * (this.#table.length - 1));
      let lo = this.#table[j] as number;
      let hi = this.#table[j + 1] as number;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((this.#cdf[mid] as number) < u) lo = mid + 1;
        else hi = mid;
      }
      ranks[w] = lo;
    }
    return ranks;
  }

  description(i: number): string {
    return this.descriptionRanks(i).map((r) => this.words[r]).join(' ');
  }

  /** Records which search candidates event `i`'s description holds (called once per event while generating). */
  noteSearchWords(i: number, ranks: number[]): void {
    for (let c = 0; c < this.searchRanks.length; c++) {
      if (ranks.includes(this.searchRanks[c] as number)) (this.#searchBits[c] as Uint32Array)[i >>> 5] = ((this.#searchBits[c] as Uint32Array)[i >>> 5] as number) | (1 << (i & 31));
    }
  }

  holdsSearchWord(candidate: number, i: number): boolean {
    return (((this.#searchBits[candidate] as Uint32Array)[i >>> 5] as number) & (1 << (i & 31))) !== 0;
  }

  /** Events holding either candidate word. */
  searchMatchCount(a: number, b: number): number {
    const x = this.#searchBits[a] as Uint32Array;
    const y = this.#searchBits[b] as Uint32Array;
    let n = 0;
    for (let w = 0; w < x.length; w++) {
      let v = ((x[w] as number) | (y[w] as number)) >>> 0;
      while (v !== 0) {
        v &= v - 1;
        n++;
      }
    }
    return n;
  }

  resourceExternalId(r: number): string {
    return `evres-${String(r).padStart(5, '0')}`;
  }
}

/** One read request of the suite: its body, and the event indexes it must answer, in order. */
export interface EventsRead { body: unknown; want: number[]; what: string }

/** A random type in a random window of about TYPE_WINDOW_EVENTS events: the first page, eventTime ascending. */
export function typeWindowRead(eventLog: EventLog, random: () => number): EventsRead {
  const n = eventLog.size.eventCount;
  const width = Math.min(n, TYPE_WINDOW_EVENTS);
  const from = Math.floor(random() * (n - width + 1));
  const type = TYPES[Math.floor(random() * TYPES.length)] as string;
  const want: number[] = [];
  for (let i = from; i < from + width && want.length < eventLog.size.pageSize; i++) if (eventLog.type(i) === type) want.push(i);
  return { body: { filter: { type, eventTime: { min: eventLog.eventTime(from), max: eventLog.eventTime(from + width) } }, limit: eventLog.size.pageSize }, want, what: `filter type ${type}` };
}

/**
 * From a random eventTime on: events of either of two random types, or under any of ten
 * correlation keys sharing a prefix (about 1,000 events), the first page by eventTime.
 */
export function advancedFilterRead(eventLog: EventLog, random: () => number): EventsRead {
  const n = eventLog.size.eventCount;
  const from = Math.floor(random() * n * 0.9);
  const a = Math.floor(random() * TYPES.length);
  const b = (a + 1 + Math.floor(random() * (TYPES.length - 1))) % TYPES.length;
  const types = [TYPES[a] as string, TYPES[b] as string];
  const prefix = eventLog.externalIdOfKey(Math.floor(random() * eventLog.size.keyCount)).slice(0, -1);
  const want: number[] = [];
  for (let i = from; i < n && want.length < eventLog.size.pageSize; i++) if (types.includes(eventLog.type(i)) || eventLog.externalId(i).startsWith(prefix)) want.push(i);
  return {
    body: {
      filter: { eventTime: { min: eventLog.eventTime(from) } },
      advancedFilter: { or: [{ in: { property: ['type'], values: types } }, { prefix: { property: ['externalId'], value: prefix } }] },
      limit: eventLog.size.pageSize,
    },
    want,
    what: `advanced filter ${types.join('|')} or ${prefix}*`,
  };
}

/** Two random words of the search band: the search body, its candidates and how many events hold either. */
export function searchRead(eventLog: EventLog, random: () => number): { body: unknown; query: string; a: number; b: number; matches: number } {
  const candidates = eventLog.searchRanks.length;
  const a = Math.floor(random() * candidates);
  const b = (a + 1 + Math.floor(random() * (candidates - 1))) % candidates;
  const query = `${eventLog.words[eventLog.searchRanks[a] as number]} ${eventLog.words[eventLog.searchRanks[b] as number]}`;
  return { body: { search: { query }, limit: eventLog.size.searchLimit }, query, a, b, matches: eventLog.searchMatchCount(a, b) };
}
