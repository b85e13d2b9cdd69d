// Units (SPEC "Units"): the read-only unit catalogue, POST /units/byids, and the advice of
// GET /timeseries/recommend-value-type/{unitExternalId}.
import { Type, type Static } from '@sinclair/typebox';

/** Longest unit externalId; a time series `unitExternalId` allows the same (schemas/timeseries.ts). */
export const UNIT_EXTERNAL_ID_CHARS_MAX = 128;
/** Most externalIds in one POST /units/byids. */
export const UNIT_BY_IDS_ITEMS_MAX = 1000;

/**
 * The seven value types of SPEC "Time series", redeclared because schemas/ imports only
 * TypeBox; schemas/units.test.ts keeps it equal to engine/datapoints/types.ts VALUE_TYPES.
 */
export const RECOMMENDABLE_VALUE_TYPES = ['BIGINT', 'FLOAT', 'FLOAT32', 'NUMERIC', 'DECIMAL32', 'TEXT', 'MIXED'] as const;

const UNIT_EXTERNAL_ID_DESCRIPTION = 'unit key in the catalogue, `<quantity>:<unit>` in lower snake case, e.g. `temperature:deg_c`, `pressure:bar`';
const UnitExternalId = Type.String({ minLength: 1, maxLength: UNIT_EXTERNAL_ID_CHARS_MAX, description: UNIT_EXTERNAL_ID_DESCRIPTION });

export const UnitConversion = Type.Object({
  multiplier: Type.Number({ exclusiveMinimum: 0, description: 'factor to the base unit of the quantity' }),
  offset: Type.Number({ description: 'added after multiplying; non-zero only for temperature scales such as °C and °F' }),
}, {
  additionalProperties: false,
  description: 'value_in_base_unit = value * multiplier + offset. The base unit of a quantity is its SI coherent unit where SI has one (K, Pa, W, m³/s ...), otherwise a conventional one (bit, pH, NTU, dB).',
});
export type UnitConversion = Static<typeof UnitConversion>;

export const Unit = Type.Object({
  externalId: Type.String({
    minLength: 3, maxLength: UNIT_EXTERNAL_ID_CHARS_MAX, pattern: '^[a-z0-9_]+:[a-z0-9_]+$', description: UNIT_EXTERNAL_ID_DESCRIPTION,
  }),
  name: Type.String({ minLength: 1, description: 'short name: the QUDT local name, e.g. `DEG_C`, `KiloW-HR`' }),
  longName: Type.String({ minLength: 1, description: 'descriptive name, e.g. `Degree Celsius`' }),
  symbol: Type.String({ minLength: 1, description: 'printed symbol, e.g. `°C`, `kW·h`, `m³/h`' }),
  aliasNames: Type.Array(Type.String({ minLength: 1 }), {
    description: 'other spellings accepted as a time series `unit` (e.g. `degC`, `kWh`, `m3/h`); unique within a quantity',
  }),
  quantity: Type.String({ minLength: 1, description: 'the physical quantity, e.g. `Temperature`, `Volume Flow Rate`' }),
  conversion: UnitConversion,
  source: Type.String({ minLength: 1, description: 'where the definition comes from, e.g. `qudt.org`' }),
  sourceReference: Type.String({ minLength: 1, description: 'the definition at the source, e.g. `http://qudt.org/vocab/unit/DEG_C`' }),
}, { additionalProperties: false, description: 'A measurement unit of the read-only catalogue.' });
export type Unit = Static<typeof Unit>;

export const UnitList = Type.Object({ items: Type.Array(Unit) }, { description: 'Units of the catalogue.' });
export type UnitList = Static<typeof UnitList>;

export const UnitByIdsRequest = Type.Object({
  items: Type.Array(Type.Object({ externalId: UnitExternalId }, { additionalProperties: false }), {
    minItems: 1,
    maxItems: UNIT_BY_IDS_ITEMS_MAX,
    description: `1 to ${UNIT_BY_IDS_ITEMS_MAX} unit externalIds`,
  }),
}, { additionalProperties: false });
export type UnitByIdsRequest = Static<typeof UnitByIdsRequest>;

export const RecommendedValueType = Type.Union(RECOMMENDABLE_VALUE_TYPES.map((v) => Type.Literal(v)), {
  description: 'one of the time series value types: BIGINT, FLOAT, FLOAT32, NUMERIC, DECIMAL32, TEXT, MIXED',
});

export const ValueTypeRecommendation = Type.Object({
  unitExternalId: Type.String({ description: 'the unit asked about, as given' }),
  recognized: Type.Boolean({ description: 'false when the unit is not in the catalogue; valueType is then a default' }),
  valueType: RecommendedValueType,
  quantity: Type.Optional(Type.String({ description: 'quantity of the unit, when recognized' })),
  reason: Type.String({ description: 'why this value type is advised' }),
}, { additionalProperties: false, description: 'Advice on the value type of a time series measured in a unit; advice only, nothing is enforced.' });
export type ValueTypeRecommendation = Static<typeof ValueTypeRecommendation>;

/** GET /units. */
export const UnitListQuery = Type.Object({
  quantity: Type.Optional(Type.String({ description: 'only units of this quantity (case-insensitive), e.g. Temperature' })),
});
