// The port through which ingest parses POST /timeseries/data bodies off the event loop
// (DESIGN: the event loop never parses a large body). workers/datapoint-pool.ts implements the
// parser and workers/ the layout functions; api/server.ts hands both to openEngine, so engine/
// never imports workers/. Type-only: the shapes here are what the insert use case reads.
import type { SeriesPoints, ValueType } from '../datapoints/types.ts';
import type { PackedRows } from '../datapoints/write/packed-batch.ts';

/** A scanned body the shape of POST /timeseries/data refused (SPEC: 400), as the workers report it. */
export interface BodyScanProblem {
  /** JSON path of the offending input, e.g. `items[3].datapoints[7].timestamp`. */
  field: string;
  message: string;
  itemIndex?: number;
  pointIndex?: number;
  /** The cap that was passed. */
  limit?: number;
}

/** A point refused against its series' valueType (SPEC: 422), or an item past its points cap. */
export interface BodyValueProblem {
  itemIndex: number;
  pointIndex: number;
  /** JSON path: `items[i].datapoints[j].value`, or `items[i].datapoints` for points-cap. */
  field: string;
  value: string;
  valueType: ValueType;
  reason: string;
  limit?: number;
  message: string;
}

/** One item of a scanned body: the series as the client named it. */
export interface ScannedItemView {
  id?: number;
  externalId?: string;
}

/** What ingest reads of a scanned body; the columns themselves only go back to `encode`. */
export interface ScannedBodyView {
  /** Made on first read where the parser can (an insert that trusts its hints never reads them). */
  readonly items: ScannedItemView[];
  pointCount: number;
  /** Non-empty: the body is refused and items and columns are empty. */
  errors: BodyScanProblem[];
}

/** The points of a body parsed against the series' valueTypes. */
export interface EncodedBodyView {
  /** Per item in request order; null where the series is missing or the item has errors. */
  series: (SeriesPoints | null)[];
  errors: BodyValueProblem[];
  /** The series with points in the packed layout, when the parser has them so (the ingest log takes them without `series`). */
  readonly packed?: PackedRows;
}

/** What ingest last resolved for a tenant's series, by DatapointBodyLayout.hintKey (target-hints.ts). */
export interface SeriesHints {
  keys: string[];
  seriesIds: number[];
  valueTypes: ValueType[];
}

export interface DatapointScanOutcome {
  /** The same bytes that went in (a caller's ArrayBuffer was detached by the transfer). */
  body: Uint8Array;
  scanned: ScannedBodyView;
  /**
   * Encoded with the hinted valueTypes and seriesIds, when every item had a hint; `picks`:
   * each item's hint (an index into the hints' arrays). `byHintKeyAlone`: every item named its
   * series by one identifier (an id or an externalId), so its hint key alone says which series
   * it is; an item naming both must have them name the same series, which only the resolver checks.
   */
  speculative?: { picks: Int32Array; valueTypes: ValueType[]; seriesIds: number[]; encoded: EncodedBodyView; byHintKeyAlone: boolean };
}

/** The bodies POST /timeseries/data takes: JSON, or an Arrow IPC stream (`application/vnd.apache.arrow.stream`). */
export type DatapointBodyFormat = 'json' | 'arrow';

/** The parse workers (workers/datapoint-pool.ts): bounded, refusing with OverloadedError past their queue. */
export interface DatapointBodyParser {
  /** Phase 1: the body's shape, into `scratch`; with a speculation, encoded in the same task. */
  scan(body: Uint8Array, scratch?: SharedArrayBuffer, speculation?: { hints: SeriesHints; output: SharedArrayBuffer }, format?: DatapointBodyFormat): Promise<DatapointScanOutcome>;
  /** Phase 2: `scanned` is what scan returned for `body`; valueTypes and seriesIds run parallel to its items. */
  encode(body: Uint8Array, scanned: ScannedBodyView, valueTypes: (ValueType | null)[], seriesIds: (number | null)[], output?: SharedArrayBuffer): Promise<EncodedBodyView>;
  close(): Promise<void>;
}

/** The workers' memory layout and hint keys, so ingest can lend them pooled memory of the right size. */
export interface DatapointBodyLayout {
  /** Bytes of scratch the scan needs for a body of this size and format. */
  scanScratchBytes(bodyBytes: number, format: DatapointBodyFormat): number;
  /** Bytes of output a speculative encode needs for a body of this size and format. */
  speculativeOutputBytes(bodyBytes: number, format: DatapointBodyFormat): number;
  /** Bytes of output an encode needs for these points and items. */
  encodeOutputBytes(pointCount: number, itemCount: number): number;
  /** An item's identifier as the workers key hints: the id when given, else the externalId. */
  hintKey(item: ScannedItemView): string;
}
