// SPEC filter patterns: `*` and `%` are wildcards, `_` is literal, matching is
// case-insensitive, and a pattern without wildcard is an exact (case-insensitive) match.
// Compiled to ILIKE with `\` as escape character.

/** The ILIKE form of a SPEC pattern. */
export function patternToIlike(pattern: string): string {
  let out = '';
  for (const ch of pattern) {
    if (ch === '*' || ch === '%') out += '%';
    else if (ch === '_' || ch === '\\') out += `\\${ch}`;
    else out += ch;
  }
  return out;
}

/** Bare value or array, as SPEC lets every list field be given. */
export function asList<T>(value: T | T[] | undefined | null): T[] | undefined {
  if (value === undefined || value === null) return undefined;
  return Array.isArray(value) ? value : [value];
}
