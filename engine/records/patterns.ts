// The one compiler of SPEC pattern lists (time series filter, event filter): `*` and `%` are
// wildcards, `_` is literal, matching is case-insensitive, a pattern without wildcard is an
// exact (case-insensitive) match, and a list field takes a bare value or an array whose
// entries are OR-ed. Compiled to LIKE with `\` as escape character and every pattern bound.
import type { SqlParams } from '../stores/sql-params.ts';

/** The LIKE form of a SPEC pattern: wildcards to `%`, `_` and `\` escaped. */
export function patternToIlike(pattern: string): string {
  let out = '';
  for (const ch of pattern) {
    if (ch === '*' || ch === '%') out += '%';
    else if (ch === '_' || ch === '\\') out += `\\${ch}`;
    else out += ch;
  }
  return out;
}

/** True when the pattern has a wildcard (`*` or `%`). */
export function hasWildcard(pattern: string): boolean {
  return pattern.includes('*') || pattern.includes('%');
}

/** Bare value or array, as SPEC lets every list field be given. */
export function asList<T>(value: T | T[] | undefined | null): T[] | undefined {
  if (value === undefined || value === null) return undefined;
  return Array.isArray(value) ? value : [value];
}

export interface PatternOptions {
  /**
   * Entries without wildcard match exactly and case-sensitively (SPEC event filter rule 3:
   * `externalId`); entries with one stay case-insensitive. @default false
   */
  literalCaseSensitive?: boolean;
}

/**
 * SQL predicate matching `column` against any pattern of the list; undefined when no list is
 * given, `false` for an empty list. `column` comes only from an allow-list (STYLE §7).
 */
export function patternPredicate(params: SqlParams, column: string, patterns: string | string[] | undefined | null, options: PatternOptions = {}): string | undefined {
  const list = asList(patterns);
  if (!list) return undefined;
  if (list.length === 0) return 'false';
  // lower() LIKE lower() rather than ILIKE: a btree on lower(column) text_pattern_ops serves
  // a pattern's literal prefix (migration 003), which ILIKE cannot use. A pattern without
  // wildcard is the same match written as an equality: the planner then knows the column is
  // one value, so an index (tenant, lower(column), sort key) also gives the sort order and a
  // page stops at its limit (a LIKE it turns into an index equality too, but without that
  // knowledge it fetched and sorted every row of the range: the type + eventTime filter).
  const each = list.map((p) => (!hasWildcard(p)
    ? (options.literalCaseSensitive ? `${column} = ${params.bind(p)}` : `lower(${column}) = lower(${params.bind(p)})`)
    : `lower(${column}) LIKE lower(${params.bind(patternToIlike(p))})`));
  return `(${each.join(' OR ')})`;
}
