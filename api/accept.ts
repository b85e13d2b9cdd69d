// Content negotiation on the Accept header (RFC 9110 §12.5.1), for routes that answer in a
// second media type besides JSON (POST /timeseries/data/list: an Arrow IPC stream). JSON stays
// the answer unless the client names the other type: wildcards (`*/*`, `application/*`) and an
// absent header keep today's JSON.

/** The q of each media range the header names (lower-case type/subtype, parameters dropped). */
function acceptQualities(accept: string): Map<string, number> {
  const qualities = new Map<string, number>();
  for (const range of accept.split(',')) {
    const [type, ...parameters] = range.split(';');
    const name = (type ?? '').trim().toLowerCase();
    if (name === '') continue;
    let q = 1;
    for (const parameter of parameters) {
      const [key, value] = parameter.split('=');
      if ((key ?? '').trim().toLowerCase() !== 'q') continue;
      const parsed = Number((value ?? '').trim());
      q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 0;
    }
    qualities.set(name, Math.max(q, qualities.get(name) ?? 0));
  }
  return qualities;
}

/**
 * Whether to answer in `mediaType` rather than JSON: the header names it with q > 0, and
 * `application/json` not with a higher q.
 */
export function prefersOverJson(accept: string | undefined, mediaType: string): boolean {
  if (!accept) return false;
  const qualities = acceptQualities(accept);
  const wanted = qualities.get(mediaType) ?? 0;
  return wanted > 0 && wanted >= (qualities.get('application/json') ?? 0);
}
