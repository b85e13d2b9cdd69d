// Micro benchmark of the POST /timeseries/data pipeline in one thread (JSON.parse
// alone caps a process at about 2.2M points/s). Body: one item, FLOAT values as strings,
// 1 s apart. Compares scan+encode with JSON.parse plus the same column building, and prints
// points/s and a checksum of the columns. Full size: `npx tsx workers/datapoint-scan.bench.ts`
// (optionally a point count); datapoint-scan.bench.test.ts runs it small so it cannot rot.
// Past NUMERIC_POINTS_PER_COLLECTION_MAX points the body is split into items of at most that
// many (a collection holds no more: SPEC Limits, "Batch caps"), as a client must. The general
// scan row times points the canonical reader hands back (`{"value":..,"timestamp":..}`).

import { pathToFileURL } from 'node:url';
import { NUMERIC_POINTS_PER_COLLECTION_MAX } from '../engine/limits.ts';
import { encodeScannedBody } from './datapoint-encode.ts';
import { scanDatapointBody } from './datapoint-scan.ts';

export interface DatapointScanBenchResult {
  points: number;
  bodyBytes: number;
  rounds: number;
  /** Median over rounds, points per second. */
  scanPointsPerSecond: number;
  /** The same points with the keys swapped, which the general point loop scans. */
  scanGeneralPointsPerSecond: number;
  scanEncodePointsPerSecond: number;
  jsonParsePointsPerSecond: number;
  jsonParseColumnsPointsPerSecond: number;
  /** Of the scan+encode columns and of the JSON.parse columns; equal when both are right. */
  checksum: string;
  jsonParseChecksum: string;
}

/**
 * A body of `points` FLOAT points as strings, 1 s apart, in items of at most
 * NUMERIC_POINTS_PER_COLLECTION_MAX points; `general` writes each point's value first.
 */
export function makeFloatBody(points: number, general = false): Uint8Array {
  const items: string[] = [];
  let parts: string[] = [];
  let seed = 12345;
  const start = 1_700_000_000_000;
  const flush = () => {
    items.push(`{"externalId":"bench-float-${items.length}","datapoints":[${parts.join(',')}]}`);
    parts = [];
  };
  for (let i = 0; i < points; i++) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const value = ((seed % 2_000_000) - 1_000_000) / 1000;
    parts.push(general ? `{"value":"${value}","timestamp":${start + i * 1000}}` : `{"timestamp":${start + i * 1000},"value":"${value}"}`);
    if (parts.length === NUMERIC_POINTS_PER_COLLECTION_MAX) flush();
  }
  if (parts.length > 0 || items.length === 0) flush();
  return new TextEncoder().encode(`{"items":[${items.join(',')}]}`);
}

/** Count, last timestamp and sum of the values over every item's columns, in order. */
function columnsChecksum(columns: { timestampMs: Float64Array; float: Float64Array }[]): string {
  let count = 0;
  let sum = 0;
  let last = 0;
  for (const { timestampMs, float } of columns) {
    for (let i = 0; i < float.length; i++) sum += float[i]!;
    if (timestampMs.length > 0) last = timestampMs[timestampMs.length - 1]!;
    count += float.length;
  }
  return `${count}:${last}:${sum.toFixed(3)}`;
}

function scanEncode(body: Uint8Array): string {
  const scanned = scanDatapointBody(body);
  const itemCount = scanned.items.length;
  const { series, errors } = encodeScannedBody(body, scanned, new Array(itemCount).fill('FLOAT'), Array.from({ length: itemCount }, (_, i) => i + 1));
  if (errors.length > 0) throw new Error(`unexpected bench body: ${errors[0]!.message}`);
  return columnsChecksum(series.map((points) => ({ timestampMs: points!.timestampMs, float: points!.float! })));
}

interface ParsedBody {
  items: { datapoints: { timestamp: number; value: string }[] }[];
}

/** The same job with JSON.parse: columns of timestamps and values, then a sort check. */
function jsonParseColumns(body: Uint8Array): string {
  const parsed = JSON.parse(new TextDecoder().decode(body)) as ParsedBody;
  return columnsChecksum(parsed.items.map(({ datapoints: points }) => {
    const timestampMs = new Float64Array(points.length);
    const float = new Float64Array(points.length);
    for (let i = 0; i < points.length; i++) {
      const point = points[i]!;
      timestampMs[i] = point.timestamp;
      float[i] = Number(point.value);
      if (!Number.isFinite(float[i]!) || (i > 0 && !(timestampMs[i]! > timestampMs[i - 1]!))) throw new Error('unexpected bench body');
    }
    return { timestampMs, float };
  }));
}

function medianPointsPerSecond(points: number, rounds: number, run: () => unknown): number {
  const seconds: number[] = [];
  run(); // warm-up
  for (let r = 0; r < rounds; r++) {
    const start = process.hrtime.bigint();
    run();
    seconds.push(Number(process.hrtime.bigint() - start) / 1e9);
  }
  seconds.sort((a, b) => a - b);
  return Math.round(points / seconds[Math.floor(seconds.length / 2)]!);
}

export function runDatapointScanBench(options: { points: number; rounds: number }): DatapointScanBenchResult {
  const { points, rounds } = options;
  const body = makeFloatBody(points);
  const generalBody = makeFloatBody(points, true);
  return {
    points,
    bodyBytes: body.length,
    rounds,
    scanPointsPerSecond: medianPointsPerSecond(points, rounds, () => scanDatapointBody(body)),
    scanGeneralPointsPerSecond: medianPointsPerSecond(points, rounds, () => scanDatapointBody(generalBody)),
    scanEncodePointsPerSecond: medianPointsPerSecond(points, rounds, () => scanEncode(body)),
    jsonParsePointsPerSecond: medianPointsPerSecond(points, rounds, () => JSON.parse(new TextDecoder().decode(body))),
    jsonParseColumnsPointsPerSecond: medianPointsPerSecond(points, rounds, () => jsonParseColumns(body)),
    checksum: scanEncode(body),
    jsonParseChecksum: jsonParseColumns(body),
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const points = Number(process.argv[2] ?? 100_000);
  const result = runDatapointScanBench({ points, rounds: 21 });
  const rate = (pps: number) => `${(pps / 1e6).toFixed(2)}M points/s`;
  console.log(`datapoint scan bench: ${result.points} FLOAT points as strings, ${result.bodyBytes} bytes, median of ${result.rounds}, one thread, node ${process.version}`);
  console.log(`  scan (bytes fast path)         ${rate(result.scanPointsPerSecond)}`);
  console.log(`  scan, value key first (general) ${rate(result.scanGeneralPointsPerSecond)}`);
  console.log(`  scan + encode                  ${rate(result.scanEncodePointsPerSecond)}`);
  console.log(`  JSON.parse alone               ${rate(result.jsonParsePointsPerSecond)}`);
  console.log(`  JSON.parse + columns           ${rate(result.jsonParseColumnsPointsPerSecond)}`);
  console.log(`  checksum ${result.checksum} (JSON.parse path ${result.jsonParseChecksum})`);
}
