// ORDER BY and keyset WHERE builders for paging over one sort column with `id` appended (see
// keyset-cursor.ts). The column comes only from a fixed allow-list; cursor values are bound.
import type { SqlParams } from '../stores/sql-params.ts';

export interface SortColumn {
  /** SQL column; comes only from a fixed allow-list. */
  column: string;
  nullable: boolean;
  kind: 'text' | 'number';
}

function coalesced(col: SortColumn): string {
  if (!col.nullable) return col.column;
  return col.kind === 'text' ? `COALESCE(${col.column}, '')` : `COALESCE(${col.column}, 0)`;
}

/** ORDER BY text for the sort, with the id tie-break. */
export function orderBy(col: SortColumn, order: 'asc' | 'desc'): string {
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  const keys = col.nullable ? [`(${col.column} IS NULL)`, coalesced(col), 'id'] : [col.column, 'id'];
  return keys.map((k) => `${k} ${dir}`).join(', ');
}

/** WHERE part selecting rows strictly after the cursor's row. */
export function afterCursor(params: SqlParams, col: SortColumn, order: 'asc' | 'desc', state: { n: boolean; v: string | number | null; i: number }): string {
  const op = order === 'asc' ? '>' : '<';
  const value = state.n ? (col.kind === 'text' ? '' : 0) : state.v;
  const cast = col.kind === 'text' ? '::text' : '::bigint';
  if (col.nullable) {
    return `((${col.column} IS NULL), ${coalesced(col)}, id) ${op} (${params.bind(state.n)}::boolean, ${params.bind(value)}${cast}, ${params.bind(state.i)}::bigint)`;
  }
  return `(${col.column}, id) ${op} (${params.bind(value)}${cast}, ${params.bind(state.i)}::bigint)`;
}
