// The identifier rules a batch may ask for beyond SPEC's (the CDF surface does): an identifier
// named twice in one request refused, unknown ones listed. Record families apply them in their
// own writes; this module only says what is repeated.
import { UnprocessableError, type Identifier } from '../errors.ts';

/**
 * How a batch's identifiers are judged beyond SPEC's rules (the CDF surface sets them).
 * `refuseRepeats`: an identifier the batch names twice is a 422 listing it (UnprocessableError
 * `duplicated`). `listMissing`: an unknown or unreadable one is a NotFoundError listing it,
 * where SPEC's surface keeps its own rule (a 400 naming the field, or the miss skipped).
 */
export interface IdentifierRules {
  /** @default false */
  refuseRepeats?: boolean;
  /** @default false */
  listMissing?: boolean;
}

/** The identifiers a batch names more than once, each once. */
export function repeatedIdentifiers(identifiers: readonly { id?: number; externalId?: string }[]): Identifier[] {
  const seen = new Set<string>();
  const repeated = new Map<string, Identifier>();
  for (const identifier of identifiers) {
    const key = identifier.externalId !== undefined ? `e:${identifier.externalId}` : `i:${identifier.id}`;
    if (seen.has(key)) repeated.set(key, identifier.externalId !== undefined ? { externalId: identifier.externalId } : { id: identifier.id as number });
    seen.add(key);
  }
  return [...repeated.values()];
}

export function assertNoRepeats(identifiers: readonly { id?: number; externalId?: string }[]): void {
  const repeated = repeatedIdentifiers(identifiers);
  if (repeated.length > 0) throw new UnprocessableError(`Identifiers repeated in one request: ${repeated.map((r) => r.externalId ?? r.id).join(', ')}`, [], repeated);
}

