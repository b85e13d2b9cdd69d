// Shapes shared by every route family: identifiers, envelopes, caps from SPEC Conventions.
import { Type, type TSchema } from '@sinclair/typebox';

/** Caps mirrored from engine/limits.ts (schemas/ imports only TypeBox; a test keeps them equal). */
export const CAPS = {
  itemsPerRequestMax: 10_000,
  descriptionCharsMax: 10_000,
  metadataEntriesMax: 256,
  metadataKeyCharsMax: 128,
  metadataValueCharsMax: 1_024,
  labelsMax: 64,
  labelCharsMax: 512,
  externalIdCharsMax: 255,
  nameCharsMax: 255,
  timeseriesListLimitMax: 10_000,
  timeseriesListLimitDefault: 1_000,
  fileListLimitMax: 1_000,
  fileListLimitDefault: 100,
} as const;

export const Id = Type.Integer({ minimum: 1, maximum: 9007199254740991, description: 'server-assigned 64-bit id (at most 2^53-1)' });
export const ExternalId = Type.String({ minLength: 1, maxLength: CAPS.externalIdCharsMax, description: 'client-chosen key, unique within the tenant' });
/** Bounded so a filter's time range always fits the store's bigint (a larger value is a 400, not a 500). */
export const EpochMs = Type.Integer({ minimum: -9007199254740991, maximum: 9007199254740991, description: 'epoch milliseconds, UTC' });

export const Description = Type.String({ maxLength: CAPS.descriptionCharsMax });
/**
 * TypeBox ignores maxLength on a Record key, so the key cap is a pattern; with
 * additionalProperties false a longer key fails (api/validation.ts reports it as a 422).
 */
export const Metadata = Type.Record(
  Type.String({ pattern: `^[\\s\\S]{0,${CAPS.metadataKeyCharsMax}}$` }),
  Type.String({ maxLength: CAPS.metadataValueCharsMax }),
  {
    maxProperties: CAPS.metadataEntriesMax,
    additionalProperties: false,
    description: 'flat map of string to string: up to 256 entries, keys up to 128 characters, values up to 1024',
  },
);
export const Labels = Type.Array(Type.String({ minLength: 1, maxLength: CAPS.labelCharsMax }), {
  maxItems: CAPS.labelsMax,
  description: 'label externalIds; a new name creates the label',
});

/** Update verbs (SPEC "Update verbs per field"): `set` replaces, `setNull: true` clears; both together is a 400 the engine reports. */
export const SetOrNull = <T extends TSchema>(value: T) =>
  Type.Object({ set: Type.Optional(value), setNull: Type.Optional(Type.Boolean()) }, { additionalProperties: false });

/** The verbs of `metadata`: also `add` (set keys) and `remove` (delete keys). */
export const MetadataUpdate = Type.Object({
  set: Type.Optional(Metadata),
  setNull: Type.Optional(Type.Boolean()),
  add: Type.Optional(Metadata),
  remove: Type.Optional(Type.Array(Type.String({ maxLength: CAPS.metadataKeyCharsMax }), { maxItems: CAPS.metadataEntriesMax })),
}, { additionalProperties: false });

/** The verbs of `labels`: also `add` (append missing) and `remove`. */
export const LabelsUpdate = Type.Object({
  set: Type.Optional(Labels),
  setNull: Type.Optional(Type.Boolean()),
  add: Type.Optional(Labels),
  remove: Type.Optional(Labels),
}, { additionalProperties: false });

/** A filter field taking a bare value or a list (SPEC "Time series filter": list fields accept either). */
export const OneOrMany = <T extends TSchema>(value: T) => Type.Union([value, Type.Array(value, { maxItems: 1000 })]);
/** One entry of a pattern list. */
export const Pattern = Type.String({ maxLength: 512, description: '`*` and `%` are wildcards, `_` is literal, case-insensitive; no wildcard means exact' });
export const TimeRange = Type.Object({ min: Type.Optional(EpochMs), max: Type.Optional(EpochMs) }, { description: 'inclusive min and max' });
/** A `dataSetId` filter entry; descendants are included and unreadable data sets silently omitted. */
export const DataSetRef = Type.Union([Type.Object({ id: Id }), Type.Object({ externalId: ExternalId })]);
export const LabelsFilter = OneOrMany(Type.String({ maxLength: CAPS.labelCharsMax }));
export const MetadataFilter = Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]), { description: 'every entry must be present; a null value matches the key alone' });

/** `sort`: one property of `properties` (bare or in a list of one), `id` appended as tie-break. */
export const SortSchema = <P extends string>(properties: readonly P[]) => {
  const property = Type.Union(properties.map((p) => Type.Literal(p)));
  const item = Type.Object({
    property: Type.Union([property, Type.Array(property, { minItems: 1, maxItems: 1 })]),
    order: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
  });
  return Type.Union([item, Type.Array(item, { minItems: 1, maxItems: 1 })], { description: 'one property; `id` is appended as tie-break' });
};

export const IdentifierSchema = Type.Union([
  Type.Object({ id: Id, externalId: Type.Optional(ExternalId) }),
  Type.Object({ externalId: ExternalId, id: Type.Optional(Id) }),
], { description: '`{ id }`, `{ externalId }` or both (both must name the same record)' });

export const Items = <T extends TSchema>(item: T, maxItems: number = CAPS.itemsPerRequestMax, minItems = 1) =>
  Type.Object({ items: Type.Array(item, { minItems, maxItems }) });

export const ItemsResponse = <T extends TSchema>(item: T) => Type.Object({ items: Type.Array(item) });

export const PagedResponse = <T extends TSchema>(item: T) =>
  Type.Object({ items: Type.Array(item), nextCursor: Type.Optional(Type.String({ description: 'send back as `cursor` for the next page' })) });

/**
 * The query of a GET list (SPEC Conventions: paging): `limit` from 1 to limitMax, `cursor` from
 * the previous page. A query parameter with a default is not Optional: absent, it takes the
 * default (api/query-schema.ts), so handlers get a value; /openapi.json shows it not required.
 */
export const PageQuery = (limitMax: number, limitDefault: number) => Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: limitMax, default: limitDefault, description: `page size, default ${limitDefault}, at most ${limitMax}` }),
  cursor: Type.Optional(Type.String({ description: 'nextCursor of the previous page' })),
});

export const EmptyItems = Type.Object({ items: Type.Array(Type.Never(), { maxItems: 0 }) });
