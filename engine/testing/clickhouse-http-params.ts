// Query parameters of the ClickHouse HTTP fixture: what a server does with `param_<name>=`
// values, done in SQL text for chdb. The fixture's statements run through chdb's unbound path
// (its bound path runs every bound statement of the process through one queue), so each
// {name:Type} placeholder becomes CAST(<literal> AS Type), as the server's own substitution
// does after parsing the value. The server parses a value with its type's Escaped text form
// (measured on chdb's engine through format(TSV, ...)): a top-level String is TSV-unescaped,
// while an Array's elements are quoted literals with no outer TSV layer, the same text
// CAST(<string> AS Array(...)) parses. Values are kept byte for byte.

/** A ClickHouse error raised by the fixture itself, in the server's codes. */
export class ServerError extends Error {
  constructor(readonly code: number, readonly type: string, message: string) {
    super(message);
  }
}

const STRING_TYPE = /^(?:String|FixedString\(\s*\d+\s*\))$/;
const WRAPPER = /^(?:Nullable|LowCardinality)\((.*)\)$/s;

/** The type under Nullable(...) and LowCardinality(...). */
function baseType(type: string): string {
  let inner = type.trim();
  for (let match = WRAPPER.exec(inner); match; match = WRAPPER.exec(inner)) inner = (match[1] as string).trim();
  return inner;
}

const ESCAPES: Record<string, number> = { b: 0x08, f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09, '0': 0x00, a: 0x07, v: 0x0b, e: 0x1b };

/** The bytes a TSV-escaped field stands for (ClickHouse's readEscapedString: \xHH, \n, \t, ..., \<c> is c). */
export function tsvUnescape(text: string): Buffer {
  const input = Buffer.from(text, 'utf8');
  const out: number[] = [];
  for (let i = 0; i < input.length; i++) {
    const byte = input[i] as number;
    if (byte !== 0x5c || i + 1 >= input.length) {
      out.push(byte);
      continue;
    }
    const next = String.fromCharCode(input[++i] as number);
    const hex = next === 'x' ? /^[0-9A-Fa-f]{2}$/.exec(input.subarray(i + 1, i + 3).toString('latin1')) : null;
    if (hex) {
      out.push(Number.parseInt(hex[0], 16));
      i += 2;
    } else out.push(ESCAPES[next] ?? (input[i] as number));
  }
  return Buffer.from(out);
}

/** A string literal holding exactly these bytes: everything outside printable ASCII as \xHH. */
export function bytesLiteral(bytes: Uint8Array): string {
  let out = "'";
  for (const byte of bytes) {
    if (byte === 0x5c) out += '\\\\';
    else if (byte === 0x27) out += "\\'";
    else if (byte < 0x20 || byte >= 0x7f) out += `\\x${byte.toString(16).padStart(2, '0')}`;
    else out += String.fromCharCode(byte);
  }
  return `${out}'`;
}

/** The SQL for one placeholder given the server-encoded value. */
export function parameterLiteral(type: string, encoded: string): string {
  const base = baseType(type);
  if (encoded === '\\N' && base !== type.trim()) return `CAST(NULL AS ${type})`;
  const bytes = STRING_TYPE.test(base) ? tsvUnescape(encoded) : Buffer.from(encoded, 'utf8');
  return `CAST(${bytesLiteral(bytes)} AS ${type})`;
}

/** Index just past a quoted run starting at `from` (quote char at `from`), with backslash escapes. */
function skipQuoted(sql: string, from: number): number {
  const quote = sql[from];
  let i = from + 1;
  while (i < sql.length && sql[i] !== quote) i += sql[i] === '\\' ? 2 : 1;
  return i + 1;
}

const PLACEHOLDER_HEAD = /\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*:/y;

/** The end of a placeholder's type: the `}` closing it, past parentheses and quoted names. */
function placeholderEnd(sql: string, from: number): number {
  let depth = 0;
  for (let i = from; i < sql.length;) {
    const char = sql[i] as string;
    if (char === "'" || char === '"' || char === '`') {
      i = skipQuoted(sql, i);
      continue;
    }
    if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === '}' && depth === 0) return i;
    i++;
  }
  return -1;
}

/**
 * The statement with every {name:Type} outside quotes replaced by its value. A placeholder
 * without a value is the server's UNKNOWN_QUERY_PARAMETER (456).
 */
export function substituteParams(sql: string, params: ReadonlyMap<string, string>): string {
  let out = '';
  let last = 0;
  for (let i = 0; i < sql.length;) {
    const char = sql[i] as string;
    if (char === "'" || char === '"' || char === '`') {
      i = skipQuoted(sql, i);
      continue;
    }
    if (char === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
      continue;
    }
    PLACEHOLDER_HEAD.lastIndex = i;
    const head = char === '{' ? PLACEHOLDER_HEAD.exec(sql) : null;
    const end = head ? placeholderEnd(sql, PLACEHOLDER_HEAD.lastIndex) : -1;
    if (!head || end < 0) {
      i++;
      continue;
    }
    const name = head[1] as string;
    const value = params.get(name);
    if (value === undefined) throw new ServerError(456, 'UNKNOWN_QUERY_PARAMETER', `Substitution \`${name}\` is not set`);
    out += sql.slice(last, i) + parameterLiteral(sql.slice(PLACEHOLDER_HEAD.lastIndex, end).trim(), value);
    i = last = end + 1;
  }
  return out + sql.slice(last);
}
