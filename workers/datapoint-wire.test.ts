// Goal: a scanned or encoded body rebuilt from its wire form is the body that went in, for
// every value type, items by id or by any externalId (astral characters included), missing
// series and errors; columns outside the lent slab take the plain form; a tenant's hints
// decode from their shared buffer to the same keys, series and valueTypes. Method: real
// scans and encodings into shared slabs, the wire form put through the structured clone (as
// postMessage does), rebuilt over the same slabs and compared.
import t from 'tap';
import type { SeriesPoints, ValueType } from '../engine/datapoints/types.ts';
import { PACKED_TS, PackedBatch } from '../engine/datapoints/write/packed-batch.ts';
import { encodeOutputBytes, encodeScannedBody } from './datapoint-encode.ts';
import { scanDatapointBody, scanScratchBytes } from './datapoint-scan.ts';
import { encodedFromWire, encodedToWire, hintPick, hintsFromBuffer, hintsGeneration, hintsToBuffer, namedByOneIdentifier, scannedFromWire, scannedToWire } from './datapoint-wire.ts';
import { plainEncoded } from './testing/plain-encoded.ts';

const TEXT = `{"items":[
  {"id":1,"datapoints":[{"timestamp":1,"value":-0},{"timestamp":3,"value":"1.5"},{"timestamp":4,"value":"2.5"}]},
  {"externalId":"counter 🌡 ü","datapoints":[{"timestamp":1700000000000,"value":"9223372036854775807"},{"timestamp":1700000000001,"value":"-9223372036854775808"}]},
  {"externalId":"gone","datapoints":[{"timestamp":1,"value":"x"}]},
  {"id":9007199254740991,"datapoints":[{"timestamp":5,"value":"état"},{"timestamp":6,"value":7}]},
  {"externalId":"notes","datapoints":[{"timestamp":5,"value":"line\\nbreak"}]},
  {"externalId":"flow","datapoints":[{"timestamp":8,"value":"12.345678"}]},
  {"externalId":"bad","datapoints":[{"timestamp":9,"value":"not a number"}]}
]}`;
const body = new TextEncoder().encode(TEXT);
const valueTypes: (ValueType | null)[] = ['FLOAT', 'BIGINT', null, 'MIXED', 'TEXT', 'NUMERIC', 'FLOAT'];
const seriesIds = [11, 12, null, 14, 15, 16, 17];

t.test('a scanned body in the scratch slab comes back whole from its wire form', async (t) => {
  const scratch = new SharedArrayBuffer(scanScratchBytes(body.byteLength));
  const scanned = scanDatapointBody(body, scratch);
  const wire = scannedToWire(scanned, scratch);
  t.equal(wire.kind, 'slab');
  const back = scannedFromWire(structuredClone(wire), scratch);
  // Every field the scan gave, read through the wire form's (its items are made on first read).
  t.same(Object.fromEntries(Object.keys(scanned).map((key) => [key, back[key as keyof typeof back]])), scanned);
  t.equal(back.items, back.items, 'the items are made once');
  t.equal(back.items[1]?.externalId, 'counter 🌡 ü');
  t.equal(back.items[3]?.id, 9007199254740991);
  t.equal(back.timestampMs.buffer, scratch, 'columns are views on the slab, not copies');
});

t.test('whether every item names its series by one identifier, in either form', async (t) => {
  const scratch = new SharedArrayBuffer(scanScratchBytes(body.byteLength));
  t.equal(namedByOneIdentifier(scannedToWire(scanDatapointBody(body, scratch), scratch)), true, 'ids or externalIds, never both');
  const both = new TextEncoder().encode('{"items":[{"externalId":"a","datapoints":[]},{"id":5,"externalId":"b","datapoints":[]}]}');
  const bothScratch = new SharedArrayBuffer(scanScratchBytes(both.byteLength));
  t.equal(namedByOneIdentifier(scannedToWire(scanDatapointBody(both, bothScratch), bothScratch)), false, 'slab form: an item naming both');
  t.equal(namedByOneIdentifier(scannedToWire(scanDatapointBody(both), undefined)), false, 'plain form: an item naming both');
});

t.test('columns outside the slab take the plain form', async (t) => {
  const scanned = scanDatapointBody(body);
  t.equal(scannedToWire(scanned, undefined).kind, 'plain');
  t.equal(scannedToWire(scanned, new SharedArrayBuffer(8)).kind, 'plain', 'another slab than the columns\'');
  const encoded = encodeScannedBody(body, scanned, valueTypes, seriesIds);
  t.equal(encodedToWire(encoded, undefined).kind, 'plain');
  const output = new SharedArrayBuffer(encodeOutputBytes(scanned.pointCount, scanned.items.length));
  const twice = new TextEncoder().encode('{"items":[{"id":1,"datapoints":[{"timestamp":3,"value":1},{"timestamp":3,"value":2}]}]}');
  const deduplicated = encodeScannedBody(twice, scanDatapointBody(twice), ['FLOAT'], [1], output);
  t.equal(encodedToWire(deduplicated, output).kind, 'plain', 'a series whose duplicate timestamps were merged into columns of its own');
  const small = new SharedArrayBuffer(64);
  t.equal(encodedToWire(encodeScannedBody(body, scanned, valueTypes, seriesIds, small), small).kind, 'plain', 'a slab too small for some columns');
});

t.test('an encoded body in the output slab comes back whole: every value type, missing series, errors', async (t) => {
  const scratch = new SharedArrayBuffer(scanScratchBytes(body.byteLength));
  const scanned = scanDatapointBody(body, scratch);
  const output = new SharedArrayBuffer(encodeOutputBytes(scanned.pointCount, scanned.items.length));
  const encoded = encodeScannedBody(body, scanned, valueTypes, seriesIds, output);
  t.ok(encoded.errors.length > 0, 'the body has a value error to carry');
  t.ok(encoded.series.some((s) => s?.text) && encoded.series.some((s) => s?.scaled) && encoded.series.some((s) => s?.bigint) && encoded.series.some((s) => s?.isText), 'every kind of column');
  const wire = encodedToWire(encoded, output);
  t.equal(wire.kind, 'slab');
  const back = encodedFromWire(structuredClone(wire), output);
  t.same(plainEncoded(back), plainEncoded(encoded));
  t.ok(back.series.every((s, i) => (s === null) === (encoded.series[i] === null)), 'missing series stay missing');
});

t.test('an encoded body in the output slab comes packed too: the series with points, as the ingest log takes them', async (t) => {
  const scratch = new SharedArrayBuffer(scanScratchBytes(body.byteLength));
  const scanned = scanDatapointBody(body, scratch);
  const output = new SharedArrayBuffer(encodeOutputBytes(scanned.pointCount, scanned.items.length));
  const encoded = encodeScannedBody(body, scanned, valueTypes, seriesIds, output);
  const back = encodedFromWire(structuredClone(encodedToWire(encoded, output)), output);
  const packed = back.packed;
  if (!packed) throw new Error('the slab form comes packed');
  const expected = encoded.series.filter((s): s is SeriesPoints => s !== null && s.timestampMs.length > 0);
  t.ok(expected.length < encoded.series.length, 'the body has a missing series or one without points to leave out');
  const batch = new PackedBatch({ tenant: 'acme', writeVersion: 7n, packed });
  const plain = (series: readonly SeriesPoints[]) => plainEncoded({ series: [...series], errors: [] });
  t.same(plain(batch.unpack().series), plain(expected), 'the same series, in item order, over the same memory');
  t.equal(packed.pointCount, expected.reduce((n, s) => n + s.timestampMs.length, 0));
  t.equal(packed.textPointCount, expected.filter((s) => s.valueType === 'TEXT' || s.valueType === 'MIXED').reduce((n, s) => n + s.timestampMs.length, 0));
  t.equal(packed.columnByteCount, expected.reduce((n, s) => n + [s.timestampMs, s.float, s.bigint, s.scaled, s.isText].reduce((m, c) => m + (c?.byteLength ?? 0), 0), 0));
  t.ok(Array.from({ length: batch.seriesCount }, (_, i) => batch.f64(i, PACKED_TS).buffer).every((b) => b === output), 'every column in the output slab');
  t.equal(encodedFromWire({ kind: 'plain', encoded }, undefined).packed, undefined, 'the plain form has none');
});

t.test('hints decode from their shared buffer', async (t) => {
  const hints = { keys: ['i:1', 'x:counter 🌡 ü', 'x:', `x:${'long'.repeat(100)}`], seriesIds: [1, 2 ** 53 - 1, 3, 4], valueTypes: ['FLOAT', 'BIGINT', 'MIXED', 'TEXT'] as ValueType[] };
  const buffer = hintsToBuffer(42, hints);
  t.equal(hintsGeneration(buffer), 42);
  const decoded = hintsFromBuffer(buffer);
  t.same([...decoded.byId], [[1, 0]]);
  t.same([...decoded.byExternalId], [['counter 🌡 ü', 1], ['', 2], ['long'.repeat(100), 3]]);
  t.same(hints.keys.map((key) => hintPick(decoded, key.startsWith('i:') ? { id: Number(key.slice(2)) } : { externalId: key.slice(2) })), [0, 1, 2, 3], 'each key finds its hint');
  t.equal(hintPick(decoded, { id: 2 }), undefined, 'an unknown id finds none');
  t.equal(hintPick(decoded, { id: 1, externalId: 'counter 🌡 ü' }), 0, 'an item naming both goes by its id, as hintKey does');
  t.same(Array.from(decoded.seriesIds), hints.seriesIds);
  t.same(decoded.valueTypes, hints.valueTypes);
  const none = hintsFromBuffer(hintsToBuffer(1, { keys: [], seriesIds: [], valueTypes: [] }));
  t.same([none.byId.size, none.byExternalId.size], [0, 0], 'no hints');
});
