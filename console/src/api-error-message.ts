// Turns a refused API answer into one sentence a person can act on. Pure: the fetch wrapper
// (api.ts) gathers the status, body and Retry-After header; views only show the sentence.

/** What the fetch wrapper knows about a refused answer. */
export interface ApiFailure {
  status: number;
  /** The parsed JSON body, or undefined when it was not JSON. */
  body: unknown;
  /** The raw Retry-After header, when sent. */
  retryAfterHeader: string | null;
  /** When the answer arrived, epoch ms; turns an HTTP-date Retry-After into seconds. */
  receivedAtMs: number;
}

/** The server's own words: `{ error: { message } }`, a problem document or an OAuth error. */
export function serverMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const error = record.error;
  if (typeof error === 'object' && error !== null) {
    const message = (error as Record<string, unknown>).message;
    if (typeof message === 'string' && message !== '') return message;
  }
  for (const key of ['detail', 'title', 'error_description', 'message']) {
    const value = record[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  if (typeof error === 'string' && error !== '') return error;
  return undefined;
}

function errorField(body: unknown, field: string): unknown {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  const error = record.error;
  if (typeof error === 'object' && error !== null && field in error) return (error as Record<string, unknown>)[field];
  return record[field];
}

/**
 * Seconds to wait before retrying: the Retry-After header (delta-seconds or an HTTP-date,
 * RFC 9110 10.2.3) first, then the body's `retryAfter` (problem documents carry it).
 */
export function retryAfterSeconds(failure: ApiFailure): number | undefined {
  const header = failure.retryAfterHeader?.trim();
  if (header) {
    if (/^\d+$/.test(header)) return Number(header);
    const dateMs = Date.parse(header);
    if (Number.isFinite(dateMs)) return Math.max(0, Math.ceil((dateMs - failure.receivedAtMs) / 1000));
  }
  const fromBody = errorField(failure.body, 'retryAfter');
  if (typeof fromBody === 'number' && Number.isFinite(fromBody) && fromBody >= 0) return Math.ceil(fromBody);
  if (typeof fromBody === 'string' && /^\d+$/.test(fromBody)) return Number(fromBody);
  return undefined;
}

function withDetail(prefix: string, detail: string | undefined): string {
  return detail ? `${prefix}: ${detail}` : prefix;
}

/** One readable sentence for a refused answer; never empty. */
export function describeApiFailure(failure: ApiFailure): string {
  const detail = serverMessage(failure.body);
  const retry = retryAfterSeconds(failure);
  const retryText = retry === undefined ? '' : `retry in ${retry} s`;
  switch (failure.status) {
    case 401:
      return withDetail('Your access token was refused', detail);
    case 403: {
      if (errorField(failure.body, 'type') === 'FeatureDisabledError') {
        const feature = errorField(failure.body, 'feature');
        const name = typeof feature === 'string' ? `The ${feature} feature` : 'This feature';
        return `${name} is not enabled for your organization`;
      }
      return withDetail('Not allowed', detail);
    }
    case 404:
      return withDetail('Not found', detail);
    case 429:
      return retryText ? `Too many requests: ${retryText}` : withDetail('Too many requests', detail);
    case 503:
      return withDetail('The service is busy or a store is unavailable', retryText || detail);
    default:
      if (failure.status >= 500) return withDetail(`The service failed (${failure.status})`, detail);
      return withDetail(`Request refused (${failure.status})`, detail);
  }
}
