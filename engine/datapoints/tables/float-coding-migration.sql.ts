// SQL of the move of older FLOAT tables to the decimal coding (float-coding-migration.ts), for
// one Float64 column of one table at a time. Expressions come from decimal-coding.ts only.
import { assertIdentifier } from '../../stores/columnar.ts';
import { decimalColumnDdl, decimalTargets } from './decimal-coding.ts';

/** The column and its coded parts, and how each is defined ('' stored, 'ALIAS', 'DEFAULT'). */
export const CODED_COLUMN_KINDS_SQL = `SELECT name, default_kind AS kind FROM system.columns
WHERE database = currentDatabase() AND table = {table:String} AND name IN {names:Array(String)}`;

export function codedColumnNames(column: string): string[] {
  return decimalColumnDdl(column).map(([name]) => name);
}

/** The coded parts, computed from the stored doubles in parts written before them. */
export function addCodedColumnsSql(table: string, column: string): string {
  const [[mantissa, mantissaType], [exponent, exponentType]] = decimalColumnDdl(column) as [[string, string], [string, string]];
  const { exprs: [mantissaExpr, exponentExpr] } = decimalTargets(column, column);
  const [mType, mCodec] = splitCodec(mantissaType);
  const [eType, eCodec] = splitCodec(exponentType);
  return `ALTER TABLE ${assertIdentifier(table)}
  ADD COLUMN IF NOT EXISTS ${mantissa} ${mType} DEFAULT ${mantissaExpr} ${mCodec},
  ADD COLUMN IF NOT EXISTS ${exponent} ${eType} DEFAULT ${exponentExpr} ${eCodec}`;
}

/** Writes the coded parts into every part of the table (a mutation; waited for). */
export function materializeCodedColumnsSql(table: string, column: string): string {
  return `ALTER TABLE ${assertIdentifier(table)} MATERIALIZE COLUMN ${column}_m, MATERIALIZE COLUMN ${column}_e
SETTINGS mutations_sync = 2`;
}

/** Writers give both parts; their defaults would refer to the column once it is their alias. */
export function removeCodedDefaultsSql(table: string, column: string): string {
  return `ALTER TABLE ${assertIdentifier(table)} MODIFY COLUMN ${column}_m REMOVE DEFAULT, MODIFY COLUMN ${column}_e REMOVE DEFAULT`;
}

export function dropStoredColumnSql(table: string, column: string): string {
  return `ALTER TABLE ${assertIdentifier(table)} DROP COLUMN IF EXISTS ${column}`;
}

export function addAliasSql(table: string, column: string): string {
  const [, alias] = decimalColumnDdl(column)[2] as [string, string];
  return `ALTER TABLE ${assertIdentifier(table)} ADD COLUMN IF NOT EXISTS ${column} ${alias}`;
}

/** 'Int64 CODEC(Delta, ZSTD(3))' as ['Int64', 'CODEC(Delta, ZSTD(3))'] (DEFAULT goes between). */
function splitCodec(typeAndCodec: string): [type: string, codec: string] {
  const at = typeAndCodec.indexOf(' CODEC(');
  return [typeAndCodec.slice(0, at), typeAndCodec.slice(at + 1)];
}
