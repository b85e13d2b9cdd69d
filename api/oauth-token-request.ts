// Reading a POST /oauth/token request (RFC 6749 §2.3.1, §4.4): client_credentials from a form
// or JSON body, or HTTP Basic. Whatever the body holds (JSON null, a scalar, an array, a field
// that is not a string, bad UTF-8, a parameter given twice), the answer is a 400
// invalid_request, never a 500. Checking the client is operational.ts's business.
import { BadRequestError } from '../engine/errors.ts';
import { assertUtf8, isJsonContentType, parseJsonBody } from './json-body.ts';

export type TokenRequestFields = Partial<Record<'grant_type' | 'client_id' | 'client_secret' | 'scope', string>>;

export type TokenRequest = { ok: true; fields: TokenRequestFields } | { ok: false; description: string };

const FIELD_NAMES = ['grant_type', 'client_id', 'client_secret', 'scope'] as const;

function isFormContentType(contentType: string): boolean {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === '' || type === 'application/x-www-form-urlencoded';
}

function fieldsOfJson(raw: Uint8Array, contentType: string): TokenRequest {
  const value = parseJsonBody(raw, contentType);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, description: `the body must be a JSON object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}` };
  }
  const fields: TokenRequestFields = {};
  for (const name of FIELD_NAMES) {
    const field = (value as Record<string, unknown>)[name];
    if (field === undefined) continue;
    if (typeof field !== 'string') return { ok: false, description: `${name} must be a string` };
    fields[name] = field;
  }
  return { ok: true, fields };
}

function fieldsOfForm(raw: Uint8Array): TokenRequest {
  assertUtf8(raw);
  const form = new URLSearchParams(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('utf8'));
  const fields: TokenRequestFields = {};
  for (const name of FIELD_NAMES) {
    const values = form.getAll(name);
    // RFC 6749 §3.1: parameters MUST NOT be included more than once.
    if (values.length > 1) return { ok: false, description: `${name} is given ${values.length} times; send it once` };
    if (values[0] !== undefined) fields[name] = values[0];
  }
  return { ok: true, fields };
}

/** client_id:client_secret of HTTP Basic, each form-urlencoded (RFC 6749 §2.3.1); undefined when malformed. */
function basicCredentials(authorization: string): { id: string; secret: string } | undefined {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(authorization);
  if (!basic?.[1]) return undefined;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return { id: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

export function tokenRequest(raw: Uint8Array | undefined, contentType: string, authorization: string): TokenRequest {
  let request: TokenRequest = { ok: true, fields: {} };
  try {
    if (raw && raw.byteLength > 0) {
      if (isJsonContentType(contentType)) request = fieldsOfJson(raw, contentType);
      else if (isFormContentType(contentType)) request = fieldsOfForm(raw);
      else return { ok: false, description: `Content-Type must be application/x-www-form-urlencoded or application/json, got "${contentType}"` };
    }
  } catch (error) {
    if (error instanceof BadRequestError) return { ok: false, description: error.message };
    throw error;
  }
  if (!request.ok) return request;
  if (/^Basic\s/i.test(authorization)) {
    const basic = basicCredentials(authorization);
    if (!basic) return { ok: false, description: 'the Basic authorization header is not base64 of client_id:client_secret (each form-urlencoded)' };
    request.fields.client_id ??= basic.id;
    request.fields.client_secret ??= basic.secret;
  }
  return request;
}
