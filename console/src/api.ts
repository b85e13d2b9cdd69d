// The one fetch wrapper: adds the bearer token, parses JSON, and turns refusals into ApiError
// with a readable message (api-error-message.ts). A 401 also signs out with the reason, since
// every later call would be refused too.
import { currentToken, signOut } from './auth.ts';
import { describeApiFailure, retryAfterSeconds } from './api-error-message.ts';

export class ApiError extends Error {
  readonly status: number;
  readonly retryAfterSeconds: number | undefined;
  constructor(message: string, status: number, retryAfter: number | undefined) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.retryAfterSeconds = retryAfter;
  }
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try { return JSON.parse(text); } catch { return text; }
}

/** Fetches with the token; resolves only for 2xx (and 304), throws ApiError otherwise. */
export async function apiFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const token = currentToken();
  if (token) headers.set('Authorization', `Bearer ${token}`);
  let response: Response;
  try {
    response = await fetch(path, { ...init, headers });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === 'AbortError') throw cause;
    throw new ApiError('The service could not be reached; check the connection and try again', 0, undefined);
  }
  if (response.ok || response.status === 304) return response;
  const failure = {
    status: response.status,
    body: await readBody(response),
    retryAfterHeader: response.headers.get('Retry-After'),
    receivedAtMs: Date.now(),
  };
  const message = describeApiFailure(failure);
  if (response.status === 401 && token) signOut(message);
  throw new ApiError(message, response.status, retryAfterSeconds(failure));
}

export async function apiJson<T>(method: 'GET' | 'POST', path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const init: RequestInit = { method, signal };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { 'Content-Type': 'application/json' };
  }
  const response = await apiFetch(path, init);
  return (await response.json()) as T;
}

export const apiGet = <T>(path: string, signal?: AbortSignal) => apiJson<T>('GET', path, undefined, signal);
export const apiPost = <T>(path: string, body: unknown, signal?: AbortSignal) => apiJson<T>('POST', path, body, signal);

/** A message for any thrown value: ApiError's own, or a generic one for the unexpected. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error && error.message) return `Something went wrong: ${error.message}`;
  return 'Something went wrong';
}
