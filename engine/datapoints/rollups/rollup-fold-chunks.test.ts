// Goal: the fold's statements stay bounded however its ranges fall: statementChunks
// hands every range to exactly one statement, none with more than rangesMax ranges or
// SPANS_PER_STATEMENT distinct (tenant, begin, end) spans, and rangeConditions writes one
// term per span. Method: fast-check over random ranges (few spans, as after a gateway's load,
// and many, as after scattered writes).
import fc from 'fast-check';
import t from 'tap';
import { ColumnarParams } from '../../stores/columnar-params.ts';
import { SPANS_PER_STATEMENT, rangeConditions, statementChunks } from './fold-ranges.ts';

const HOUR = 3_600_000;
const range = fc.record({
  tenant: fc.constantFrom('a', 'b', 'c'),
  seriesId: fc.integer({ min: 1, max: 5_000 }),
  hour: fc.integer({ min: 0, max: 300 }),
  hours: fc.integer({ min: 1, max: 3 }),
}).map(({ tenant, seriesId, hour, hours }) => ({ tenant, seriesId, beginMs: hour * HOUR, endMs: (hour + hours) * HOUR }));
const spanOf = (r: { tenant: string; beginMs: number; endMs: number }) => `${r.tenant}/${r.beginMs}/${r.endMs}`;

t.test('every range in one statement, statements bounded in ranges and spans', async (t) => {
  fc.assert(fc.property(fc.array(range, { maxLength: 3_000, size: 'max' }), fc.integer({ min: 1, max: 1_500 }), (ranges, rangesMax) => {
    const chunks = statementChunks(ranges, rangesMax);
    const seen = chunks.flat();
    if (seen.length !== ranges.length) return false;
    for (const chunk of chunks) {
      if (chunk.length === 0 || chunk.length > rangesMax) return false;
      const spans = new Set(chunk.map(spanOf)).size;
      if (spans > SPANS_PER_STATEMENT) return false;
      const params = new ColumnarParams();
      if (rangeConditions(params, chunk, 'ts').split(' OR ').length !== spans) return false;
    }
    const placed = new Set(seen);
    return placed.size === seen.length && ranges.every((r) => placed.has(r));
  }), { numRuns: 60 });
  t.pass('60 random sets of up to 3,000 ranges');
});

t.test("a gateway's hours go in few statements", async (t) => {
  const ranges = Array.from({ length: 3_000 }, (_, k) => ({ tenant: 'a', seriesId: k % 1_000, beginMs: Math.floor(k / 1_000) * HOUR, endMs: (Math.floor(k / 1_000) + 1) * HOUR }));
  t.equal(statementChunks(ranges, 1_000).length, 3, '1,000 series x 3 hours: three statements of one span each');
});
