// Goal: ColumnArena carves typed columns out of one buffer in order, without overlap, zeroed
// (even over a dirty reused slab), each 8-byte aligned; falls back to its own allocation when
// the buffer is full or missing; and bytesFor sizes a buffer that holds a sequence exactly.
// Method: small buffers (under 200 bytes), every column written with distinct values and read
// back, byte ranges and buffer identity checked directly.
import t from 'tap';
import { ColumnArena } from './column-arena.ts';

type Column = Float64Array | BigInt64Array | Uint32Array | Int32Array | Uint8Array;

/** One column of each kind, in this order, with odd lengths. */
const SEQUENCE = [
  { kind: 'float64', length: 3, bytes: 24 },
  { kind: 'uint8', length: 5, bytes: 5 },
  { kind: 'bigint64', length: 2, bytes: 16 },
  { kind: 'uint32', length: 3, bytes: 12 },
  { kind: 'int32', length: 1, bytes: 4 },
  { kind: 'uint8', length: 1, bytes: 1 },
  { kind: 'float64', length: 1, bytes: 8 },
] as const;

function carve(arena: ColumnArena): Column[] {
  return SEQUENCE.map(({ kind, length }) => arena[kind](length));
}

/** Writes a value into every element that no other column's element holds. */
function fillDistinct(columns: Column[]): void {
  columns.forEach((column, c) => {
    for (let i = 0; i < column.length; i++) {
      const v = 100 + c * 10 + i;
      if (column instanceof BigInt64Array) column[i] = -BigInt(v) * 1_000_000_007n;
      else if (column instanceof Float64Array) column[i] = v + 0.25;
      else if (column instanceof Int32Array) column[i] = -v;
      else column[i] = v;
    }
  });
}

function expectDistinct(columns: Column[]): unknown[][] {
  return columns.map((column, c) =>
    Array.from({ length: column.length }, (_, i) => {
      const v = 100 + c * 10 + i;
      if (column instanceof BigInt64Array) return -BigInt(v) * 1_000_000_007n;
      if (column instanceof Float64Array) return v + 0.25;
      if (column instanceof Int32Array) return -v;
      return v;
    }),
  );
}

const values = (columns: Column[]): unknown[][] => columns.map((column) => Array.from(column as ArrayLike<unknown>));

t.test('columns are laid out in order, without overlap, and keep their values', async (t) => {
  const sab = new SharedArrayBuffer(256);
  const columns = carve(new ColumnArena(sab));
  t.ok(
    columns.every((column) => column.buffer === sab),
    'every column is a view over the arena buffer',
  );
  for (let c = 0; c < columns.length; c++) {
    const column = columns[c]!;
    t.equal(column.length, SEQUENCE[c]!.length, `column ${c} has its length`);
    if (c === 0) continue;
    const previous = columns[c - 1]!;
    t.ok(column.byteOffset >= previous.byteOffset + previous.byteLength, `column ${c} starts after column ${c - 1} ends`);
  }
  fillDistinct(columns);
  t.same(values(columns), expectDistinct(columns), 'no column overwrote another');
});

t.test('columns start zeroed over a buffer that held old bytes', async (t) => {
  const sab = new SharedArrayBuffer(256);
  new Uint8Array(sab).fill(0xff);
  const first = carve(new ColumnArena(sab));
  t.ok(
    first.every((column) => column.buffer === sab),
    'in the arena',
  );
  t.same(
    values(first),
    SEQUENCE.map(({ kind, length }) => new Array<unknown>(length).fill(kind === 'bigint64' ? 0n : 0)),
    'all zero',
  );
  fillDistinct(first);
  const second = carve(new ColumnArena(sab)); // the slab reused for the next request
  t.same(
    values(second),
    SEQUENCE.map(({ kind, length }) => new Array<unknown>(length).fill(kind === 'bigint64' ? 0n : 0)),
    'all zero again after a previous user wrote them',
  );
});

t.test('every column is 8-byte aligned, also after a uint8 of odd length', async (t) => {
  const sab = new SharedArrayBuffer(256);
  const arena = new ColumnArena(sab);
  const columns: Column[] = [
    arena.uint8(3),
    arena.float64(1),
    arena.uint8(1),
    arena.bigint64(1),
    arena.uint8(7),
    arena.uint32(1),
    arena.int32(3),
    arena.uint8(9),
    arena.float64(2),
  ];
  t.same(
    columns.map((column) => column.byteOffset % 8),
    columns.map(() => 0),
    `offsets ${columns.map((column) => column.byteOffset).join(', ')}`,
  );
  t.ok(
    columns.every((column) => column.buffer === sab),
    'all in the arena',
  );
});

t.test('a column that does not fit is allocated on its own, zeroed, and leaves the arena intact', async (t) => {
  const sab = new SharedArrayBuffer(24);
  new Uint8Array(sab).fill(0xff);
  const arena = new ColumnArena(sab);
  const inside = arena.float64(2);
  t.equal(inside.buffer, sab);
  inside.set([1.5, 2.5]);
  const outside = arena.float64(2); // 16 bytes, 8 left
  t.not(outside.buffer, sab, 'the column is not over the arena buffer');
  t.same([outside.length, Array.from(outside)], [2, [0, 0]]);
  outside.set([7, 8]);
  const big = arena.bigint64(4);
  t.not(big.buffer, sab);
  t.same(Array.from(big), [0n, 0n, 0n, 0n]);
  t.same(Array.from(inside), [1.5, 2.5], 'the fallback did not touch the arena columns');
  t.same(Array.from(new Uint8Array(sab, 16)), new Array(8).fill(0xff), 'nor the bytes past them');
});

t.test('with no buffer every column is allocated on its own', async (t) => {
  const arena = new ColumnArena();
  const columns = carve(arena);
  t.same(
    columns.map((column) => [column.length, column.buffer instanceof SharedArrayBuffer]),
    SEQUENCE.map(({ length }) => [length, false]),
  );
  t.equal(new Set(columns.map((column) => column.buffer)).size, columns.length, 'each has its own buffer');
  fillDistinct(columns);
  t.same(values(columns), expectDistinct(columns));
});

t.test('an ArrayBuffer works as the arena buffer too', async (t) => {
  const buffer = new ArrayBuffer(64);
  const arena = new ColumnArena(buffer);
  t.equal(arena.float64(2).buffer, buffer);
  t.equal(arena.uint8(3).buffer, buffer);
});

t.test('bytesFor: a buffer of exactly that size holds the sequence in place, one byte less does not', async (t) => {
  const bytes = ColumnArena.bytesFor(SEQUENCE.map((column) => column.bytes));
  t.equal(bytes, 24 + 8 + 16 + 16 + 8 + 8 + 8);
  t.equal(ColumnArena.bytesFor([]), 0);
  t.equal(ColumnArena.bytesFor([1]), 8);
  t.equal(ColumnArena.bytesFor([8, 9]), 24);

  const exact = new SharedArrayBuffer(bytes);
  new Uint8Array(exact).fill(0xff);
  const columns = carve(new ColumnArena(exact));
  t.ok(
    columns.every((column) => column.buffer === exact),
    'every column in the exact buffer',
  );
  const last = columns[columns.length - 1]!;
  t.equal(last.byteOffset + last.byteLength, bytes, 'the last column ends at the end of the buffer');
  fillDistinct(columns);
  t.same(values(columns), expectDistinct(columns));

  const short = new SharedArrayBuffer(bytes - 1);
  const shortColumns = carve(new ColumnArena(short));
  t.same(
    shortColumns.map((column) => column.buffer === short),
    SEQUENCE.map((_, c) => c < SEQUENCE.length - 1),
    'one byte less: only the last column falls back',
  );
});
