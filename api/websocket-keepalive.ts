// SPEC "Subscription stream" keepalive for WebSocket routes (websocket-routes.ts): a PING every
// pingIntervalMs, and a session that sent nothing (not even a PONG) for idleTimeoutMs is handed
// to `onIdle` (the routes close it with 1000). uWS's own timers are off: the figures are per
// tenant (SERVICE_CONFIG websocket), which uWS's per-app settings cannot express.

/** What the keepalive reads and touches of one open socket. */
export interface KeptAliveSocket {
  /** When the client last sent anything (a message or a PONG), epoch ms. */
  lastHeardMs: number;
  /** When we last sent a PING, epoch ms. */
  lastPingMs: number;
  ctx: { readonly closed: boolean; readonly settings: { websocket: { pingIntervalMs: number; idleTimeoutMs: number } } };
  /** Absent until the upgrade has completed. */
  ws?: { ping(): unknown };
}

/**
 * One timer for all open sockets, running only while some are open. Its tick is a quarter of
 * the smallest configured figure, between 10 ms and 1 s; per-tenant values below the tick are
 * rounded up to it.
 */
export class Keepalive<S extends KeptAliveSocket> {
  private readonly sockets = new Set<S>();
  private timer: NodeJS.Timeout | undefined;
  private readonly tickMs: number;

  constructor(figures: { pingIntervalMs: number; idleTimeoutMs: number }, private readonly onIdle: (socket: S) => void) {
    this.tickMs = Math.max(10, Math.min(1000, Math.floor(Math.min(figures.pingIntervalMs, figures.idleTimeoutMs) / 4)));
  }

  add(socket: S): void {
    this.sockets.add(socket);
    this.timer ??= setInterval(() => this.sweep(), this.tickMs).unref();
  }

  remove(socket: S): void {
    this.sockets.delete(socket);
    if (this.sockets.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const socket of [...this.sockets]) {
      const { pingIntervalMs, idleTimeoutMs } = socket.ctx.settings.websocket;
      if (socket.ctx.closed || !socket.ws) continue;
      if (now - socket.lastHeardMs >= idleTimeoutMs) {
        this.onIdle(socket);
      } else if (now - socket.lastPingMs >= pingIntervalMs) {
        socket.lastPingMs = now;
        socket.ws.ping();
      }
    }
  }
}
