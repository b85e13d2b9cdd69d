// One series' live points as memory holds them (live-points.ts): times, values and write
// versions in parallel typed arrays, appended in arrival order and sorted on demand into one
// point per timestamp, the highest version's (the store's rule), with a floor below which
// nothing is kept.

/** One series' points at or after `floor`, in arrival order until sorted (sort()). */
export class HeldPoints {
  ts = new Float64Array(256);
  values = new Float64Array(256);
  versions = new BigInt64Array(256);
  length = 0;
  /** Ascending by time with one point per timestamp. */
  sorted = true;
  /** The leading points that are: what came after them is sorted into them by sort(). */
  private sortedLength = 0;

  constructor(public floor: number) {}

  add(ts: number, value: number, version: bigint): void {
    if (ts < this.floor) return;
    if (this.length === this.ts.length) this.grow(this.length * 2);
    if (this.length > 0 && ts <= (this.ts[this.length - 1] as number)) this.sorted = false;
    this.ts[this.length] = ts;
    this.values[this.length] = value;
    this.versions[this.length] = version;
    this.length++;
    if (this.sorted) this.sortedLength = this.length;
  }

  private grow(capacity: number): void {
    const ts = new Float64Array(capacity);
    const values = new Float64Array(capacity);
    const versions = new BigInt64Array(capacity);
    ts.set(this.ts.subarray(0, this.length));
    values.set(this.values.subarray(0, this.length));
    versions.set(this.versions.subarray(0, this.length));
    this.ts = ts;
    this.values = values;
    this.versions = versions;
  }

  /**
   * Ascending by time, per timestamp the point of the highest version (the store's rule): the
   * points after the sorted prefix are sorted alone and merged into it, so a late point costs
   * a pass over the held points, not a sort of them all.
   */
  sort(): void {
    if (this.sorted) return;
    const { ts, values, versions } = this;
    const prefix = this.sortedLength;
    const newer = (a: number, b: number) => (versions[a] as bigint) > (versions[b] as bigint);
    const tail = Array.from({ length: this.length - prefix }, (_, k) => prefix + k);
    tail.sort((a, b) => (ts[a] as number) - (ts[b] as number) || (newer(a, b) ? 1 : newer(b, a) ? -1 : 0));
    // The last of a timestamp's run in the tail is its newest version.
    const kept = tail.filter((i, k) => tail[k + 1] === undefined || ts[tail[k + 1] as number] !== ts[i]);
    const capacity = Math.max(256, this.ts.length);
    const out = { ts: new Float64Array(capacity), values: new Float64Array(capacity), versions: new BigInt64Array(capacity) };
    let n = 0;
    const put = (i: number) => {
      out.ts[n] = ts[i] as number;
      out.values[n] = values[i] as number;
      out.versions[n] = versions[i] as bigint;
      n++;
    };
    let i = 0;
    let k = 0;
    while (i < prefix || k < kept.length) {
      const j = kept[k];
      if (j === undefined || (i < prefix && (ts[i] as number) < (ts[j] as number))) put(i++);
      else if (i >= prefix || (ts[j] as number) < (ts[i] as number)) {
        put(j);
        k++;
      } else {
        put(newer(i, j) ? i : j);
        i++;
        k++;
      }
    }
    this.ts = out.ts;
    this.values = out.values;
    this.versions = out.versions;
    this.length = n;
    this.sortedLength = n;
    this.sorted = true;
  }

  /** Drops the points below `floor` (sorted points only). */
  raise(floor: number): void {
    if (floor <= this.floor) return;
    this.floor = floor;
    const from = lowerBound(this.ts, this.length, floor);
    if (from === 0) return;
    this.ts.copyWithin(0, from, this.length);
    this.values.copyWithin(0, from, this.length);
    this.versions.copyWithin(0, from, this.length);
    this.length -= from;
    this.sortedLength = this.length;
  }
}

/** The first index of ts[0, length) at or after ms (ts ascending). */
export function lowerBound(ts: Float64Array, length: number, ms: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((ts[mid] as number) < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
