// The client frames of the two listen streams (SPEC "Subscription stream"): what a parsed frame
// must look like, and the error frames a malformed one earns. The socket (api/datapoints-listen.ts)
// parses the text; the sessions (listen-session.ts) act on what is checked here.
import type { Identifier } from '../errors.ts';

/** Ids in one client frame, at most (a frame is at most 1 MiB anyway). */
export const FRAME_IDS_MAX = 10_000;

/** A client frame as the socket hands it over: its parsed JSON, or why it could not be parsed. */
export type ListenFrame = { json: unknown } | { unreadable: string };

export type ClientFrame = { action: string; [field: string]: unknown };

/** The frame with its `action`, or the bad-request message. */
export function clientFrame(frame: ListenFrame): ClientFrame | string {
  if ('unreadable' in frame) return frame.unreadable;
  const value = frame.json;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || typeof (value as { action?: unknown }).action !== 'string') return 'the frame is not an object with an `action`';
  return value as ClientFrame;
}

/** The frame's list of strings under `field`, or the bad-request message. */
export function stringList(frame: ClientFrame, field: string): string[] | string {
  const list = frame[field];
  if (!Array.isArray(list) || list.length > FRAME_IDS_MAX || !list.every((x) => typeof x === 'string')) return `\`${field}\` must be a list of at most ${FRAME_IDS_MAX} strings`;
  return list as string[];
}

/** The ad hoc stream's `items`, or the bad-request message. */
export function identifiersOf(frame: ClientFrame): Identifier[] | string {
  const items = frame['items'];
  const ok = Array.isArray(items) && items.length <= FRAME_IDS_MAX && items.every((i) => {
    if (typeof i !== 'object' || i === null) return false;
    const { id, externalId } = i as Identifier;
    return (id !== undefined || externalId !== undefined) && (id === undefined || Number.isSafeInteger(id)) && (externalId === undefined || typeof externalId === 'string');
  });
  return ok ? (items as Identifier[]) : `\`items\` must be a list of at most ${FRAME_IDS_MAX} { id } or { externalId }`;
}

/** messageIds `<subscription id>.<sequence>`; anything else is ignored (SPEC: unknown ids silently ignored). */
export function messageRefs(ids: readonly string[]): { subscriptionId: number; seq: string }[] {
  return ids.flatMap((id) => {
    const m = /^(\d{1,16})\.(\d{1,18})$/.exec(id);
    return m ? [{ subscriptionId: Number(m[1]), seq: m[2] as string }] : [];
  });
}

/** SPEC "Subscription stream": the frame a malformed client frame earns; the socket stays open. */
export function badRequestFrame(message: string): string {
  return JSON.stringify({ error: true, reason: 'bad-request', message });
}
