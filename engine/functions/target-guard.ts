// A function's target is written by the function alone: a hand write (an insert or a delete
// of its points) would be overwritten or brought back by the next recompute, and the target
// would no longer be what its expression says. Refused with a 400 naming the function, to a
// caller who may read the function; to others, without its name.
import { BadRequestError, type FieldProblem } from '../errors.ts';
import { canRead, type Access } from '../grants/access.ts';
import type { TargetIndex } from './target-index.ts';

/** Throws BadRequestError when a series of `seriesIds` (parallel to the request's items; null: unresolved) is a function's target. */
export type WriteGuard = (access: Access, seriesIds: readonly (number | null | undefined)[]) => Promise<void>;

export function keptTargetsGuard(index: () => TargetIndex | undefined): WriteGuard {
  return async (access, seriesIds) => {
    const held = index();
    if (!held) return;
    const targets = await held.of(access.tenant);
    if (targets.byTarget.size === 0) return;
    const problems: FieldProblem[] = [];
    seriesIds.forEach((seriesId, i) => {
      const fn = seriesId == null ? undefined : targets.byTarget.get(seriesId);
      if (!fn) return;
      const named = canRead(access, fn.dataSetId);
      problems.push({
        field: `items.${i}`, index: i,
        message: named ? `the function ${JSON.stringify(fn.externalId)} keeps this time series up to date; only it writes its points` : 'a function keeps this time series up to date; only it writes its points',
        ...(named ? { value: fn.externalId } : {}),
      });
    });
    if (problems.length > 0) throw new BadRequestError(`Cannot write a function's target by hand: ${problems.slice(0, 5).map((p) => `${p.field}: ${p.message}`).join('; ')}`, problems);
  };
}
