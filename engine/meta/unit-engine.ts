// The unit use cases (SPEC "Units"): a central read-only catalogue addressed by externalId, the
// same for every tenant, and the value type advice for a unit.
import type { Unit, ValueTypeRecommendation } from '../../schemas/units.ts';
import { NotFoundError } from '../errors.ts';
import { recommendValueType } from './units/recommend-value-type.ts';
import { getUnit, getUnits, listUnits } from './units/units.ts';

export interface UnitEngine {
  /** Every unit, or those of one quantity (case-insensitive). */
  list(quantity?: string): readonly Unit[];
  /** Throws NotFoundError for an unknown externalId. */
  get(externalId: string): Unit;
  /** Misses are omitted. */
  byExternalIds(externalIds: readonly string[]): Unit[];
  /** An unknown unit gets a default with recognized=false. */
  recommendValueType(unitExternalId: string): ValueTypeRecommendation;
}

export const unitEngine: UnitEngine = {
  list(quantity) {
    const units = listUnits();
    const wanted = quantity?.toLowerCase();
    return wanted ? units.filter((u) => u.quantity.toLowerCase() === wanted) : units;
  },
  get(externalId) {
    const unit = getUnit(externalId);
    if (!unit) throw new NotFoundError(`No unit with externalId "${externalId}"`, [{ externalId }]);
    return unit;
  },
  byExternalIds: (externalIds) => getUnits(externalIds),
  recommendValueType: (unitExternalId) => recommendValueType(unitExternalId),
};
