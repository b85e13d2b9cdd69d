// Labels (SPEC "Labels"): tenant-scoped, shared by resources and time series; a record
// carrying a new label name creates the label.
import { BadRequestError } from '../errors.ts';
import type { Queryable } from '../stores/queryable.ts';

export interface Label {
  externalId: string;
  name: string;
  description?: string;
  createdTime: number;
}

/** Creates the labels that do not exist yet (inside the caller's transaction). */
export async function ensureLabels(db: Queryable, tenant: string, names: Iterable<string>, now = Date.now()): Promise<void> {
  const unique = [...new Set(names)];
  if (unique.length === 0) return;
  await db.query(
    `INSERT INTO labels (tenant, external_id, name, created_time)
     SELECT $1, n, n, $3 FROM unnest($2::text[]) AS n
     ON CONFLICT (tenant, external_id) DO NOTHING`,
    [tenant, unique, now],
  );
}

interface LabelRow { external_id: string; name: string; description: string | null; created_time: number }

const toLabel = (r: LabelRow): Label => ({
  externalId: r.external_id, name: r.name, createdTime: r.created_time, ...(r.description !== null ? { description: r.description } : {}),
});

/** Creates labels; existing externalIds are returned as duplicates and nothing is written. */
export async function createLabels(db: Queryable, tenant: string, items: { externalId: string; name?: string; description?: string }[], now = Date.now()): Promise<{ created: Label[]; duplicated: string[] }> {
  const externalIds = items.map((i) => i.externalId);
  const seen = new Set<string>();
  const repeated = externalIds.filter((id) => (seen.has(id) ? true : (seen.add(id), false)));
  const { rows } = await db.query<{ external_id: string }>('SELECT external_id FROM labels WHERE tenant = $1 AND external_id = ANY($2::text[])', [tenant, externalIds]);
  const duplicated = [...new Set([...rows.map((r) => r.external_id), ...repeated])];
  if (duplicated.length > 0) return { created: [], duplicated };
  const inserted = await db.query<LabelRow>(
    `INSERT INTO labels (tenant, external_id, name, description, created_time)
     SELECT $1, e, coalesce(n, e), d, $5 FROM unnest($2::text[], $3::text[], $4::text[]) AS t(e, n, d)
     RETURNING external_id, name, description, created_time`,
    [tenant, externalIds, items.map((i) => i.name ?? null), items.map((i) => i.description ?? null), now],
  );
  return { created: inserted.rows.map(toLabel), duplicated: [] };
}

export async function listLabels(db: Queryable, tenant: string, opts: { prefix?: string; limit: number; cursor?: string }): Promise<{ items: Label[]; nextCursor?: string }> {
  const after = opts.cursor ? Buffer.from(opts.cursor, 'base64url').toString('utf8') : '';
  if (after.includes('\u0000')) throw new BadRequestError('cursor is not one this service issued', [{ field: 'cursor', message: 'undecodable' }]);
  const { rows } = await db.query<LabelRow>(
    `SELECT external_id, name, description, created_time FROM labels
      WHERE tenant = $1 AND external_id > $2 AND ($3::text IS NULL OR starts_with(external_id, $3))
      ORDER BY external_id LIMIT $4`,
    [tenant, after, opts.prefix ?? null, opts.limit + 1],
  );
  const page = rows.slice(0, opts.limit).map(toLabel);
  const last = page[page.length - 1];
  return rows.length > opts.limit && last ? { items: page, nextCursor: Buffer.from(last.externalId).toString('base64url') } : { items: page };
}

export async function deleteLabels(db: Queryable, tenant: string, externalIds: string[]): Promise<void> {
  await db.query('DELETE FROM labels WHERE tenant = $1 AND external_id = ANY($2::text[])', [tenant, externalIds]);
}
