// The error of a data point request naming series that are missing or unreadable (SPEC: 404
// on insert and reads, listing them in `missing`; delete has its own 400, delete-datapoints.ts).
import { NotFoundError, type Identifier } from '../errors.ts';

/** A NotFoundError listing every missing identifier; the message names the first five. */
export function unknownSeriesError(missing: readonly { index: number; identifier: Identifier }[], what: string): NotFoundError {
  return new NotFoundError(`${what}: no time series for ${missing.map((m) => JSON.stringify(m.identifier)).slice(0, 5).join(', ')}`, missing.map((m) => m.identifier));
}
