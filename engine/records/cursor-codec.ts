// The one opaque cursor codec (SPEC paging: `nextCursor` is opaque, sent back unchanged).
// A cursor is base64url of a small JSON envelope { k: kind, v: version, c: context, s: state }:
// the kind says which paging issued it (time series filter, data point walk, ...), the
// context binds it to what must not change between pages (the sort, the walk direction),
// and decoding checks the state's shape before anyone binds it into SQL. What a failure
// means is the caller's policy (time series: 400; events: restart or an empty page), so
// decode returns a typed failure and never throws.

/** Why a cursor was refused. */
export type CursorFailure =
  /** Not base64url of our envelope, another version, or a state of the wrong shape. */
  | { reason: 'undecodable' }
  /** A well-formed cursor issued by another kind of paging. */
  | { reason: 'foreign'; kind: string }
  /** A cursor of this kind issued under another context (sort, direction). */
  | { reason: 'context'; issuedFor: string };

export type CursorDecoded<S> = { ok: true; state: S } | ({ ok: false } & CursorFailure);

export interface CursorCodec<S> {
  encode(state: S, context?: string): string;
  /** `context` must equal the one the cursor was encoded with (default ''). */
  decode(cursor: string, context?: string): CursorDecoded<S>;
}

interface Envelope {
  k: string;
  v: number;
  c: string;
  s: unknown;
}

/** A cursor longer than this is refused before decoding (ours are well under 1 KiB plus a sort key). */
export const CURSOR_CHARS_MAX = 4096;

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function isEnvelope(value: unknown): value is Envelope {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { k, v, c } = value as Record<string, unknown>;
  return typeof k === 'string' && typeof v === 'number' && typeof c === 'string' && 's' in value;
}

/** The envelope in a cursor, or undefined when the text is not one. */
function cursorCodecParse(cursor: string): Envelope | undefined {
  if (cursor.length === 0 || cursor.length > CURSOR_CHARS_MAX || !BASE64URL.test(cursor)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    return isEnvelope(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A codec for one kind of paging. `isState` validates a decoded state completely (types,
 * ranges, no NUL in text bound into SQL): a cursor is client input. Bump `version` when the
 * state changes shape; cursors of the old version then decode as 'undecodable'.
 */
export function cursorCodec<S>(kind: string, version: number, isState: (state: unknown) => state is S): CursorCodec<S> {
  return {
    encode(state, context = '') {
      const envelope: Envelope = { k: kind, v: version, c: context, s: state };
      return Buffer.from(JSON.stringify(envelope), 'utf8').toString('base64url');
    },
    decode(cursor, context = '') {
      const envelope = cursorCodecParse(cursor);
      if (!envelope) return { ok: false, reason: 'undecodable' };
      if (envelope.k !== kind) return { ok: false, reason: 'foreign', kind: envelope.k };
      if (envelope.v !== version || !isState(envelope.s)) return { ok: false, reason: 'undecodable' };
      if (envelope.c !== context) return { ok: false, reason: 'context', issuedFor: envelope.c };
      return { ok: true, state: envelope.s };
    },
  };
}
