// The data point streams over WebSocket (SPEC "Subscription stream", Limits "WebSocket caps"):
// GET /timeseries/datapoints/subscription/listen/{externalIds} delivers stored subscriptions
// with ack/nack; GET /timeseries/datapoints/listen is our ad hoc stream of named series without
// a stored subscription or position. This module keeps only the socket: it opens the engine's
// listen session (engine/subscriptions/listen-session.ts: attach, ack, nack, release, delivery,
// the grant filter and the connection caps), parses each text frame for it, sends what it
// emits and closes with SPEC's codes. The token, keepalive and idle close are the route kind's
// (websocket-routes.ts).
import type { ListenFrame, ListenOutput, ListenStream, SubscriptionEngine } from '../engine/subscriptions/subscription-engine.ts';
import { WS_CLOSE, type WebSocketContext, type WebSocketRoute, type WebSocketSession } from './websocket-routes.ts';

const TAG = 'Subscriptions';

/** A socket message as the session takes it: its parsed JSON, or why it is not JSON text. */
function parseFrame(data: string | Uint8Array): ListenFrame {
  if (typeof data !== 'string') return { unreadable: 'frames are JSON text, not binary' };
  try {
    return { json: JSON.parse(data) as unknown };
  } catch {
    return { unreadable: 'the frame is not JSON' };
  }
}

/** The socket as the session sees it: send (reporting a drop over the buffer limit), ready while drained, closed. */
function socketOutput(ctx: WebSocketContext): ListenOutput {
  return {
    send: (frame) => ctx.send(frame) !== 'dropped',
    ready: () => !ctx.closed && ctx.bufferedBytes() === 0,
    closed: () => ctx.closed,
  };
}

/** Opens the engine's session for this socket; over a connection cap sends the cap frame and closes 1008 (SPEC Limits). */
function listenSocket(ctx: WebSocketContext, subscriptions: SubscriptionEngine, stream: ListenStream): WebSocketSession {
  const opening = subscriptions.openListenSession(ctx.access, { userId: ctx.caller.sub, settings: ctx.settings.websocket }, stream, socketOutput(ctx));
  if ('refused' in opening) {
    ctx.send(opening.refused);
    ctx.close(WS_CLOSE.policyViolation, 'connection limit reached');
    return {};
  }
  const { session } = opening;
  session.started.catch((error: unknown) => {
    ctx.log.error({ err: error, requestId: ctx.requestId }, 'a subscription stream failed; closing it with 1011');
    ctx.close(WS_CLOSE.internalError, 'internal error');
  });
  return {
    // A rejection closes the socket with 1011 (WebSocketSession).
    message: (data) => session.receive(parseFrame(data)),
    drain: () => session.drained(),
    close: () => void session.close(),
  };
}

export function listenRoutes(subscriptions: SubscriptionEngine): WebSocketRoute[] {
  return [
    {
      path: '/timeseries/datapoints/subscription/listen/{externalIds*}', operationId: 'listenSubscriptions', tag: TAG,
      summary: 'Stream stored subscriptions\' data points (SPEC "Subscription stream")',
      description: 'Path segments are subscription externalIds; the path may be empty. Server frames: `{ subscriptionExternalId, messages: [{ messageId, payload: { eventAction: "CREATE", eventObject: "DATAPOINTS", tenantId, items: [{ id, externalId, valueType, datapoints: [{ timestamp (ISO-8601), value (string) }] }] } }] }`, up to 500 messages per frame, per subscription. Error frames `{ error: true, subscriptionExternalId, reason }` with reason `not-found`, `forbidden` (its data set is not readable to you) or `subscription-limit-reached`; the socket stays open. Client frames `{ action, externalIds }` for `subscribe` (`add`), `unsubscribe` (`remove`), `set`; `{ action, messageIds }` for `ack`, `nack`; unknown ids are ignored, a malformed frame earns `{ error: true, reason: "bad-request", message }`. Unacked messages are redelivered after `ackTimeoutMs`, at once after a nack or when the socket closes. Over the connection caps: `{ error: true, reason: "websocket-limit-reached", scope: "tenant" | "user", limit, message }` then close 1008.',
      open: (ctx) => listenSocket(ctx, subscriptions, { kind: 'subscriptions', externalIds: ctx.pathTail }),
    },
    {
      path: '/timeseries/datapoints/listen', operationId: 'listenDatapoints', tag: TAG,
      summary: 'Ad hoc stream of named series from the moment of connecting (no stored subscription, no position, no ack)',
      description: 'Client frames `{ action: "subscribe" | "add" | "set" | "unsubscribe" | "remove", items: [{ id } | { externalId }] }` (at most 10,000 series per socket); answered `{ listening: <series count> }`, and `{ error: true, reason: "not-found", items }` for unknown or unreadable series. Server frames `{ messages: [{ payload }] }` with the payload of the subscription stream, for points committed while listening. A reader too slow for its socket buffer loses frames and is told `{ error: true, reason: "overflow", dropped }`. Same connection caps as the subscription stream.',
      open: (ctx) => listenSocket(ctx, subscriptions, { kind: 'datapoints' }),
    },
  ];
}
