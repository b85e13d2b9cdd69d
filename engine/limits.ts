// Contract caps from SPEC.md, one named constant each (STYLE §5). Policy values (rates,
// quotas, ceilings, WebSocket caps) live in engine/config.ts with SPEC's figures as defaults.

/** SPEC Limits, "Request body size": everything but POST /timeseries/data. */
export const BODY_BYTES_MAX = 4 * 1024 * 1024;
/** SPEC Limits, "Request body size": POST /timeseries/data. */
export const DATAPOINT_BODY_BYTES_MAX = 16 * 1024 * 1024;

/**
 * Not in SPEC: deepest nesting of objects and arrays accepted in a JSON request body.
 * The deepest legitimate body of our schemas is about 6 levels (items[].update.metadata.add);
 * 64 leaves room for filters to grow while keeping every recursive consumer (TypeBox's checks,
 * error listing, JSON.stringify of echoed values) far from the stack limit. Deeper is a 400.
 */
export const JSON_DEPTH_MAX = 64;

/** SPEC Limits, "Batch caps": items in any standard envelope. */
export const ITEMS_PER_REQUEST_MAX = 10_000;
/** Series one subscription names by id, at most (SPEC leaves subscription creation open). */
export const SUBSCRIPTION_SERIES_MAX = 10_000;
/** SPEC "Subscription stream": messages in one server frame, at most. */
export const SUBSCRIPTION_FRAME_MESSAGES_MAX = 500;
/** SPEC "Subscription stream": a frame goes out at least this often while messages wait. */
export const SUBSCRIPTION_FRAME_INTERVAL_MS = 500;
/** SPEC Limits, "Batch caps": datapoints in one collection, numeric series. */
export const NUMERIC_POINTS_PER_COLLECTION_MAX = 100_000;
/** SPEC Limits, "Batch caps": datapoints in one collection, TEXT or MIXED series. */
export const TEXT_POINTS_PER_COLLECTION_MAX = 10_000;

/** SPEC Conventions, "Common caps". */
export const DESCRIPTION_CHARS_MAX = 10_000;
export const METADATA_ENTRIES_MAX = 256;
export const METADATA_KEY_CHARS_MAX = 128;
export const METADATA_VALUE_CHARS_MAX = 1_024;
export const LABELS_MAX = 64;
export const LABEL_CHARS_MAX = 512;
export const RELATED_RESOURCES_MAX = 100;
export const GEOJSON_CHARS_MAX = 65_536;
/** SPEC Conventions: a data point `value` up to 64 characters. */
export const DATAPOINT_VALUE_CHARS_MAX = 64;

/** SPEC Limits, "List caps": time series list/filter. */
export const TIMESERIES_LIST_LIMIT_MAX = 10_000;
/** SPEC's list parameter: its documented default (1000) wins over the prose's 100. */
export const TIMESERIES_LIST_LIMIT_DEFAULT = 1_000;
export const TIMESERIES_SEARCH_LIMIT_MAX = 1_000;
export const TIMESERIES_SEARCH_LIMIT_DEFAULT = 100;

/**
 * Timestamps accepted on write: 1900-01-01T00:00:00Z to 2099-12-31T23:59:59.999Z, epoch ms.
 * Not shown in SPEC; CDF-style services accept this window. Documented in /openapi.json.
 */
export const TIMESTAMP_MS_MIN = -2_208_988_800_000;
export const TIMESTAMP_MS_MAX = 4_102_444_799_999;

/** Largest id handed out, so JavaScript clients hold ids exactly. */
export const ID_MAX = Number.MAX_SAFE_INTEGER;

/** Data point reads: raw points per item per request (CDF default 100, max 100 000). */
export const DATAPOINTS_LIMIT_DEFAULT = 100;
export const DATAPOINTS_LIMIT_MAX = 100_000;
/** Aggregate buckets per item per request. */
export const AGGREGATES_LIMIT_MAX = 10_000;

/**
 * Not in SPEC: at most this many per-field problems are listed for one POST /timeseries/data,
 * so a body of a million bad points cannot build a million error objects.
 */
export const DATAPOINT_ERRORS_MAX = 1_000;

/**
 * Files: a path is `/`-separated folders and a name; each segment at most 255 UTF-8
 * bytes (a file name on common file systems), the whole path at most 1,024 bytes.
 */
export const FILE_SEGMENT_BYTES_MAX = 255;
export const FILE_PATH_BYTES_MAX = 1_024;
/** An uploaded Content-Type is kept and returned; at most this many characters. */
export const FILE_CONTENT_TYPE_CHARS_MAX = 255;
/** Files per GET /files page (not shown in SPEC; a page of paths stays under a few MB). */
export const FILE_LIST_LIMIT_DEFAULT = 100;
export const FILE_LIST_LIMIT_MAX = 1_000;

/** Not in SPEC: characters of a function's expression (CDF's synthetic time series allow the same). */
export const FUNCTION_EXPRESSION_CHARS_MAX = 10_000;
/** Not in SPEC: distinct time series one expression reads. */
export const FUNCTION_INPUTS_MAX = 100;
/** Not in SPEC: points one function call or synthetic query answers, all its items together. */
export const FUNCTION_CALL_POINTS_MAX = 100_000;
/** GET /functions: page size as GET /timeseries (SPEC Limits, "List caps": time series list). */
export const FUNCTION_LIST_LIMIT_MAX = 10_000;
export const FUNCTION_LIST_LIMIT_DEFAULT = 1_000;
