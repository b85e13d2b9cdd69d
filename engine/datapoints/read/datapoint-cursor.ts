// Opaque cursors of data point reads: the position to resume from, bound to the
// direction of the walk (the codec's context) so a cursor of another kind of request is
// refused, not misread. Encoding is engine/records/cursor-codec.ts; the policy (every
// refused cursor is a 400) is here.
import { BadRequestError } from '../../errors.ts';
import { cursorCodec } from '../../records/cursor-codec.ts';

/** a: ascending raw walk (next start), d: descending raw walk (next end), b: next bucket start. */
export type CursorKind = 'a' | 'd' | 'b';

const isPositionMs = (state: unknown): state is number => Number.isSafeInteger(state);
const datapointCursors = cursorCodec('datapoints', 1, isPositionMs);

export function encodeCursor(kind: CursorKind, positionMs: number): string {
  return datapointCursors.encode(positionMs, kind);
}

export function decodeCursor(cursor: string, kind: CursorKind): number {
  const decoded = datapointCursors.decode(cursor, kind);
  if (!decoded.ok) {
    throw new BadRequestError('The cursor is not one this request returned; send nextCursor back unchanged with the same request.', [
      { field: 'cursor', message: 'not a cursor of this request', value: cursor },
    ]);
  }
  return decoded.state;
}
