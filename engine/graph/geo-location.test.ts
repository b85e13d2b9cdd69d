// Goal: a resource's geoLocation is accepted when it is RFC 7946 GeoJSON of at most 65,536
// characters, refused with a 400 naming the field when it is not GeoJSON, and with a 422 when
// it is too long (SPEC Conventions). Method: the pure check, one line per case, each
// kind of GeoJSON object valid and a typical mistake for each; the cap at the limit and one past.
import t from 'tap';
import { BadRequestError, UnprocessableError } from '../errors.ts';
import { GEOJSON_CHARS_MAX } from '../limits.ts';
import { assertGeoLocations, geoLocationProblems } from './geo-location.ts';

type Outcome = 'ok' | 400 | 422;

function outcome(value: unknown): { status: Outcome; message?: string } {
  try {
    assertGeoLocations([geoLocationProblems(value, 'nodes.0.geoLocation', 0)]);
    return { status: 'ok' };
  } catch (error) {
    if (error instanceof UnprocessableError) return { status: 422, message: error.message };
    if (error instanceof BadRequestError) return { status: 400, message: error.message };
    throw error;
  }
}

const check = (value: unknown, expected: Outcome, name: string) => t.equal(outcome(value).status, expected, name);

const point = { type: 'Point', coordinates: [10.75, 59.91] };
const square = [[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]]];

check(undefined, 'ok', 'absent');
check(null, 'ok', 'null: nothing to check');
check(point, 'ok', 'Point');
check({ type: 'Point', coordinates: [1, 2, 3] }, 'ok', 'Point with altitude');
check({ type: 'MultiPoint', coordinates: [[1, 2], [3, 4]] }, 'ok', 'MultiPoint');
check({ type: 'LineString', coordinates: [[1, 2], [3, 4]] }, 'ok', 'LineString');
check({ type: 'MultiLineString', coordinates: [[[1, 2], [3, 4]]] }, 'ok', 'MultiLineString');
check({ type: 'Polygon', coordinates: square }, 'ok', 'Polygon');
check({ type: 'MultiPolygon', coordinates: [square] }, 'ok', 'MultiPolygon');
check({ type: 'GeometryCollection', geometries: [point] }, 'ok', 'GeometryCollection');
check({ type: 'Feature', geometry: point, properties: { name: 'pump' } }, 'ok', 'Feature');
check({ type: 'Feature', geometry: null, properties: null }, 'ok', 'Feature without a location');
check({ type: 'FeatureCollection', features: [{ type: 'Feature', geometry: point, properties: {} }] }, 'ok', 'FeatureCollection');
check({ ...point, title: 'foreign members are allowed (RFC 7946 6.1)' }, 'ok', 'a foreign member');

check('POINT(1 2)', 400, 'a string (WKT is not GeoJSON)');
check([1, 2], 400, 'an array');
check(42, 400, 'a number');
check({}, 400, 'no type');
check({ type: 'Nope', coordinates: [1, 2] }, 400, 'an unknown type');
check({ type: 'Point' }, 400, 'Point without coordinates');
check({ type: 'Point', coordinates: [1] }, 400, 'a position of one number');
check({ type: 'Point', coordinates: [1, 2, 3, 4] }, 400, 'a position of four numbers');
check({ type: 'Point', coordinates: ['1', 2] }, 400, 'a position of strings');
check({ type: 'LineString', coordinates: [[1, 2]] }, 400, 'a LineString of one position');
check({ type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 1]]] }, 400, 'an open ring');
check({ type: 'Feature', geometry: point }, 400, 'a Feature without properties');
check({ type: 'FeatureCollection', features: [point] }, 400, 'a FeatureCollection of bare geometries');
check({ ...point, bbox: [1] }, 400, 'a bbox of one number');

t.test('the message is one plain sentence naming the problem', async (t) => {
  t.equal(outcome('abc').message, 'Invalid geoLocation: not valid GeoJSON: expected a GeoJSON object (a geometry, Feature or FeatureCollection)');
  t.match(outcome({ type: 'Point' }).message, /^Invalid geoLocation: not valid GeoJSON: .*coordinates/);
  t.notMatch(outcome([1, 2]).message, /\n/, 'no JSON dump in the message');
});

t.test('the size cap: 65,536 characters of compact JSON', async (t) => {
  const padded = (chars: number) => {
    const feature = { type: 'Feature', geometry: point, properties: { pad: '' } };
    feature.properties.pad = 'x'.repeat(chars - JSON.stringify(feature).length);
    return feature;
  };
  t.equal(JSON.stringify(padded(GEOJSON_CHARS_MAX)).length, GEOJSON_CHARS_MAX);
  t.equal(outcome(padded(GEOJSON_CHARS_MAX)).status, 'ok', 'at the limit');
  t.equal(outcome(padded(GEOJSON_CHARS_MAX + 1)).status, 422, 'one past it');
  const problems = [geoLocationProblems(padded(GEOJSON_CHARS_MAX + 1), 'nodes.3.geoLocation', 3), geoLocationProblems('bad', 'nodes.4.geoLocation', 4)];
  t.same(problems.map((p) => [...p.tooLong, ...p.invalid].map((f) => f.field)), [['nodes.3.geoLocation'], ['nodes.4.geoLocation']], 'each item names its own field');
  t.throws(() => assertGeoLocations(problems), { code: 'UnprocessableError' }, 'a size problem anywhere is the 422, before validity');
});
