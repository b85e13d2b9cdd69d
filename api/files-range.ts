// Conditional and partial downloads of files (RFC 9110 §13-14): which bytes of a
// file GET /files/download/{path} answers, from If-None-Match, Range and If-Range; and the
// If-Match / If-None-Match of a conditional PUT. The ETag is
// the file's SHA-256, a strong validator. One range per request: a Range with several is
// ignored and the whole file sent, as RFC 9110 allows; so is a Range the server cannot parse
// or whose unit is not `bytes`.

export type Download =
  | { kind: 'not-modified' }
  | { kind: 'unsatisfiable' }
  | { kind: 'full' }
  | { kind: 'partial'; start: number; endExclusive: number };

export interface DownloadHeaders {
  range?: string;
  ifNoneMatch?: string;
  ifRange?: string;
}

export function etagOf(sha256: string): string {
  return `"${sha256}"`;
}

/** If-None-Match: `*` or a list of entity tags, compared weakly (RFC 9110 §13.1.2). */
function downloadMatchesAny(header: string, etag: string): boolean {
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** Bytes=first-last, first- or -suffix; undefined when it is not one range we read. */
function downloadRangeOf(header: string, size: number): Download | undefined {
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match) return undefined;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', start: Math.max(0, size - suffix), endExclusive: size };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return undefined; // invalid: ignored (RFC 9110 §14.1.1)
  if (start >= size) return { kind: 'unsatisfiable' };
  const endExclusive = last === '' ? size : Math.min(size, Number(last) + 1);
  return { kind: 'partial', start, endExclusive };
}

/** What to answer for a file of `size` bytes and `sha256`, given the request's headers. */
export function chooseDownload(headers: DownloadHeaders, size: number, sha256: string): Download {
  const etag = etagOf(sha256);
  if (headers.ifNoneMatch && downloadMatchesAny(headers.ifNoneMatch, etag)) return { kind: 'not-modified' };
  if (!headers.range) return { kind: 'full' };
  // If-Range names the version the client has part of: another version gets the whole file.
  if (headers.ifRange && headers.ifRange.trim() !== etag) return { kind: 'full' };
  return downloadRangeOf(headers.range, size) ?? { kind: 'full' };
}

/**
 * An If-Match or If-None-Match header of a PUT as the SHA-256s its entity tags name, `*`, or
 * undefined when absent. If-Match compares strongly (a weak tag never matches), If-None-Match
 * weakly (RFC 9110 §13.1.1-2); a tag that is not one of ours simply matches no file.
 */
export function uploadConditionOf(header: string | undefined, comparison: 'strong' | 'weak'): '*' | string[] | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (value === '*') return '*';
  return value.split(',').map((tag) => tag.trim()).filter((tag) => comparison === 'weak' || !tag.startsWith('W/'))
    .map((tag) => tag.replace(/^W\//, '').replace(/^"(.*)"$/, '$1'));
}
