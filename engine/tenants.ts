// Tenants appear with their first valid token: the first request of an
// organization records it. Known tenants are remembered so this costs one insert per tenant
// per process.
import type { Queryable } from './stores/queryable.ts';
import { ENSURE_TENANT } from './tenants.sql.ts';

export class TenantRegistry {
  private known = new Set<string>();

  async ensure(db: Queryable, tenant: string): Promise<void> {
    if (this.known.has(tenant)) return;
    await db.query(ENSURE_TENANT, [tenant, Date.now()]);
    this.known.add(tenant);
  }
}
