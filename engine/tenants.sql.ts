/** Records a tenant at its first valid token: $1 tenant, $2 now (ms). */
export const ENSURE_TENANT = 'INSERT INTO tenants (tenant, created_time) VALUES ($1, $2) ON CONFLICT (tenant) DO NOTHING';
