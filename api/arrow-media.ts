// The Arrow IPC stream media type, as the data point routes take it in Content-Type (POST
// /timeseries/data) and answer it for Accept (POST /timeseries/data/list). The IANA
// registration is `application/vnd.apache.arrow.stream`; parameters after `;` are ignored.

export const ARROW_STREAM_MEDIA_TYPE = 'application/vnd.apache.arrow.stream';

/** Whether a Content-Type header names an Arrow IPC stream. */
export function isArrowStreamContentType(contentType: string): boolean {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase() === ARROW_STREAM_MEDIA_TYPE;
}

/** What an Arrow insert body holds, for the API description (workers/datapoint-scan-arrow.ts reads it). */
export const ARROW_INSERT_BODY = 'An Arrow IPC stream (uncompressed; one or more record batches) with one row per data point: '
  + '`externalId` (utf8, large_utf8 or dictionary<int, utf8>) or `id` (an integer type), `timestamp` (timestamp[s|ms|us|ns] holding whole milliseconds, '
  + 'date64, int64 or int32 epoch milliseconds) and `value` (float64 or float32; an integer type but uint64, exact for BIGINT beyond 2^53; utf8 or a dictionary of utf8 '
  + 'for TEXT, MIXED and numeric strings). No nulls. Other columns are ignored. Rows of a series may come in any order and interleaved with other series; '
  + 'a later row replaces an earlier one at the same timestamp. The JSON rules hold: caps per series, 404 for missing series (the others are inserted), '
  + '422 for values that do not parse (`field` names the row: `rows.17.value`), 400 for a malformed stream, naming the column and row.';
