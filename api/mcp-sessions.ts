// MCP sessions (Streamable HTTP): an id handed out at initialize and sent back in the
// Mcp-Session-Id header. A session belongs to the tenant and user whose token opened it;
// another caller presenting its id finds no session. Held in this process only: a client
// whose session another instance holds (or this one forgot, after a restart or idle) gets a
// 404 and, as the protocol says, initializes again.
import { randomUUID } from 'node:crypto';

export interface McpSession {
  tenant: string;
  sub: string;
  protocolVersion: string;
  lastUsed: number;
}

/** Sessions idle this long are forgotten. */
export const MCP_SESSION_IDLE_MS = 60 * 60_000;
/** At most this many sessions are held; the least recently used goes first. */
export const MCP_SESSIONS_MAX = 10_000;

export class McpSessions {
  /** In least recently used order (a Map iterates in insertion order). */
  private readonly sessions = new Map<string, McpSession>();

  constructor(private readonly idleMs = MCP_SESSION_IDLE_MS, private readonly max = MCP_SESSIONS_MAX) {}

  open(tenant: string, sub: string, protocolVersion: string, now = Date.now()): string {
    const id = randomUUID();
    this.sessions.set(id, { tenant, sub, protocolVersion, lastUsed: now });
    for (const [old] of this.sessions) {
      if (this.sessions.size <= this.max) break;
      this.sessions.delete(old);
    }
    return id;
  }

  /** The caller's session, or undefined (unknown, idle too long, or another caller's). */
  use(id: string, tenant: string, sub: string, now = Date.now()): McpSession | undefined {
    const session = this.sessions.get(id);
    if (!session || session.tenant !== tenant || session.sub !== sub) return undefined;
    this.sessions.delete(id);
    if (now - session.lastUsed > this.idleMs) return undefined;
    session.lastUsed = now;
    this.sessions.set(id, session);
    return session;
  }

  close(id: string, tenant: string, sub: string): boolean {
    const session = this.sessions.get(id);
    if (!session || session.tenant !== tenant || session.sub !== sub) return false;
    return this.sessions.delete(id);
  }
}
