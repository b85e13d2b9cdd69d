// Replay of the ingest write-ahead log at start (ingest-wal.ts): every batch left in it goes
// into the store before the service answers, in inserts of up to REPLAY_POINTS_MAX points.
// Batches keep their write versions, so one that was already stored collapses with itself
// and one a later write or delete replaced stays replaced.
import type { DatapointStore } from '../datapoints/datapoint-store.ts';
import type { IngestBatch } from './ingest-log.ts';
import type { Logger } from '../log.ts';
import { decodeWalRecord } from './wal-record.ts';

const REPLAY_POINTS_MAX = 2_000_000;

export async function replayIngestWal(store: Pick<DatapointStore, 'insertMany'>, payloads: readonly Buffer[], log: Logger): Promise<void> {
  let chunk: IngestBatch[] = [];
  let points = 0;
  let total = 0;
  const flush = async () => {
    if (chunk.length > 0) await store.insertMany(chunk);
    chunk = [];
    points = 0;
  };
  for (const payload of payloads) {
    const batch = decodeWalRecord(payload);
    const count = batch.series.reduce((sum, series) => sum + series.timestampMs.length, 0);
    if (points + count > REPLAY_POINTS_MAX) await flush();
    chunk.push(batch);
    points += count;
    total += count;
  }
  await flush();
  log.info({ batches: payloads.length, points: total }, 'replayed the ingest log into the store');
}
