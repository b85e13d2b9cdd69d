// How an IngestBatch becomes Kafka messages: one message per series, keyed
// `<tenant>:<seriesId>` so the partitioner keeps a series on one partition, in order; a
// series too large for one message is cut into chunks of consecutive timestamps under the
// same key. Encoding is batch-codec.ts's; sending is kafka-log.ts's.
import { seriesSlice, type SeriesPoints } from '../datapoints/types.ts';
import type { IngestBatch } from './ingest-log.ts';
import { encodeIngestBatch } from './batch-codec.ts';

/**
 * Default bound of one message's value. Kafka's default `message.max.bytes` is about 1 MiB
 * per record batch; a quarter leaves room for several messages per partition in one request.
 */
export const MESSAGE_BYTES_MAX_DEFAULT = 256 * 1024;

export interface IngestMessage {
  key: string;
  value: Buffer;
}

/** The partitioning key of a series (tenant first, STYLE §2). */
export function seriesMessageKey(tenant: string, seriesId: number): string {
  return `${tenant}:${seriesId}`;
}

/** Upper bound of the encoded bytes of point i (see batch-codec.ts layout). */
function pointBytesMax(series: SeriesPoints, i: number): number {
  const timestampBytes = 8;
  switch (series.valueType) {
    case 'TEXT':
      return timestampBytes + 8 + 3 * (series.text?.[i]?.length ?? 0);
    case 'MIXED':
      return timestampBytes + 1 + 8 + 8 + 3 * (series.text?.[i]?.length ?? 0);
    default:
      return timestampBytes + 8;
  }
}

/** Cuts a series into runs of consecutive points whose encoded size stays under the bound. */
export function splitSeries(series: SeriesPoints, valueBytesMax: number): SeriesPoints[] {
  const count = series.timestampMs.length;
  const headerBytes = 64;
  const chunks: SeriesPoints[] = [];
  let from = 0;
  let bytes = headerBytes;
  for (let i = 0; i < count; i++) {
    const pointBytes = pointBytesMax(series, i);
    if (i > from && bytes + pointBytes > valueBytesMax) {
      chunks.push(seriesSlice(series, from, i));
      from = i;
      bytes = headerBytes;
    }
    bytes += pointBytes;
  }
  if (from < count || count === 0) chunks.push(from === 0 ? series : seriesSlice(series, from, count));
  return chunks;
}

/** One message per series (or per chunk of a large series), all with the batch's writeVersion. */
export function batchToMessages(batch: IngestBatch, valueBytesMax = MESSAGE_BYTES_MAX_DEFAULT): IngestMessage[] {
  const messages: IngestMessage[] = [];
  const tenantBytes = Buffer.byteLength(batch.tenant, 'utf8');
  for (const series of batch.series) {
    const key = seriesMessageKey(batch.tenant, series.seriesId);
    for (const chunk of splitSeries(series, valueBytesMax - tenantBytes)) {
      messages.push({ key, value: encodeIngestBatch({ tenant: batch.tenant, writeVersion: batch.writeVersion, series: [chunk] }) });
    }
  }
  return messages;
}
