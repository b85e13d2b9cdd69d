// SQL of the move of an older FLOAT raw table to the decimal coding (float-coding-migration.ts).
// Names and expressions come from families.ts only.
import { FAMILY_SHAPES, decimalExponentSql, decimalMantissaSql, decimalValueSql } from './families.ts';

const RAW = FAMILY_SHAPES.float.rawTable;

/** The raw FLOAT table's value columns and how each is defined ('' for stored, 'ALIAS', 'DEFAULT'). */
export const FLOAT_VALUE_COLUMNS_SQL = `SELECT name, default_kind AS kind FROM system.columns
WHERE database = currentDatabase() AND table = '${RAW}' AND name IN ('value', 'value_m', 'value_e')`;

/** The coded columns, computed from the stored doubles in parts written before them. */
export const ADD_CODED_COLUMNS_SQL = `ALTER TABLE ${RAW}
  ADD COLUMN IF NOT EXISTS value_m Int64 DEFAULT ${decimalMantissaSql('value', decimalExponentSql('value'))} CODEC(T64, ZSTD(3)),
  ADD COLUMN IF NOT EXISTS value_e UInt8 DEFAULT ${decimalExponentSql('value')} CODEC(ZSTD(1))`;

/** Writes the coded columns into every part (a mutation; waited for). */
export const MATERIALIZE_CODED_COLUMNS_SQL = `ALTER TABLE ${RAW} MATERIALIZE COLUMN value_m, MATERIALIZE COLUMN value_e
SETTINGS mutations_sync = 2`;

/** Inserts give both columns; their defaults would refer to `value` once it is their alias. */
export const REMOVE_CODED_DEFAULTS_SQL = `ALTER TABLE ${RAW} MODIFY COLUMN value_m REMOVE DEFAULT, MODIFY COLUMN value_e REMOVE DEFAULT`;

export const DROP_STORED_VALUE_SQL = `ALTER TABLE ${RAW} DROP COLUMN IF EXISTS value`;

export const ADD_VALUE_ALIAS_SQL = `ALTER TABLE ${RAW} ADD COLUMN IF NOT EXISTS value Float64 ALIAS ${decimalValueSql('value_m', 'value_e')}`;
