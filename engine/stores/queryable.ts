// What engine modules need of PostgreSQL: a pool or a client inside a transaction.
import type { QueryConfig, QueryResult, QueryResultRow } from 'pg';

export interface Queryable {
  query<R extends QueryResultRow = QueryResultRow>(text: string, values?: unknown[]): Promise<QueryResult<R>>;
  /** A config with `name` makes a prepared statement: parsed and planned once per connection. */
  query<R extends QueryResultRow = QueryResultRow>(config: QueryConfig<unknown[]>): Promise<QueryResult<R>>;
}
