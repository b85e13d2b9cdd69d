// The statement of one request to the ClickHouse HTTP fixture: its output format and, for an
// INSERT with data in the body, the same insert reading that data from a file. chdb cannot
// read an HTTP body; the server reads it through input('<structure>') or after `FORMAT <fmt>`.
// The fixture writes the body to a temp file and reads it with file(path, fmt, structure):
// the engine parses the body itself (an Arrow stream whose columns do not match the
// structure is refused or converted as a server would), which registering decoded Arrow
// columns would not check, and any input format works the same way.
import { bytesLiteral, ServerError } from './clickhouse-http-params.ts';

const TRAILING_FORMAT = /\bFORMAT\s+([A-Za-z][A-Za-z0-9_]*)\s*;?\s*$/i;
const INSERT = /^\s*(?:--[^\n]*\n\s*)*INSERT\b/i;
const INPUT_CALL = /\binput\s*\(\s*(?='(?:[^'\\]|\\.)*'\s*\))/i;

export interface StatementShape {
  /** The statement without a trailing FORMAT clause. */
  text: string;
  /** The format named by a trailing FORMAT clause, if any. */
  format?: string;
  insert: boolean;
}

export function statementShape(sql: string): StatementShape {
  const trimmed = sql.trim();
  const match = TRAILING_FORMAT.exec(trimmed);
  return {
    text: match ? trimmed.slice(0, match.index).trimEnd() : trimmed.replace(/;\s*$/, ''),
    format: match?.[1],
    insert: INSERT.test(trimmed),
  };
}

/**
 * An INSERT whose rows come from `dataPath` in `format`: input('<structure>') becomes
 * file(path, format, '<structure>'); `INSERT INTO t (cols) FORMAT f` + rows becomes
 * `INSERT INTO t (cols) SELECT * FROM file(path, f)`, its structure taken from the table.
 */
export function insertFromFile(shape: StatementShape, dataPath: string): string {
  if (!shape.format) throw new ServerError(62, 'SYNTAX_ERROR', 'an INSERT with data in the body needs a FORMAT clause');
  const source = `${bytesLiteral(Buffer.from(dataPath, 'utf8'))}, ${bytesLiteral(Buffer.from(shape.format, 'utf8'))}`;
  if (INPUT_CALL.test(shape.text)) return shape.text.replace(INPUT_CALL, `file(${source}, `);
  if (/\bSELECT\b|\bVALUES\b/i.test(shape.text)) {
    throw new ServerError(62, 'SYNTAX_ERROR', 'an INSERT ... SELECT with data in the body reads it through input(<structure>)');
  }
  return `${shape.text} SELECT * FROM file(${source})`;
}
