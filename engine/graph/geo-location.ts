// A resource's `geoLocation` (raw GeoJSON, up to 65,536 characters, validated as
// GeoJSON): the size cap and RFC 7946 validity, checked before any row is written. The
// validation itself is @placemarkio/check-geojson's; this module only frames what it says
// as SPEC errors (over the cap: 422, a field cap; not GeoJSON: 400, a wrong input).
import { getIssues } from '@placemarkio/check-geojson';
import { BadRequestError, UnprocessableError, type FieldProblem } from '../errors.ts';
import { GEOJSON_CHARS_MAX } from '../limits.ts';

/** What is wrong with one item's GeoJSON: at most one problem, sorted by the status it earns. */
export interface GeoLocationProblems {
  /** Not GeoJSON (400). */
  invalid: FieldProblem[];
  /** Over GEOJSON_CHARS_MAX characters as JSON (422). */
  tooLong: FieldProblem[];
}

/**
 * Checks one GeoJSON value (absent or null: nothing to check). Its size is the length of its
 * compact JSON text, which is also what is stored, so whitespace in the request does not count.
 */
export function geoLocationProblems(value: unknown, field: string, index: number): GeoLocationProblems {
  if (value === undefined || value === null) return { invalid: [], tooLong: [] };
  const text = JSON.stringify(value);
  if (text.length > GEOJSON_CHARS_MAX) {
    return { invalid: [], tooLong: [{ field, index, message: `GeoJSON over ${GEOJSON_CHARS_MAX} characters (${text.length})` }] };
  }
  const message = geoJsonIssue(value, text);
  return { invalid: message === undefined ? [] : [{ field, index, message: `not valid GeoJSON: ${message}` }], tooLong: [] };
}

/** The first error RFC 7946 finds, in words; a non-object is said plainly (the library's message for it is its own JSON dump). */
function geoJsonIssue(value: unknown, text: string): string | undefined {
  if (typeof value !== 'object' || Array.isArray(value)) return 'expected a GeoJSON object (a geometry, Feature or FeatureCollection)';
  return getIssues(text).find((issue) => issue.severity === 'error')?.message;
}

/** Throws for the first kind of problem any item has: 422 for sizes, else 400 for validity, naming every item affected. */
export function assertGeoLocations(problems: GeoLocationProblems[]): void {
  const tooLong = problems.flatMap((p) => p.tooLong);
  if (tooLong.length > 0) throw new UnprocessableError(`geoLocation is too long: ${tooLong[0]?.message}`, tooLong);
  const invalid = problems.flatMap((p) => p.invalid);
  if (invalid.length > 0) throw new BadRequestError(`Invalid geoLocation: ${invalid[0]?.message}`, invalid);
}
