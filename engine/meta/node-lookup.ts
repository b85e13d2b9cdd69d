// Resolves `{ id }` / `{ externalId }` identifiers to node rows of one kind in one query.
import type { Identifier } from '../errors.ts';
import { BadRequestError } from '../errors.ts';
import type { Queryable } from '../stores/queryable.ts';
import { NODE_COLUMNS, type NodeRow } from './timeseries-rows.ts';

export interface Resolved {
  identifier: Identifier;
  index: number;
  row: NodeRow | undefined;
}

export type NodeKind = 'timeseries' | 'dataset' | 'resource';

/**
 * Looks every identifier up; `row` is undefined for misses. An identifier giving both id and
 * externalId that name different records is a 400. With `forUpdate`, rows are locked.
 */
export async function lookupNodes(db: Queryable, tenant: string, kind: NodeKind, identifiers: Identifier[], forUpdate = false): Promise<Resolved[]> {
  const ids = identifiers.filter((i) => i.id !== undefined).map((i) => i.id as number);
  const externalIds = identifiers.filter((i) => i.id === undefined && i.externalId !== undefined).map((i) => i.externalId as string);
  const both = identifiers.filter((i) => i.id !== undefined && i.externalId !== undefined).map((i) => i.externalId as string);
  // Prepared once per connection: every data point request looks its series up here.
  const { rows } = await db.query<NodeRow>({
    name: forUpdate ? 'lookup-nodes-for-update' : 'lookup-nodes',
    text: `SELECT ${NODE_COLUMNS} FROM nodes WHERE tenant = $1 AND kind = $2 AND (id = ANY($3::bigint[]) OR external_id = ANY($4::text[]))
     ORDER BY id${forUpdate ? ' FOR UPDATE' : ''}`,
    values: [tenant, kind, ids, [...externalIds, ...both]],
  });
  const byId = new Map(rows.map((r) => [r.id, r]));
  const byExternalId = new Map(rows.map((r) => [r.external_id, r]));
  return identifiers.map((identifier, index) => {
    if (identifier.id === undefined && identifier.externalId === undefined) {
      throw new BadRequestError(`items[${index}] needs an id or an externalId`, [{ field: `items.${index}`, index, message: 'no identifier' }]);
    }
    const row = identifier.id !== undefined ? byId.get(identifier.id) : byExternalId.get(identifier.externalId as string);
    if (row && identifier.id !== undefined && identifier.externalId !== undefined && row.external_id !== identifier.externalId) {
      throw new BadRequestError(`items[${index}]: id ${identifier.id} and externalId "${identifier.externalId}" name different records`, [
        { field: `items.${index}`, index, message: 'id and externalId name different records' },
      ]);
    }
    return { identifier, index, row };
  });
}

export function identifierOf(item: { id?: number; externalId?: string }): Identifier {
  return item.id !== undefined ? { id: item.id } : { externalId: item.externalId as string };
}
