// CDF's error body: `{"error": {"code", "message", "missing"?, "duplicated"?}}`. The official
// SDKs read `error.message`, `error.missing` and `error.duplicated` from it (a body without
// `error` reaches their callers as a bare HttpError with no message). Routes of the CDF surface
// answer every error in this form: the status and headers (Retry-After, WWW-Authenticate) are
// SPEC's, the body is rewritten from SPEC's form (problems.ts) here, in one place.
import type { ErrorReply } from '../problems.ts';
import type { Reply } from '../route.ts';

type Identifier = { id: number } | { externalId: string };

interface SpecErrorBody {
  error?: { type?: string; message?: string; missing?: unknown[]; duplicated?: unknown[] };
  // RFC 9457 problem documents (413, 429, the lifetime-ceiling 403)
  title?: string;
  detail?: string;
}

/** The identifiers in a missing / duplicated list, as `{id}` or `{externalId}` objects. */
function identifiers(list: readonly unknown[] | undefined): Identifier[] | undefined {
  if (!list || list.length === 0) return undefined;
  const out: Identifier[] = [];
  for (const entry of list) {
    if (!entry || typeof entry !== 'object') continue;
    const { id, externalId } = entry as { id?: unknown; externalId?: unknown };
    if (typeof externalId === 'string') out.push({ externalId });
    else if (typeof id === 'number') out.push({ id });
  }
  return out.length ? out : undefined;
}

/**
 * The same answer in CDF's form. A NotFoundError that names what is missing is a 400, as CDF
 * answers unknown ids on byids, update, delete and data point calls; without a list (a path
 * that names no record) it stays a 404.
 */
export function cdfErrorReply(reply: Reply | ErrorReply): ErrorReply {
  const body = (typeof reply.body === 'object' && reply.body !== null ? reply.body : {}) as SpecErrorBody;
  const message = body.error?.message ?? body.detail ?? body.title ?? (typeof reply.body === 'string' ? reply.body : `HTTP ${reply.status}`);
  const missing = identifiers(body.error?.missing);
  const duplicated = identifiers(body.error?.duplicated);
  const status = reply.status === 404 && missing ? 400 : reply.status;
  return {
    status,
    contentType: 'application/json',
    headers: reply.headers,
    body: { error: { code: status, message, ...(missing ? { missing } : {}), ...(duplicated ? { duplicated } : {}) } },
  };
}
