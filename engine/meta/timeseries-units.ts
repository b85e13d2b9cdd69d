// SPEC: a time series `unit` must name a known unit, and `unitExternalId` must be an
// externalId of the catalogue. Both are checked on create and on update `set`.
import type { FieldProblem } from '../errors.ts';
import { findUnitByName, getUnit } from './units/units.ts';

export function checkUnitFields(item: { unit?: string; unitExternalId?: string }, prefix: string, index: number): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (item.unit !== undefined && !findUnitByName(item.unit)) {
    problems.push({ field: `${prefix}.unit`, index, message: 'not a known unit (see GET /units)', value: item.unit });
  }
  if (item.unitExternalId !== undefined && !getUnit(item.unitExternalId)) {
    problems.push({ field: `${prefix}.unitExternalId`, index, message: 'no unit with this externalId (see GET /units)', value: item.unitExternalId });
  }
  return problems;
}
