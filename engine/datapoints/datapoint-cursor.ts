// Opaque cursors of data point reads (issue 3): the position to resume from, tagged with the
// direction of the walk so a cursor of another kind of request is refused, not misread.
import { BadRequestError } from '../errors.ts';

/** a: ascending raw walk (next start), d: descending raw walk (next end), b: next bucket start. */
export type CursorKind = 'a' | 'd' | 'b';

export function encodeCursor(kind: CursorKind, positionMs: number): string {
  return Buffer.from(`${kind}:${positionMs}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, kind: CursorKind): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^([adb]):(-?\d{1,16})$/.exec(text);
  if (!match || match[1] !== kind || !Number.isSafeInteger(Number(match[2]))) {
    throw new BadRequestError('The cursor is not one this request returned; send nextCursor back unchanged with the same request.', [
      { field: 'cursor', message: 'not a cursor of this request', value: cursor },
    ]);
  }
  return Number(match[2]);
}
