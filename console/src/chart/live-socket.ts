// The Live switch's connection: GET /timeseries/datapoints/listen over a WebSocket, the token
// offered as the subprotocols ['bearer', token] (browsers cannot set Authorization on a
// WebSocket; docs/api.md "WebSocket routes"). Hands each frame's points to onPoints.
import type { LivePoint } from './live-buffer.ts';

interface ListenFrame {
  messages?: { payload?: { items?: { id: number; datapoints?: { timestamp: string | number; value: string | number }[] }[] } }[];
  listening?: number;
  error?: boolean;
  reason?: string;
  message?: string;
}

export interface LiveHandlers {
  onPoints: (seriesId: number, points: LivePoint[]) => void;
  onStatus: (status: string) => void;
  /** The stream stopped for good; reason is shown to the user. */
  onStop: (reason: string) => void;
}

export function listenUrl(): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/timeseries/datapoints/listen`;
}

/** Opens the stream; the returned function closes it. */
export function openLiveStream(ids: number[], token: string, handlers: LiveHandlers): () => void {
  const socket = new WebSocket(listenUrl(), ['bearer', token]);
  let closedByUs = false;
  socket.onopen = () => {
    handlers.onStatus('Connected, subscribing…');
    socket.send(JSON.stringify({ action: 'subscribe', items: ids.map((id) => ({ id })) }));
  };
  socket.onmessage = (message) => {
    let frame: ListenFrame;
    try { frame = JSON.parse(String(message.data)) as ListenFrame; } catch { return; }
    if (frame.error) {
      handlers.onStatus(`Live stream problem: ${frame.reason ?? 'unknown'}${frame.message ? ` (${frame.message})` : ''}`);
      return;
    }
    if (typeof frame.listening === 'number') handlers.onStatus(`Live: listening to ${frame.listening} series`);
    for (const { payload } of frame.messages ?? []) {
      for (const item of payload?.items ?? []) {
        const points = (item.datapoints ?? []).map((point) => ({
          timeMs: typeof point.timestamp === 'number' ? point.timestamp : Date.parse(point.timestamp),
          value: Number.isFinite(Number(point.value)) ? Number(point.value) : null,
        }));
        if (points.length > 0) handlers.onPoints(item.id, points);
      }
    }
  };
  socket.onclose = (event) => {
    if (closedByUs) return;
    handlers.onStop(event.code === 1000 ? 'Live stream closed by the service' : `Live stream ended (code ${event.code}${event.reason ? `: ${event.reason}` : ''})`);
  };
  return () => {
    closedByUs = true;
    socket.close(1000);
  };
}
