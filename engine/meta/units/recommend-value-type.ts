// Value type advice for a unit (SPEC: GET /timeseries/recommend-value-type/{unitExternalId}).
// Advice only: nothing enforces it, and an unknown unit gets a default with recognized=false.
// The rules are a table read top to bottom; the first that names the unit or its quantity wins.
import assert from 'node:assert/strict';
import { VALUE_TYPES, type ValueType } from '../../datapoints/types.ts';
import type { ValueTypeRecommendation } from '../../../schemas/units.ts';
import { getUnit } from './units.ts';

/** One row of the advice table: units (by `Unit.name`) or quantities it covers, and why. */
interface ValueTypeRule {
  units?: readonly string[];
  quantities?: readonly string[];
  valueType: ValueType;
  reason: string;
}

export const VALUE_TYPE_RULES: readonly ValueTypeRule[] = [
  {
    // Energy sold and bought: meter registers and settlement totals are summed and compared
    // to invoices, so binary rounding must not creep in. Decimal(18,6) holds ±10^12 with six
    // decimals, far more than any register.
    units: ['W-HR', 'KiloW-HR', 'MegaW-HR', 'GigaW-HR', 'TeraW-HR', 'VA-HR', 'KiloVA-HR', 'MegaVA-HR',
      'VAR-HR', 'KiloVAR-HR', 'MegaVAR-HR', 'THERM_US', 'THERM_EC', 'MegaBTU_IT', 'GigaJ', 'TOE'],
    valueType: 'NUMERIC',
    reason: 'Billing-style energy: meter registers and settlement totals must add up exactly; NUMERIC (Decimal(18,6)) keeps sums exact where a double would drift.',
  },
  {
    quantities: ['Count'],
    valueType: 'BIGINT',
    reason: 'Counts of items or events are whole numbers; BIGINT stores them exactly up to 2^63-1, with no rounding in sums.',
  },
  {
    units: ['BIT', 'BYTE'],
    valueType: 'BIGINT',
    reason: 'Bits and bytes are counted in whole numbers; BIGINT stores them exactly (scaled units such as MB or GiB are fractional and read as FLOAT).',
  },
  {
    // Logarithmic and index scales: readings carry one to three decimals and are never summed,
    // so a double is plenty; named so that the reason says why.
    quantities: ['Acidity', 'Turbidity', 'Sound Pressure Level'],
    valueType: 'FLOAT',
    reason: 'A reading on a logarithmic or index scale (pH, NTU, dB) is fractional and never summed; FLOAT (double) is exact enough.',
  },
];

/** Any other recognized unit: a physical measurement. */
const MEASUREMENT_RULE: ValueTypeRule = {
  valueType: 'FLOAT',
  reason: 'A physical measurement: FLOAT (64-bit double) keeps about 15 significant digits, more than any sensor resolves; FLOAT32 halves storage when 7 digits suffice.',
};

/** A unit the catalogue does not know: SPEC asks for a default with recognized=false. */
const UNKNOWN_VALUE_TYPE: ValueType = 'FLOAT';

for (const rule of [...VALUE_TYPE_RULES, MEASUREMENT_RULE]) assert.ok(VALUE_TYPES.includes(rule.valueType), `unknown value type ${rule.valueType}`);

/** The value type to advise for a time series measured in this unit (externalId, exact). */
export function recommendValueType(unitExternalId: string): ValueTypeRecommendation {
  const unit = getUnit(unitExternalId);
  if (!unit) {
    return {
      unitExternalId,
      recognized: false,
      valueType: UNKNOWN_VALUE_TYPE,
      reason: `No unit with externalId "${unitExternalId}" in the catalogue (GET /units lists them); ${UNKNOWN_VALUE_TYPE} is the default for numeric measurements.`,
    };
  }
  const rule = VALUE_TYPE_RULES.find((r) => r.units?.includes(unit.name) || r.quantities?.includes(unit.quantity)) ?? MEASUREMENT_RULE;
  return { unitExternalId, recognized: true, valueType: rule.valueType, quantity: unit.quantity, reason: rule.reason };
}
