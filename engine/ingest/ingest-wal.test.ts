// Goal: what the ingest write-ahead log acknowledged comes back at the next open, in order,
// up to a record cut short or corrupt (never acknowledged) and not past it; applied segments
// go away, so replay stays short; a clean close leaves nothing behind. Method: real files in
// a temp dir, opened and reopened as the service does.
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { logger } from '../log.ts';
import { IngestWal, readSegmentRecords } from './ingest-wal.ts';

const quiet = logger.child({ module: 'ingest-wal-test' }, { level: 'silent' });
const root = mkdtempSync(path.join(tmpdir(), 'ingest-wal-test-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const newDir = () => path.join(root, String(++dirs));
const payload = (text: string) => Buffer.from(text);
const texts = (buffers: Buffer[]) => buffers.map((b) => b.toString());
const segments = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.wal')).sort();

t.test('appends come back at the next open, in order, and leave once replayed', async (t) => {
  const dir = newDir();
  const { wal, recovered } = await IngestWal.open({ dir, logger: quiet });
  t.same(recovered, [], 'an empty directory holds nothing');
  const sequences = await Promise.all(['a', 'bb', 'ccc'].map((text) => wal.append(payload(text))));
  t.same(sequences, [1, 2, 3], 'sequence numbers in append order');
  // A crash: no close, nothing applied.
  const again = await IngestWal.open({ dir, logger: quiet });
  t.same(texts(again.recovered), ['a', 'bb', 'ccc']);
  await again.wal.dropRecovered();
  t.same(segments(dir), [], 'replayed segments are removed');
  const third = await IngestWal.open({ dir, logger: quiet });
  t.same(third.recovered, [], 'and not replayed twice');
  await Promise.all([wal.close(), again.wal.close(), third.wal.close()]);
});

t.test('a record cut short or corrupt ends its segment; later segments still count', async (t) => {
  const dir = newDir();
  const { wal } = await IngestWal.open({ dir, logger: quiet });
  await wal.append(payload('first'));
  await wal.append(payload('second'));
  const [name] = segments(dir);
  const file = path.join(dir, name as string);
  const whole = readFileSync(file);
  truncateSync(file, whole.length - 3);
  t.same(texts((await IngestWal.open({ dir, logger: quiet })).recovered), ['first'], 'a torn last record is dropped');
  writeFileSync(file, whole);
  whole[whole.length - 1] = (whole[whole.length - 1] as number) ^ 0xff;
  writeFileSync(file, whole);
  t.same(texts((await IngestWal.open({ dir, logger: quiet })).recovered), ['first'], 'a record failing its CRC is dropped');
  const clean = readFileSync(file);
  clean[9] = (clean[9] as number) ^ 0xff; // inside the first record's payload
  writeFileSync(file, clean);
  appendFileSync(path.join(dir, '9999999999999999.wal'), Buffer.alloc(0));
  t.same(texts((await IngestWal.open({ dir, logger: quiet })).recovered), [], 'nothing after a corrupt record in its segment');
  t.same(readSegmentRecords(Buffer.from([1, 0, 0, 0])).payloads, [], 'a header cut short');
  await wal.close();
});

t.test('a full segment is removed once every batch in it is applied; close removes the applied rest', async (t) => {
  const dir = newDir();
  const { wal } = await IngestWal.open({ dir, segmentBytesMax: 30, logger: quiet });
  const first = await wal.append(payload('x'.repeat(25))); // fills segment 1
  const second = await wal.append(payload('y'.repeat(25))); // segment 2
  const third = await wal.append(payload('z')); // segment 3 (2 was full too)
  t.equal(segments(dir).length, 3);
  wal.applied(second);
  const deadline = Date.now() + 5_000;
  while (segments(dir).length > 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  t.equal(segments(dir).length, 2, 'segment 2 went once its only batch was applied');
  t.same(texts((await IngestWal.open({ dir, logger: quiet })).recovered), ['x'.repeat(25), 'z'], 'what is not applied stays for replay');
  wal.applied(first);
  wal.applied(third);
  await wal.close();
  t.same(segments(dir), [], 'a clean close with everything applied leaves no segment');
});

t.test('a close with batches not yet applied keeps them for the next open', async (t) => {
  const dir = newDir();
  const { wal } = await IngestWal.open({ dir, logger: quiet });
  const applied = await wal.append(payload('applied'));
  await wal.append(payload('pending'));
  wal.applied(applied);
  await wal.close();
  t.same(texts((await IngestWal.open({ dir, logger: quiet })).recovered), ['applied', 'pending'], 'the segment holds both; replay is idempotent');
  await t.rejects(wal.append(payload('late')), /closed/);
});
