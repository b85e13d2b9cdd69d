// The per-tenant relationship type catalogue (SPEC "Relationship type", edge rules 8 and 9).
// Two normalisations, on purpose different: the types endpoint snake-upper-cases a name
// (`Flows To`, `flows to`, `FLOWS_TO` are one type), /edges/create only upper-cases it
// (`Flows To` becomes `FLOWS TO`, another type). Lookup is on the normalised name, ignoring
// case. /edges/create creates an unknown type; the types endpoint never finds-or-creates
// (a taken name is a 409 and nothing of the batch is created).
import type { RelationshipType, RelationshipTypeCreate } from '../../schemas/edges.ts';
import { BadRequestError, DuplicateError, type FieldProblem } from '../errors.ts';
import type { Queryable } from '../stores/queryable.ts';
import type { RelationalStore } from '../stores/relational.ts';
import {
  ENSURE_RELATIONSHIP_TYPES, INSERT_RELATIONSHIP_TYPES, LIST_RELATIONSHIP_TYPES, RELATIONSHIP_TYPES_BY_IDS, RELATIONSHIP_TYPES_BY_NAMES,
} from './relationship-types.sql.ts';

/** SPEC: relations into a data set use this type; the data set hierarchy is built from it. */
export const BELONGS_TO = 'BELONGS_TO';

export interface RelationshipTypeRow {
  id: number;
  name: string;
  description: string | null;
  i18n_code: string | null;
}

export function toRelationshipType(r: RelationshipTypeRow): RelationshipType {
  return { id: r.id, name: r.name, ...(r.description !== null ? { description: r.description } : {}), ...(r.i18n_code !== null ? { i18nCode: r.i18n_code } : {}) };
}

/** SPEC rule 8, /edges/types/create: `Flows To` → `FLOWS_TO`. */
export function snakeUpperCase(name: string): string {
  return name.trim().replace(/[\s-]+/gu, '_').toUpperCase();
}

/** SPEC rule 8, /edges/create: only upper-cased, `Flows To` → `FLOWS TO`. */
export function upperCase(name: string): string {
  return name.toUpperCase();
}

/** SPEC: a name with no letter or digit is a 400. */
export function hasLetterOrDigit(name: string): boolean {
  return /[\p{L}\p{N}]/u.test(name);
}

/** Finds or creates types by (already normalised) name; returns them by lower-cased name. */
export async function ensureRelationshipTypes(db: Queryable, tenant: string, names: string[]): Promise<Map<string, RelationshipTypeRow>> {
  const unique = [...new Map(names.map((n) => [n.toLowerCase(), n])).values()];
  const out = new Map<string, RelationshipTypeRow>();
  if (unique.length === 0) return out;
  const { rows: found } = await db.query<RelationshipTypeRow>(RELATIONSHIP_TYPES_BY_NAMES, [tenant, unique]);
  for (const r of found) out.set(r.name.toLowerCase(), r);
  const missing = unique.filter((n) => !out.has(n.toLowerCase())).sort();
  if (missing.length > 0) {
    const { rows } = await db.query<RelationshipTypeRow>(ENSURE_RELATIONSHIP_TYPES, [tenant, missing]);
    for (const r of rows) out.set(r.name.toLowerCase(), r);
  }
  return out;
}

/** Finds or creates one type by its normalised name; returns its id. */
export async function ensureRelationshipType(db: Queryable, tenant: string, name: string): Promise<number> {
  return ((await ensureRelationshipTypes(db, tenant, [name])).get(name.toLowerCase()) as RelationshipTypeRow).id;
}

export async function relationshipTypesByIds(db: Queryable, tenant: string, ids: number[]): Promise<Map<number, RelationshipTypeRow>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<RelationshipTypeRow>(RELATIONSHIP_TYPES_BY_IDS, [tenant, [...new Set(ids)]]);
  return new Map(rows.map((r) => [r.id, r]));
}

export async function listRelationshipTypes(db: Queryable, tenant: string): Promise<RelationshipType[]> {
  return (await db.query<RelationshipTypeRow>(LIST_RELATIONSHIP_TYPES, [tenant])).rows.map(toRelationshipType);
}

/** SPEC rule 9: one transaction, no find-or-create; a name taken (ignoring case) or repeated is a 409 and nothing is created. */
export async function createRelationshipTypes(store: RelationalStore, tenant: string, items: RelationshipTypeCreate[]): Promise<RelationshipType[]> {
  const names = items.map((i) => snakeUpperCase(i.name));
  const problems: FieldProblem[] = names.flatMap((name, index) => (hasLetterOrDigit(name) ? [] : [{ field: `items.${index}.name`, index, message: 'a relationship type name needs a letter or a digit', value: items[index]?.name }]));
  if (problems.length > 0) throw new BadRequestError('A relationship type name needs a letter or a digit', problems);
  return store.transaction(async (tx) => {
    const seen = new Set<string>();
    const repeated = names.filter((n) => (seen.has(n.toLowerCase()) ? true : (seen.add(n.toLowerCase()), false)));
    const { rows: taken } = await tx.query<RelationshipTypeRow>(RELATIONSHIP_TYPES_BY_NAMES, [tenant, names]);
    const duplicated = [...new Set([...taken.map((r) => r.name), ...repeated])];
    if (duplicated.length > 0) throw new DuplicateError(duplicated.map((name) => ({ name })), `Relationship type already exists: ${duplicated.join(', ')}`);
    try {
      const { rows } = await tx.query<RelationshipTypeRow>(INSERT_RELATIONSHIP_TYPES, [tenant, names, items.map((i) => i.description ?? null), items.map((i) => i.i18nCode ?? null)]);
      const byName = new Map(rows.map((r) => [r.name, r]));
      return names.map((n) => toRelationshipType(byName.get(n) as RelationshipTypeRow));
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw new DuplicateError(names.map((name) => ({ name })), `A relationship type was created concurrently: ${names.join(', ')}`);
      throw error;
    }
  });
}
