// The connection caps of the listen streams (SPEC Limits "WebSocket caps"): open sessions of
// both streams per organisation and per user, in this process (SPEC: the caps count connections
// per instance here). Over a cap the session is refused with SPEC's frame; closing the socket
// (1008) is the caller's.

export interface ListenCaps {
  connectionsPerOrganization: number;
  connectionsPerUser: number;
}

/** Admitted: call release() once the session ends. Refused: send `frame`, then close the socket. */
export type ListenAdmission = { release(): void } | { refused: string };

export class ListenConnections {
  private readonly byTenant = new Map<string, number>();
  private readonly byUser = new Map<string, number>();

  admit(tenant: string, userId: string, caps: ListenCaps): ListenAdmission {
    const { connectionsPerOrganization, connectionsPerUser } = caps;
    const user = `${tenant}\t${userId}`;
    if ((this.byTenant.get(tenant) ?? 0) >= connectionsPerOrganization) return { refused: capFrame('tenant', connectionsPerOrganization) };
    if ((this.byUser.get(user) ?? 0) >= connectionsPerUser) return { refused: capFrame('user', connectionsPerUser) };
    this.byTenant.set(tenant, (this.byTenant.get(tenant) ?? 0) + 1);
    this.byUser.set(user, (this.byUser.get(user) ?? 0) + 1);
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        const t = (this.byTenant.get(tenant) ?? 1) - 1;
        if (t > 0) this.byTenant.set(tenant, t); else this.byTenant.delete(tenant);
        const u = (this.byUser.get(user) ?? 1) - 1;
        if (u > 0) this.byUser.set(user, u); else this.byUser.delete(user);
      },
    };
  }
}

/** SPEC "Subscription stream": the connection cap frame, word for word. */
function capFrame(scope: 'tenant' | 'user', limit: number): string {
  const message = `at most ${limit} concurrent stream connections per ${scope === 'tenant' ? 'organization' : 'user'}; close one and connect again`;
  return JSON.stringify({ error: true, reason: 'websocket-limit-reached', scope, limit, message });
}
