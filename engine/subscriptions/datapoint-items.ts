// The stream's item JSON (SPEC "Subscription stream": `{ id, externalId, valueType,
// datapoints: [{ timestamp: ISO-8601, value: string }] }`) built from a committed batch's
// columns, once per series per batch, whatever number of subscriptions share it. Values are
// formatted as the read path formats them (datapoint-format.ts): exact decimals, 64-bit integers.
import { formatScaled } from '../datapoints/read/datapoint-format.ts';
import { DECIMAL_FORMAT, type SeriesPoints } from '../datapoints/types.ts';

function valueAt(series: Readonly<SeriesPoints>, i: number): string {
  switch (series.valueType) {
    case 'BIGINT': return (series.bigint as BigInt64Array)[i]!.toString();
    case 'NUMERIC': case 'DECIMAL32': return formatScaled((series.scaled as BigInt64Array)[i]!, DECIMAL_FORMAT[series.valueType].scale);
    case 'TEXT': return (series.text as string[])[i]!;
    case 'MIXED': return series.isText?.[i] ? (series.text as string[])[i]! : String((series.float as Float64Array)[i]);
    default: return String((series.float as Float64Array)[i]);
  }
}

/** One item as JSON text; points in timestamp order (the batch's invariant). */
export function datapointItemJson(id: number, externalId: string, series: Readonly<SeriesPoints>, from = 0, to = series.timestampMs.length): string {
  const points: string[] = [];
  for (let i = from; i < to; i++) {
    points.push(`{"timestamp":"${new Date(series.timestampMs[i]!).toISOString()}","value":${JSON.stringify(valueAt(series, i))}}`);
  }
  return `{"id":${id},"externalId":${JSON.stringify(externalId)},"valueType":"${series.valueType}","datapoints":[${points.join(',')}]}`;
}

/** The `payload` of one message. */
export function payloadJson(tenant: string, itemsJson: string): string {
  return `{"eventAction":"CREATE","eventObject":"DATAPOINTS","tenantId":${JSON.stringify(tenant)},"items":${itemsJson}}`;
}
