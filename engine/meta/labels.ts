// Labels (SPEC "Labels"): tenant-scoped, shared by resources and time series; a record
// carrying a new label name creates the label.
import { BadRequestError } from '../errors.ts';
import type { Queryable } from '../stores/queryable.ts';
import { cursorCodec } from '../records/cursor-codec.ts';
import { DELETE_LABELS, ENSURE_LABELS, INSERT_LABELS, LIST_LABELS, TAKEN_LABELS } from './labels.sql.ts';

/** A labels page resumes after the last externalId; it is bound into SQL, so no NUL. */
const isLabelPosition = (state: unknown): state is string => typeof state === 'string' && !state.includes('\u0000');
const labelCursors = cursorCodec('labels', 1, isLabelPosition);

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
  await db.query(ENSURE_LABELS, [tenant, unique, now]);
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
  const { rows } = await db.query<{ external_id: string }>(TAKEN_LABELS, [tenant, externalIds]);
  const duplicated = [...new Set([...rows.map((r) => r.external_id), ...repeated])];
  if (duplicated.length > 0) return { created: [], duplicated };
  const inserted = await db.query<LabelRow>(INSERT_LABELS, [
    tenant, externalIds, items.map((i) => i.name ?? null), items.map((i) => i.description ?? null), now,
  ]);
  return { created: inserted.rows.map(toLabel), duplicated: [] };
}

export async function listLabels(db: Queryable, tenant: string, opts: { prefix?: string; name?: string; limit: number; cursor?: string }): Promise<{ items: Label[]; nextCursor?: string }> {
  const decoded = opts.cursor ? labelCursors.decode(opts.cursor) : { ok: true as const, state: '' };
  if (!decoded.ok) throw new BadRequestError('cursor is not one this service issued', [{ field: 'cursor', message: 'undecodable' }]);
  const { rows } = await db.query<LabelRow>(LIST_LABELS, [tenant, decoded.state, opts.prefix ?? null, opts.limit + 1, opts.name ?? null]);
  const page = rows.slice(0, opts.limit).map(toLabel);
  const last = page[page.length - 1];
  return rows.length > opts.limit && last ? { items: page, nextCursor: labelCursors.encode(last.externalId) } : { items: page };
}

export async function deleteLabels(db: Queryable, tenant: string, externalIds: string[]): Promise<void> {
  await db.query(DELETE_LABELS, [tenant, externalIds]);
}
