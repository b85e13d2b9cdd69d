// Goal: scanDatapointBody turns POST /timeseries/data bodies into the right items and columns,
// names the field of every shape error, and its byte-level fast path gives exactly what the
// JSON.parse scanner gives. Method: one line per valid and malformed body (at the limits and
// one past), then a seeded property test over random bodies (whitespace, key order, unknown
// keys, duplicate keys, escapes, unicode, invalid UTF-8, exponent-form numbers, injected
// errors) comparing the two scanners field by field, and "not JSON" with JSON.parse itself.
// Duplicate keys: one line per key and level, and a fast-check property against a
// small JSON tokenizer written here (refused exactly when some object repeats a decoded key).
import fc from 'fast-check';
import t from 'tap';
import { ID_MAX, ITEMS_PER_REQUEST_MAX, TIMESTAMP_MS_MAX, TIMESTAMP_MS_MIN } from '../engine/limits.ts';
import { type ScannedBody, VALUE_KIND_NUMBER, VALUE_KIND_STRING, VALUE_KIND_STRING_ENCODED } from './datapoint-body.ts';
import { scanDatapointBodyWithJsonParse } from './datapoint-scan-json.ts';
import { scanDatapointBody, scanDatapointBodyBytes, scanScratchBytes } from './datapoint-scan.ts';
import { mulberry32 as prng } from '../engine/testing/prng.ts';

const encode = (text: string) => new TextEncoder().encode(text);


/** The first difference between two scans (the scanner that made them aside), or null. */
function scanDifference(a: ScannedBody, b: ScannedBody): string | null {
  if (JSON.stringify(a.items) !== JSON.stringify(b.items)) return `items ${JSON.stringify(a.items)} vs ${JSON.stringify(b.items)}`;
  if (JSON.stringify(a.errors) !== JSON.stringify(b.errors)) return `errors ${JSON.stringify(a.errors)} vs ${JSON.stringify(b.errors)}`;
  if (a.pointCount !== b.pointCount) return `pointCount ${a.pointCount} vs ${b.pointCount}`;
  for (const column of ['timestampMs', 'valueKind', 'numberValue', 'valueOffset', 'valueBytes'] as const) {
    if (a[column].length !== a.pointCount || b[column].length !== b.pointCount) return `${column} length`;
    for (let i = 0; i < a.pointCount; i++) {
      if (!Object.is(a[column][i], b[column][i])) return `${column}[${i}] ${a[column][i]} vs ${b[column][i]}`;
    }
  }
  return null;
}

function scanText(text: string): ScannedBody {
  const body = encode(text);
  const scanned = scanDatapointBody(body);
  const reference = scanDatapointBodyWithJsonParse(body);
  const difference = scanDifference(scanned, reference);
  if (difference !== null) throw new Error(`scanners differ on ${text.slice(0, 200)}: ${difference}`);
  return scanned;
}

t.test('valid bodies: items, columns and the path taken', async (t) => {
  const text = `{"items":[{"id":7,"datapoints":[{"timestamp":1700000000000,"value":"1.5"},{"value":2e3,"timestamp":"1700000000001"},{"timestamp":1.7e12,"value":"h\\u00e9"}]},{"externalId":"pump-1","id":8,"datapoints":[]}]}`;
  const scanned = scanText(text);
  t.equal(scanned.scanner, 'bytes');
  t.same(scanned.items, [
    { pointStart: 0, pointCount: 3, id: 7 },
    { pointStart: 3, pointCount: 0, id: 8, externalId: 'pump-1' },
  ]);
  t.same(Array.from(scanned.timestampMs), [1700000000000, 1700000000001, 1700000000000]);
  t.same(Array.from(scanned.valueKind), [VALUE_KIND_STRING, VALUE_KIND_NUMBER, VALUE_KIND_STRING_ENCODED]);
  t.same(Array.from(scanned.numberValue).slice(0, 2), [1.5, 2000]);
  t.ok(Number.isNaN(scanned.numberValue[2]));
  const raw = (i: number) => text.slice(scanned.valueOffset[i]!, scanned.valueOffset[i]! + scanned.valueBytes[i]!);
  t.same([raw(0), raw(1), raw(2)], ['1.5', '2e3', 'h\\u00e9']);
});

t.test('the fast path takes the shapes clients send', async (t) => {
  const check = (text: string, fast: boolean) => {
    const scanned = scanText(text);
    t.equal(scanned.errors.length, 0, `${text} scans without errors`);
    t.equal(scanDatapointBodyBytes(encode(text)) !== null, fast, `${text} ${fast ? 'takes' : 'leaves'} the fast path`);
  };
  const point = '{"timestamp":1,"value":"1"}';
  check(`{"items":[{"id":1,"datapoints":[${point}]}]}`, true);
  check(` \r\n{ "items" : [ { "datapoints" : [ { "value" : "1" , "timestamp" : 1 } ] , "id" : 1 } ] }\n\t`, true);
  check(`\u{feff}{"items":[{"id":1,"datapoints":[${point}]}]}`, true);
  check(`{"limit":{"a":[1,true,false,null,"x\\n"]},"items":[{"externalId":"温度 \\"1\\"","meta":[[]],"datapoints":[{"timestamp":1,"value":-0.5e-3,"quality":{"code":0}}]}],"z":null}`, true);
  check(`{"items":[{"id":1,"datapoints":[{"timestamp":"0001","value":"😀\\ud83d\\ude00"}]}]}`, true);
  check(`{"items":[{"\\u0069d":1,"datapoints":[${point}]}]}`, false); // escaped key
  check(`{"x":${'['.repeat(70)}${']'.repeat(70)},"items":[{"id":1,"datapoints":[]}]}`, false); // deep unknown value
});

t.test('a key named twice in one object is refused, naming it', async (t) => {
  const check = (text: string, field: string, key: string, itemIndex?: number, pointIndex?: number) => {
    const scanned = scanText(text);
    t.same(
      [scanned.errors.map((e) => [e.field, e.itemIndex, e.pointIndex]), scanned.errors[0]?.message.startsWith(`duplicate key ${JSON.stringify(key)} at ${field}:`), scanned.pointCount],
      [[[field, itemIndex, pointIndex]], true, 0],
      `${text.slice(0, 100)} -> ${field}`,
    );
    t.equal(scanDatapointBodyBytes(encode(text)), null, `${text.slice(0, 100)}: the fast path leaves it`);
  };
  const P = '{"timestamp":1,"value":"1"}';
  const body = (fields: string) => `{${fields}}`;
  const item = (fields: string) => `{"items":[{"id":1,"datapoints":[${P}]},{${fields}}]}`; // the second item
  const point = (fields: string) => item(`"id":2,"datapoints":[${P},{${fields}}]`); // its second point
  check(body(`"items":[{"id":1,"datapoints":[${P}]}],"items":[{"id":2,"datapoints":[]}]`), 'items', 'items');
  check(body(`"x":1,"items":[{"id":1,"datapoints":[]}],"x":2`), 'x', 'x');
  check(body(`"x":{"a":1,"b":[{"a":1,"a":1}]},"items":[{"id":1,"datapoints":[]}]`), 'x.b[0].a', 'a');
  check(item('"id":1,"id":2,"datapoints":[]'), 'items[1].id', 'id', 1);
  check(item('"externalId":"a","externalId":"b","datapoints":[]'), 'items[1].externalId', 'externalId', 1);
  check(item('"externalId":"a","externalId":"a","datapoints":[]'), 'items[1].externalId', 'externalId', 1);
  check(item('"id":1,"datapoints":[],"datapoints":[]'), 'items[1].datapoints', 'datapoints', 1);
  check(item(`"id":1,"datapoints":[${P}],"datapoints":[${P}]`), 'items[1].datapoints', 'datapoints', 1);
  check(item('"id":1,"unit":"C","datapoints":[],"unit":"F"'), 'items[1].unit', 'unit', 1);
  check(item('"id":1,"meta":{"a":{"b":1,"b":2}},"datapoints":[]'), 'items[1].meta.a.b', 'b', 1);
  check(point('"timestamp":1,"timestamp":2,"value":"1"'), 'items[1].datapoints[1].timestamp', 'timestamp', 1, 1);
  check(point('"timestamp":1,"value":"1","value":"2"'), 'items[1].datapoints[1].value', 'value', 1, 1);
  check(point('"value":"1","timestamp":1,"value":2'), 'items[1].datapoints[1].value', 'value', 1, 1);
  check(point(' "timestamp" : 1 , "value" : "1" , "timestamp" : 1 '), 'items[1].datapoints[1].timestamp', 'timestamp', 1, 1);
  check(point('"timestamp":1,"value":"1","q":0,"q":0'), 'items[1].datapoints[1].q', 'q', 1, 1);
  check(point('"timestamp":1,"value":"1","q":{"c":0,"d":[],"c":1}'), 'items[1].datapoints[1].q.c', 'c', 1, 1);
  // An escaped spelling is the same key (compared decoded, as JSON.parse does).
  check(item('"id":1,"\\u0069d":2,"datapoints":[]'), 'items[1].id', 'id', 1);
  check(point('"timestamp":1,"value":"1","\\u0076alue":"2"'), 'items[1].datapoints[1].value', 'value', 1, 1);
  check(point('"timestamp":1,"value":"1","q":0,"\\u0071":1'), 'items[1].datapoints[1].q', 'q', 1, 1);
  check(point('"timestamp":1,"value":"1","q":{"ab":0,"a\\u0062":1}'), 'items[1].datapoints[1].q.ab', 'ab', 1, 1);
  check(point('"timestamp":1,"value":"1","é":0,"\\u00e9":1'), 'items[1].datapoints[1].é', 'é', 1, 1);
  check(point('"timestamp":1,"value":"1","\\/":0,"/":1'), 'items[1].datapoints[1]./', '/', 1, 1);
  // Every duplicate is listed, in text order, and nothing else (the shape under last-wins is moot).
  const two = scanText(`{"items":[{"id":1,"id":1,"datapoints":[{"value":"1"}]},{"datapoints":[${P},{"timestamp":1,"value":"1","value":"1"}]}]}`);
  t.same(two.errors.map((e) => e.field), ['items[0].id', 'items[1].datapoints[1].value']);
});

t.test('keys that only look alike, or repeat in different objects, are accepted', async (t) => {
  const check = (text: string, fast: boolean) => {
    const scanned = scanText(text);
    t.same(scanned.errors, [], `${text.slice(0, 100)}: no errors`);
    t.equal(scanDatapointBodyBytes(encode(text)) !== null, fast, `${text.slice(0, 100)} ${fast ? 'takes' : 'leaves'} the fast path`);
  };
  const P = '{"timestamp":1,"value":"1"}';
  check(`{"items":[{"externalId":"a","datapoints":[${P}]},{"externalId":"a","datapoints":[${P}]}]}`, true);
  check(`{"items":[{"id":1,"datapoints":[${P},{"timestamp":2,"value":"1","values":[1]}]}]}`, true);
  check(`{"item":0,"items":[{"id":1,"ids":[2],"externalIds":"x","datapoint":{},"datapoints":[{"timestamp":2,"timestamps":1,"valu":0,"value":"1"}]}]}`, true);
  check(`{"q":1,"items":[{"q":1,"id":1,"datapoints":[{"timestamp":1,"value":1,"q":1},{"timestamp":2,"value":1,"q":{"q":{"q":1}}}]}]}`, true);
  check(`{"x":{"a":1,"b":{"a":1},"c":[{"a":1},{"a":1}]},"items":[{"id":1,"datapoints":[]}]}`, true);
  check(`{"x":{"\\n":1},"items":[{"id":1,"datapoints":[]}]}`, true); // an escaped key alone in its object
  check(`{"x":{"\\n":1,"n":2},"items":[{"id":1,"datapoints":[]}]}`, false); // escaped among others: decided decoded
  check(`{"é":1,"è":2,"items":[{"id":1,"datapoints":[]}]}`, false); // two non-ASCII keys: decided decoded
  check(`{"é":1,"e":2,"items":[{"id":1,"datapoints":[]}]}`, true);
  // OBJECT_KEYS_MAX (64) unknown keys held at once take the fast path; one more, the fallback.
  const unknown = (count: number) => Array.from({ length: count }, (_, i) => `"k${i}":${i}`).join(',');
  check(`{${unknown(64)},"items":[{"id":1,"datapoints":[]}]}`, true);
  check(`{${unknown(65)},"items":[{"id":1,"datapoints":[]}]}`, false);
  check(`{${unknown(32)},"items":[{"id":1,${unknown(32)},"datapoints":[]},{"id":2,${unknown(32)},"datapoints":[]}]}`, true);
});

// ---- property: refused exactly when some object repeats a key ----

/**
 * The reference: a recursive-descent reader of JSON text (valid JSON in, as generated below)
 * that decodes every key with JSON.parse and returns the path of each key an object names again.
 */
function duplicateKeyFields(text: string): string[] {
  const found: string[] = [];
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  const stringLiteral = (): string => {
    const start = i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (field: string): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const keys = new Set<string>();
      ws();
      while (text[i] !== '}') {
        const key = stringLiteral();
        const keyField = field === '' ? key : `${field}.${key}`;
        if (keys.has(key)) found.push(keyField);
        keys.add(key);
        ws();
        i++; // ':'
        value(keyField);
        ws();
        if (text[i] === ',') i++;
        ws();
      }
      i++;
    } else if (c === '[') {
      i++;
      ws();
      for (let k = 0; text[i] !== ']'; k++) {
        value(`${field}[${k}]`);
        ws();
        if (text[i] === ',') i++;
        ws();
      }
      i++;
    } else if (c === '"') {
      stringLiteral();
    } else {
      while (i < text.length && !',]} \t\n\r'.includes(text[i]!)) i++;
    }
  };
  value('');
  return found;
}

/** A key written plainly, or with some characters as \u escapes. */
const keyText = (key: string) =>
  fc.array(fc.boolean(), { minLength: key.length, maxLength: key.length }).map((escaped) =>
    `"${[...key].map((ch, k) => (escaped[k] ? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}` : ch)).join('')}"`);

/**
 * An object naming each `required` key and some `optional` ones, in random order, with values
 * from `valueOf`; one object in thirteen names one of its keys again somewhere.
 */
const objectOf = (required: readonly string[], optional: readonly string[], valueOf: (name: string) => fc.Arbitrary<string>) =>
  fc.shuffledSubarray([...optional])
    .chain((picked) => {
      const names = [...required, ...picked];
      return fc.tuple(fc.shuffledSubarray(names, { minLength: names.length }), fc.oneof({ arbitrary: fc.constant(-1), weight: 12 }, { arbitrary: fc.nat(), weight: 1 }), fc.nat());
    })
    .chain(([names, repeat, at]) => {
      const all = [...names];
      if (repeat >= 0 && names.length > 0) all.splice(at % (all.length + 1), 0, names[repeat % names.length]!);
      return fc.tuple(...all.map((name) => fc.tuple(keyText(name), valueOf(name), fc.constantFrom('', ' '))));
    })
    .map((members) => `{${members.map(([k, v, w]) => `${k}${w}:${v}`).join(',')}}`);

const leafValue = fc.constantFrom('0', '"s"', 'null', '[]', '{}');
const unknownValue = fc.oneof(leafValue, objectOf([], ['a', 'b', 'é', 'è'], () => fc.oneof(leafValue, objectOf([], ['a', 'ab'], () => leafValue))));
const pointText = fc.oneof(
  fc.constant('{"timestamp":1,"value":"1"}'),
  objectOf(['timestamp', 'value'], ['values', 'q', 'timestamps'], (name) =>
    name === 'timestamp' ? fc.constantFrom('1', '"2"', '17e2') : name === 'value' ? fc.constantFrom('"1"', '2', '1.5') : unknownValue),
);
const itemText = objectOf(['datapoints'], ['id', 'externalId', 'unit', 'ids'], (name) =>
  name === 'id' ? fc.constantFrom('1', '7') : name === 'externalId' ? fc.constant('"pump"')
    : name === 'datapoints' ? fc.array(pointText, { maxLength: 3 }).map((points) => `[${points.join(',')}]`) : unknownValue);
const bodyText = objectOf(['items'], ['x', 'item'], (name) =>
  name === 'items' ? fc.array(itemText, { minLength: 1, maxLength: 3 }).map((items) => `[${items.join(',')}]`) : unknownValue);

t.test('property (fast-check): refused with duplicate-key errors exactly when some object repeats a key', async (t) => {
  let refused = 0;
  let accepted = 0;
  fc.assert(fc.property(bodyText, (text) => {
    const expected = duplicateKeyFields(text);
    const scanned = scanText(text); // also: both scanners give the same result
    const duplicateErrors = scanned.errors.filter((e) => e.message.startsWith('duplicate key '));
    if (expected.length > 0) {
      refused++;
      return duplicateErrors.length === scanned.errors.length && scanned.errors.map((e) => e.field).join('|') === expected.join('|')
        && scanned.pointCount === 0 && scanDatapointBodyBytes(encode(text)) === null;
    }
    if (scanned.errors.length === 0) accepted++;
    return duplicateErrors.length === 0;
  }), { numRuns: 2000, seed: 20250107 });
  t.ok(refused > 200 && accepted > 200, `${refused} bodies refused for a duplicate key, ${accepted} accepted without errors`);
});

t.test('malformed bodies: one error naming the field', async (t) => {
  const check = (text: string, field: string, itemIndex?: number, pointIndex?: number) => {
    const scanned = scanText(text);
    t.equal(scanned.pointCount, 0, `${text}: no points`);
    t.same(
      scanned.errors.map((e) => [e.field, e.itemIndex, e.pointIndex]),
      [[field, itemIndex, pointIndex]],
      `${text.slice(0, 80)} -> ${field}: ${scanned.errors[0]?.message}`,
    );
  };
  const item = (fields: string) => `{"items":[{${fields}}]}`;
  const point = (fields: string) => item(`"id":1,"datapoints":[{${fields}}]`);
  check('', 'body');
  check('{"items":[', 'body');
  check('{"items":[]} x', 'body');
  check('{"items":[{"id":1,"datapoints":[{"timestamp":1,"value":"\\x"}]}]}', 'body');
  check('{"items":[{"id":1,"datapoints":[{"timestamp":1,"value":"a\tb"}]}]}', 'body'); // raw control character
  check('{"items":[{"id":01,"datapoints":[]}]}', 'body');
  check('{"items":[{"id":1,"datapoints":[{"timestamp":1,"value":0"1"}]}]}', 'body'); // two tokens run together
  check('{"items":[{"id":1,"datapoints":[{"timestamp":1,"value":"1"e5}]}]}', 'body');
  check('null', 'body');
  check('[]', 'body');
  check('"items"', 'body');
  check('{}', 'items');
  check('{"items":null}', 'items');
  check('{"items":{}}', 'items');
  check('{"items":[]}', 'items');
  check('{"items":[1]}', 'items[0]', 0);
  check(item('"datapoints":[]'), 'items[0]', 0);
  check(item('"id":"1","datapoints":[]'), 'items[0].id', 0);
  check(item('"id":0,"datapoints":[]'), 'items[0].id', 0);
  check(item('"id":-1,"datapoints":[]'), 'items[0].id', 0);
  check(item('"id":1.5,"datapoints":[]'), 'items[0].id', 0);
  check(item(`"id":${ID_MAX + 1},"datapoints":[]`), 'items[0].id', 0);
  check(item('"id":null,"datapoints":[]'), 'items[0].id', 0);
  check(item('"externalId":"","datapoints":[]'), 'items[0].externalId', 0);
  check(item('"externalId":5,"datapoints":[]'), 'items[0].externalId', 0);
  // PostgreSQL text holds neither U+0000 nor a lone surrogate: no series can have such an externalId.
  check(item('"externalId":"a\\u0000","datapoints":[]'), 'items[0].externalId', 0);
  check(item('"externalId":"\\ud800","datapoints":[{"timestamp":1,"value":1}]'), 'items[0].externalId', 0);
  check(item('"externalId":"x\\uDC00y","datapoints":[]'), 'items[0].externalId', 0);
  check(item('"id":1'), 'items[0].datapoints', 0);
  check(item('"id":1,"datapoints":{}'), 'items[0].datapoints', 0);
  check(item('"id":1,"datapoints":"x"'), 'items[0].datapoints', 0);
  check(item('"id":1,"datapoints":[1]'), 'items[0].datapoints[0]', 0, 0);
  check(item('"id":1,"datapoints":[[]]'), 'items[0].datapoints[0]', 0, 0);
  check(point('"value":"1"'), 'items[0].datapoints[0].timestamp', 0, 0);
  check(point('"timestamp":null,"value":"1"'), 'items[0].datapoints[0].timestamp', 0, 0);
  check(point('"timestamp":1.5,"value":"1"'), 'items[0].datapoints[0].timestamp', 0, 0);
  check(point('"timestamp":"abc","value":"1"'), 'items[0].datapoints[0].timestamp', 0, 0);
  check(point('"timestamp":"1.5","value":"1"'), 'items[0].datapoints[0].timestamp', 0, 0);
  check(point('"timestamp":"1e3","value":"1"'), 'items[0].datapoints[0].timestamp', 0, 0);
  check(point('"timestamp":" 1","value":"1"'), 'items[0].datapoints[0].timestamp', 0, 0);
  check(point('"timestamp":"\\u0031","value":"1"'), 'items[0].datapoints[0].timestamp', 0, 0);
  check(point(`"timestamp":${TIMESTAMP_MS_MAX + 1},"value":"1"`), 'items[0].datapoints[0].timestamp', 0, 0);
  check(point(`"timestamp":${TIMESTAMP_MS_MIN - 1},"value":"1"`), 'items[0].datapoints[0].timestamp', 0, 0);
  check(point(`"timestamp":"${TIMESTAMP_MS_MAX + 1}","value":"1"`), 'items[0].datapoints[0].timestamp', 0, 0);
  check(point('"timestamp":1'), 'items[0].datapoints[0].value', 0, 0);
  check(point('"timestamp":1,"value":null'), 'items[0].datapoints[0].value', 0, 0);
  check(point('"timestamp":1,"value":true'), 'items[0].datapoints[0].value', 0, 0);
  check(point('"timestamp":1,"value":[1]'), 'items[0].datapoints[0].value', 0, 0);
  check(point('"timestamp":1,"value":{}'), 'items[0].datapoints[0].value', 0, 0);
});

t.test('timestamps at the window edges and in every accepted form', async (t) => {
  const check = (timestamp: string, expected: number) => {
    const scanned = scanText(`{"items":[{"id":1,"datapoints":[{"timestamp":${timestamp},"value":"1"}]}]}`);
    t.same([scanned.errors.length, scanned.timestampMs[0]], [0, expected], timestamp);
  };
  check(String(TIMESTAMP_MS_MAX), TIMESTAMP_MS_MAX);
  check(String(TIMESTAMP_MS_MIN), TIMESTAMP_MS_MIN);
  check(`"${TIMESTAMP_MS_MAX}"`, TIMESTAMP_MS_MAX);
  check(`"${TIMESTAMP_MS_MIN}"`, TIMESTAMP_MS_MIN);
  check('1.7e12', 1.7e12);
  check('1700000000000.0', 1700000000000);
  check('"-0"', 0);
  check('-0', 0);
  check('0', 0);
});

t.test('errors accumulate across items and points, in request order', async (t) => {
  const scanned = scanText(`{"items":[{"id":1,"datapoints":[{"timestamp":1,"value":"1"},{"value":"1"}]},{"datapoints":[{"timestamp":1,"value":null}]}]}`);
  t.same(
    scanned.errors.map((e) => e.field),
    ['items[0].datapoints[1].timestamp', 'items[1]', 'items[1].datapoints[0].value'],
  );
  t.same(scanned.items, []);
});

t.test('an array of two numbers is two bad items', async (t) => {
  const scanned = scanText('{"items":[1,2]}');
  t.same(
    scanned.errors.map((e) => [e.field, e.itemIndex]),
    [
      ['items[0]', 0],
      ['items[1]', 1],
    ],
  );
});

t.test('items cap: at the limit and one past', async (t) => {
  const body = (count: number) => `{"items":[${Array.from({ length: count }, (_, i) => `{"id":${i + 1},"datapoints":[]}`).join(',')}]}`;
  const atLimit = scanText(body(ITEMS_PER_REQUEST_MAX));
  t.same([atLimit.scanner, atLimit.errors.length, atLimit.items.length], ['bytes', 0, ITEMS_PER_REQUEST_MAX]);
  const past = scanText(body(ITEMS_PER_REQUEST_MAX + 1));
  t.same(
    past.errors.map((e) => e.field),
    ['items'],
  );
  t.match(past.errors[0]!.message, /10001 entries.*10000/);
  t.equal(past.errors[0]!.limit, ITEMS_PER_REQUEST_MAX);
});

// ---- property test: the fast path and JSON.parse agree on random bodies ----

type Next = () => number;
const pick = <T>(next: Next, list: readonly T[]): T => list[Math.floor(next() * list.length)]!;

function randomDigits(next: Next, count: number): string {
  let s = '';
  for (let i = 0; i < count; i++) s += String(Math.floor(next() * 10));
  return s;
}

function randomNumberToken(next: Next): string {
  const int = next() < 0.2 ? '0' : String(1 + Math.floor(next() * 9)) + randomDigits(next, Math.floor(next() * (next() < 0.7 ? 5 : 22)));
  const fraction = next() < 0.4 ? '.' + randomDigits(next, 1 + Math.floor(next() * 8)) : '';
  const exponent = next() < 0.25 ? pick(next, ['e', 'E']) + pick(next, ['', '+', '-']) + String(Math.floor(next() * (next() < 0.8 ? 20 : 400))) : '';
  return (next() < 0.3 ? '-' : '') + int + fraction + exponent;
}

const TEXT_PIECES = ['a', 'Z', ' ', '1', '.', '-', 'e', '"', '\\', '/', '\n', '\u0001', 'é', '温度', '😀', '\u{feff}', '\u2028', 'x'.repeat(30)];

/** A JSON string literal of `text`, escaping each character or not at random. */
function jsonString(next: Next, text: string): string {
  let out = '"';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const mustEscape = ch === '"' || ch === '\\' || cp < 0x20;
    if (!mustEscape && next() > 0.15) {
      out += ch;
    } else if (cp < 0x10000 || next() < 0.5) {
      const short: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '/': '\\/' };
      const units = cp < 0x10000 ? [cp] : [0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff)];
      out += short[ch] !== undefined && next() < 0.5 ? short[ch] : units.map((u) => '\\u' + (next() < 0.5 ? u.toString(16).padStart(4, '0') : u.toString(16).padStart(4, '0').toUpperCase())).join('');
    } else {
      out += ch;
    }
  }
  return out + '"';
}

/** A key as clients write it, escaped now and then (which sends the body to the fallback). */
function jsonKey(next: Next, key: string): string {
  return next() < 0.03 ? jsonString(next, key) : JSON.stringify(key);
}

function randomText(next: Next): string {
  const kind = next();
  if (kind < 0.35) return randomNumberToken(next).replace(/^-?/, pick(next, ['', '-', '+']));
  if (kind < 0.4) return pick(next, ['NaN', 'Infinity', '', ' 1', '.5', '5.', '0x10', '\ud800']);
  let text = '';
  const pieces = Math.floor(next() * 5);
  for (let i = 0; i < pieces; i++) text += pick(next, TEXT_PIECES);
  return text;
}

/** Random JSON for unknown keys, a few levels deep. */
function randomJson(next: Next, depth: number, ws: () => string): string {
  const kind = next();
  if (depth > 2 || kind < 0.3) return randomNumberToken(next);
  if (kind < 0.5) return jsonString(next, randomText(next));
  if (kind < 0.6) return pick(next, ['true', 'false', 'null']);
  if (kind < 0.8) return `[${ws()}${Array.from({ length: Math.floor(next() * 3) }, () => randomJson(next, depth + 1, ws)).join(`${ws()},${ws()}`)}${ws()}]`;
  return `{${ws()}${Array.from({ length: Math.floor(next() * 3) }, () => `${jsonString(next, randomText(next))}${ws()}:${ws()}${randomJson(next, depth + 1, ws)}`).join(`${ws()},${ws()}`)}${ws()}}`;
}

function randomObject(next: Next, entries: [string, string][], ws: () => string): string {
  const all = [...entries];
  for (let i = 0; i < (next() < 0.8 ? 0 : 2); i++) all.push([jsonKey(next, pick(next, ['unit', 'meta', 'quality', 'x'])), randomJson(next, 0, ws)]);
  if (next() < 0.005 && all.length > 0) all.push(pick(next, all)); // a duplicate key (refused)
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return `{${ws()}${all.map(([k, v]) => `${k}${ws()}:${ws()}${v}`).join(`${ws()},${ws()}`)}${ws()}}`;
}

/** Rarely true: the chance of injecting one error at a given spot. */
const rare = (next: Next) => next() < 0.01;

function randomTimestamp(next: Next): string {
  const ms = Math.floor(next() * 4e12) - 1e12;
  if (rare(next)) return pick(next, ['1.5', '"1.5"', 'null', '5e12', '"abc"', '-3e12', '"\\u0031"', '[]']);
  const form = next();
  if (form < 0.6) return String(ms);
  if (form < 0.75) return `"${next() < 0.2 ? '00' : ''}${ms}"`;
  if (form < 0.9) return `${ms}.${'0'.repeat(1 + Math.floor(next() * 3))}`;
  return `${ms / 1000}e3`;
}

function randomValue(next: Next): string {
  if (rare(next)) return pick(next, ['null', 'true', '[]', '{}']);
  return next() < 0.4 ? randomNumberToken(next) : jsonString(next, randomText(next));
}

function randomBody(next: Next): Uint8Array {
  const ws = () => (next() < 0.7 ? '' : Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(next, [' ', '\t', '\n', '\r'])).join(''));
  const items: string[] = [];
  const itemCount = rare(next) ? 0 : 1 + Math.floor(next() * 4);
  for (let i = 0; i < itemCount; i++) {
    const entries: [string, string][] = [];
    const ids = next();
    if (ids < 0.5 || ids > 0.99) entries.push([jsonKey(next, 'id'), rare(next) ? pick(next, ['0', '"1"', '1.5', '9007199254740993']) : pick(next, ['1', '42', '5.0', '5e0', '0.5e1', '9007199254740991'])]);
    if (ids > 0.4 && ids <= 0.995) entries.push([jsonKey(next, 'externalId'), rare(next) ? pick(next, ['""', '5', 'null']) : jsonString(next, randomText(next) || 'x')]);
    const points = Array.from({ length: Math.floor(next() * 6) }, () => {
      const fields: [string, string][] = [];
      if (!rare(next)) fields.push([jsonKey(next, 'timestamp'), randomTimestamp(next)]);
      if (!rare(next)) fields.push([jsonKey(next, 'value'), randomValue(next)]);
      return rare(next) ? '7' : randomObject(next, fields, ws);
    });
    if (!rare(next)) entries.push([jsonKey(next, 'datapoints'), `[${ws()}${points.join(`${ws()},${ws()}`)}${ws()}]`]);
    items.push(rare(next) ? '"item"' : randomObject(next, entries, ws));
  }
  const text = (next() < 0.05 ? '\u{feff}' : '') + ws() + randomObject(next, [[jsonKey(next, 'items'), `[${ws()}${items.join(`${ws()},${ws()}`)}${ws()}]`]], ws) + ws();
  let bytes = encode(text);
  const mutation = next();
  if (mutation < 0.04) {
    bytes = bytes.subarray(0, Math.floor(next() * bytes.length)); // truncated
  } else if (mutation < 0.12) {
    bytes = bytes.slice();
    bytes[Math.floor(next() * bytes.length)] = pick(next, [0x22, 0x5c, 0x2c, 0x7b, 0x5d, 0x30, 0xff, 0x3a, 0x2e, 0x01, 0x65, 0x2d, 0x75, 0x2b]); // a byte replaced
  } else if (mutation < 0.16) {
    const at = Math.floor(next() * bytes.length);
    bytes = Uint8Array.from([...bytes.subarray(0, at), ...bytes.subarray(at + 1)]); // a byte deleted
  } else if (mutation < 0.2) {
    // invalid UTF-8 inside the first string literal
    const at = bytes.indexOf(0x22) + 1;
    bytes = Uint8Array.from([...bytes.subarray(0, at), ...pick(next, [[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xe2, 0x82]]), ...bytes.subarray(at)]);
  }
  return bytes;
}

t.test('property: the fast path and the JSON.parse scanner agree on random bodies', async (t) => {
  const next = prng(20240521);
  const runs = 4000;
  let fast = 0;
  let withErrors = 0;
  let notJson = 0;
  for (let run = 0; run < runs; run++) {
    const body = randomBody(next);
    const reference = scanDatapointBodyWithJsonParse(body);
    const bytes = scanDatapointBodyBytes(body);
    if (bytes !== null) fast++;
    if (reference.errors.length > 0) withErrors++;
    const difference = scanDifference(scanDatapointBody(body), reference);
    let jsonParseThrows = false;
    try {
      JSON.parse(new TextDecoder().decode(body));
    } catch {
      jsonParseThrows = true;
    }
    if (jsonParseThrows !== (reference.errors[0]?.field === 'body' && /not valid JSON/.test(reference.errors[0].message))) {
      return t.fail(`JSON.parse ${jsonParseThrows ? 'refuses' : 'takes'} a body the scanner ${jsonParseThrows ? 'takes' : 'refuses'}: ${new TextDecoder().decode(body)}`);
    }
    if (jsonParseThrows) notJson++;
    if (bytes !== null && reference.errors.length > 0) {
      return t.fail(`the fast path accepted a body with errors: ${new TextDecoder().decode(body)} ${JSON.stringify(reference.errors)}`);
    }
    if (difference !== null) return t.fail(`run ${run}: ${difference}\nbody: ${new TextDecoder().decode(body)}`);
  }
  t.ok(fast > runs * 0.3, `the fast path took ${fast} of ${runs} bodies`);
  t.ok(withErrors > runs * 0.1, `${withErrors} of ${runs} bodies had errors`);
  t.ok(notJson > runs * 0.05, `${notJson} of ${runs} bodies were not JSON, and JSON.parse agreed on every body`);
  t.ok(runs - fast - withErrors >= 0, `${runs - fast - withErrors} error-free bodies went to the fallback`);
});

t.test('the compact point shape ({"timestamp":..,"value":..} without whitespace) scans as JSON.parse does', async (t) => {
  // scanPointCanonical takes these in one pass or hands them back; either way the columns
  // must equal the JSON.parse scanner's, bit for bit (-0 included).
  const values = [
    '"1"', '"-1"', '"0"', '"-0"', '"-0.000"', '"007"', '"0.5"', '"1."', '".5"', '"+1"', '"1e3"', '"12.345"', '"-20.125"',
    '"123456789012345"', '"1234567890123456"', '"0.123456789012345"', '"9007199254740993"', '"1.2.3"', '"-"', '""', '"abc"', '"12abc"',
    '1', '-1', '0', '-0', '0.5', '-0.0', '12.345', '123456789012345', '1234567890123456', '1e3', '1.5E-2',
  ];
  // Lengths around the four-digit groups the fast path reads at once, and a group a non-digit cuts short.
  const timestamps = ['1', String(TIMESTAMP_MS_MAX), String(TIMESTAMP_MS_MAX + 1), '1700000000000', '01', '"1700000000000"', '-5', '1.5', '1234567890123456',
    '1234', '12345', '1234567', '12345678', '123456789', '123456789012', '999999999999999', '1700000000000.0', '1700000000000e0', '17000000:', '1700 '];
  for (const value of values) {
    for (const timestamp of timestamps) {
      const body = encode(`{"items":[{"id":1,"datapoints":[{"timestamp":${timestamp},"value":${value}},{"timestamp":1700000001000,"value":"2"}]}]}`);
      const difference = scanDifference(scanDatapointBody(body), scanDatapointBodyWithJsonParse(body));
      if (difference !== null) t.fail(`timestamp ${timestamp}, value ${value}: ${difference}`);
    }
  }
  const scanned = scanDatapointBody(encode('{"items":[{"id":1,"datapoints":[{"timestamp":1,"value":"-0"},{"timestamp":2,"value":-0.5}]}]}'));
  t.ok(Object.is(scanned.numberValue[0], -0), '"-0" is -0');
  t.same([...scanned.valueKind], [VALUE_KIND_STRING, VALUE_KIND_NUMBER]);
  t.same([...scanned.numberValue], [-0, -0.5]);
});

// ---- scratch: the fast path's columns in a caller's SharedArrayBuffer (a pooled slab) ----

const SCANNED_COLUMNS = ['timestampMs', 'valueKind', 'numberValue', 'valueOffset', 'valueBytes'] as const;

/** A scratch the size scanScratchBytes asks for (plus `extra`), dirty as a reused slab is. */
function dirtyScratch(bodyBytes: number, extra = 0): SharedArrayBuffer {
  const scratch = new SharedArrayBuffer(scanScratchBytes(bodyBytes) + extra);
  new Uint8Array(scratch).fill(0xff);
  return scratch;
}

const SCRATCH_TEXT = `{"items":[{"id":7,"datapoints":[{"timestamp":1700000000000,"value":"1.5"},{"value":2e3,"timestamp":"1700000000001"},{"timestamp":1.7e12,"value":"h\\u00e9"},{"timestamp":3,"value":-0}]},{"externalId":"pump-1","datapoints":[]},{"id":9,"datapoints":[{"timestamp":1,"value":"temp"},{ "timestamp" : 2 , "value" : 12.5 }]}]}`;

t.test('scratch: same items and columns as without, the columns views over the scratch', async (t) => {
  const body = encode(SCRATCH_TEXT);
  const scratch = dirtyScratch(body.length);
  const scanned = scanDatapointBody(body, scratch);
  const plain = scanDatapointBody(body);
  t.equal(scanned.scanner, 'bytes');
  t.equal(scanned.pointCount, 6);
  t.equal(scanDifference(scanned, plain), null, 'identical to the scan without scratch');
  t.equal(scanDifference(scanned, scanDatapointBodyWithJsonParse(body)), null, 'and to the JSON.parse scanner');
  t.ok(Object.is(scanned.numberValue[3], -0), '-0 kept');
  for (const column of SCANNED_COLUMNS) t.equal(scanned[column].buffer, scratch, `${column} is a view over the scratch`);
});

t.test('scratch: the densest body (25-byte points) fits in scanScratchBytes', async (t) => {
  const point = '{"timestamp":1,"value":1}';
  t.equal(point.length, 25);
  const body = encode(`{"items":[{"id":1,"datapoints":[${new Array<string>(200).fill(point).join(',')}]}]}`);
  const scratch = dirtyScratch(body.length);
  const scanned = scanDatapointBody(body, scratch);
  t.same([scanned.scanner, scanned.pointCount, scanned.errors], ['bytes', 200, []]);
  t.equal(scanDifference(scanned, scanDatapointBody(body)), null);
  for (const column of SCANNED_COLUMNS) t.equal(scanned[column].buffer, scratch, `${column} in the scratch`);
});

t.test('scratch: a reused dirty scratch scans the next body correctly', async (t) => {
  const scratch = dirtyScratch(encode(SCRATCH_TEXT).length);
  const first = scanDatapointBody(encode(SCRATCH_TEXT), scratch);
  t.equal(first.pointCount, 6);
  const body = encode('{"items":[{"id":3,"datapoints":[{"timestamp":5,"value":"x"},{"timestamp":6,"value":7}]}]}');
  const second = scanDatapointBody(body, scratch);
  t.equal(scanDifference(second, scanDatapointBody(body)), null);
  t.same(Array.from(second.valueKind), [VALUE_KIND_STRING, VALUE_KIND_NUMBER]);
});

t.test('scratch: too small still scans correctly (columns that do not fit are allocated)', async (t) => {
  const body = encode(SCRATCH_TEXT);
  const plain = scanDatapointBody(body);
  const oneShort = new SharedArrayBuffer(scanScratchBytes(body.length) - 1);
  new Uint8Array(oneShort).fill(0xff);
  const scanned = scanDatapointBody(body, oneShort);
  t.equal(scanDifference(scanned, plain), null, 'one byte short: same result');
  t.same(
    SCANNED_COLUMNS.map((column) => scanned[column].buffer === oneShort),
    SCANNED_COLUMNS.map((column) => column !== 'valueKind'),
    'only the last column (valueKind) fell back',
  );
  const tiny = new SharedArrayBuffer(8);
  new Uint8Array(tiny).fill(0xff);
  const fromTiny = scanDatapointBody(body, tiny);
  t.equal(scanDifference(fromTiny, plain), null, '8 bytes: same result');
  t.ok(
    SCANNED_COLUMNS.every((column) => fromTiny[column].buffer !== tiny),
    'no column over the tiny scratch',
  );
  t.same(Array.from(new Uint8Array(tiny)), new Array(8).fill(0xff), 'the tiny scratch was not touched');
});

t.test('scratch: bodies the fast path leaves, and bodies with errors, scan as without', async (t) => {
  for (const text of [
    '{"items":[{"\\u0069d":1,"datapoints":[{"timestamp":1,"value":"1"},{"timestamp":2,"value":3}]}]}', // escaped key: JSON.parse path
    '{"items":[{"id":1,"datapoints":[{"timestamp":1,"value":"1"},{"value":"2"}]},{"datapoints":[]}]}',
    '{"items":[',
  ]) {
    const body = encode(text);
    const scanned = scanDatapointBody(body, dirtyScratch(body.length));
    const plain = scanDatapointBody(body);
    t.same([scanned.scanner, plain.scanner, scanDifference(scanned, plain)], ['json', 'json', null], text);
  }
});
