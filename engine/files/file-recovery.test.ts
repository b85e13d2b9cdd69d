// Goal: the crash guarantees at the engine: whatever state a crash leaves (an upload
// mid-write, a blob durable but not yet indexed, a blob replaced or deleted but not yet
// removed), the next start leaves every indexed file readable and no other blob or staging
// file behind; and an upload that fails mid-stream (the client leaves, the quota refuses)
// leaves nothing either. Method: the real use cases on embedded PostgreSQL and a directory
// blob store in a temp dir; crash states are built with the same calls the upload makes,
// stopped where a crash would stop them; recovery runs as at start.
import t from 'tap';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { IngestQuotaError } from '../errors.ts';
import { logger } from '../log.ts';
import { pollUntil } from '../testing/poll-until.ts';
import { openTestRelational } from '../testing/relational-fixture.ts';
import type { BlobStore } from './blob-store.ts';
import { DirectoryBlobStore } from './directory-blob-store.ts';
import { parseFilePath } from './file-path.ts';
import { fileByPath, openFile } from './file-read.ts';
import { recoverFiles } from './file-recovery.ts';
import { deleteFiles, newBlobKey, uploadFile, type FileWriteDeps } from './file-write.ts';
import { INSERT_PENDING_BLOB } from './file-write.sql.ts';

const store = await openTestRelational(t, 'file-recovery');
const root = mkdtempSync(path.join(tmpdir(), 'file-blobs-'));
t.teardown(() => rmSync(root, { recursive: true, force: true }));
const blobs = await new DirectoryBlobStore(root).open();
const log = logger.child({ module: 'files-test' });
log.level = 'silent';
const deps: FileWriteDeps = { relational: store, blobs, log, chargeIngestedBytes: async () => undefined };
const tenant = 'recovery-tenant';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
async function* chunksOf(bytes: Buffer, failAfter?: Error): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < bytes.byteLength; offset += 64 * 1024) yield bytes.subarray(offset, offset + 64 * 1024);
  if (failAfter) throw failAfter;
}
const put = (filePath: string, bytes: Buffer, extra: Partial<FileWriteDeps> = {}, failAfter?: Error) =>
  uploadFile({ ...deps, ...extra }, tenant, { target: parseFilePath(filePath), contentType: 'application/octet-stream', chunks: chunksOf(bytes, failAfter) });

async function readWhole(filePath: string): Promise<Buffer> {
  const opened = await openFile(store.pool, blobs, tenant, filePath, (r) => ({ start: 0, endExclusive: r.size }));
  const parts: Buffer[] = [];
  for await (const chunk of opened.source ?? []) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}
const blobCount = () => readdirSync(path.join(root, 'blobs'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
const stagingCount = () => readdirSync(path.join(root, 'staging')).length;
const pendingCount = async () => Number((await store.pool.query('SELECT count(*) AS n FROM file_blobs_pending')).rows[0].n);

t.test('an upload that fails mid-stream leaves no file, blob, staging file or pending note', async (t) => {
  const kept = randomBytes(100_000);
  await put('f/kept', kept);
  const before = blobCount();
  await t.rejects(put('f/kept', randomBytes(300_000), {}, new Error('client left')), /client left/, 'the stream failure reaches the caller');
  let charged = 0;
  const quota = async (_tenant: string, bytes: number) => {
    charged += bytes;
    if (charged > 128 * 1024) throw new IngestQuotaError('ingestedBytes', 128 * 1024, 60);
  };
  await t.rejects(put('f/over', randomBytes(300_000), { chargeIngestedBytes: quota }), { code: 'IngestQuotaError' }, 'the quota refuses past its limit');
  t.ok(charged <= 128 * 1024 + 64 * 1024, 'charging stopped at the chunk that passed the quota');
  t.equal(sha(await readWhole('f/kept')), sha(kept), 'the file at the path is the old one');
  await t.rejects(fileByPath(store.pool, tenant, 'f/over'), { code: 'NotFoundError' }, 'nothing at the refused path');
  t.equal(blobCount(), before, 'no blob added');
  t.equal(stagingCount(), 0, 'no staging file');
  t.equal(await pendingCount(), 0, 'no pending note');
});

t.test('recovery after a crash in each state leaves indexed files readable and nothing else', async (t) => {
  const a = randomBytes(70_000);
  const b = randomBytes(90_000);
  await put('c/a', a);
  await put('c/b', b);
  await put('c/gone', randomBytes(10));
  // 1. A crash mid-write: a staging file, no note (the note comes just before the blob is durable).
  writeFileSync(path.join(root, 'staging', newBlobKey()), randomBytes(1000));
  // 2. A crash between the blob made durable and the index transaction: noted 'staged'.
  const stagedKey = newBlobKey();
  const writer = await blobs.createWriter(stagedKey);
  await writer.write(randomBytes(5000));
  await store.pool.query(INSERT_PENDING_BLOB, [tenant, stagedKey, 'staged', Date.now()]);
  await writer.commit();
  // 3. A crash after a replace's or delete's transaction, before the old blob was removed:
  //    simulated by noting the blob as garbage again and putting its file back.
  const replacedKey = newBlobKey();
  const replaced = await blobs.createWriter(replacedKey);
  await replaced.write(randomBytes(3000));
  await replaced.commit();
  await store.pool.query(INSERT_PENDING_BLOB, [tenant, replacedKey, 'garbage', Date.now()]);
  await deleteFiles(deps, tenant, ['c/gone']);
  await pollUntil('the deleted file\'s blob removed (after the answer)', async () => (await pendingCount()) === 2);
  t.equal(stagingCount(), 1, 'before recovery: a staging leftover');
  t.equal(await pendingCount(), 2, 'before recovery: two noted blobs');
  const removed = await recoverFiles(store, blobs, log);
  t.equal(removed, 2, 'recovery removed the two unreferenced blobs');
  t.equal(stagingCount(), 0, 'no staging file');
  t.equal(await pendingCount(), 0, 'no pending note');
  const indexed = Number((await store.pool.query('SELECT count(*) AS n FROM files')).rows[0].n);
  t.equal(blobCount(), indexed, 'one blob per indexed file');
  t.equal(sha(await readWhole('c/a')), sha(a), 'c/a readable, whole');
  t.equal(sha(await readWhole('c/b')), sha(b), 'c/b readable, whole');
  t.equal(await recoverFiles(store, blobs, log), 0, 'a second recovery finds nothing');
});

t.test('a blob removed between the index read and the open: the index is read again', async (t) => {
  const first = randomBytes(1000);
  const second = randomBytes(2000);
  await put('o/file', first);
  // A store whose first open comes just after a replace removed the blob the index named.
  let opens = 0;
  const racing: BlobStore = {
    kind: 'racing', createWriter: (key) => blobs.createWriter(key), remove: (key) => blobs.remove(key), recover: () => blobs.recover(), ping: () => blobs.ping(),
    async openRead(key, start, end) {
      if (opens++ === 0) {
        await put('o/file', second);
        await blobs.remove(key); // the replace removes the old blob after its answer: make that happen now
      }
      return blobs.openRead(key, start, end);
    },
  };
  const opened = await openFile(store.pool, racing, tenant, 'o/file', (record) => ({ start: 0, endExclusive: record.size }));
  const parts: Buffer[] = [];
  for await (const chunk of opened.source ?? []) parts.push(Buffer.from(chunk));
  t.equal(opens, 2, 'the first open missed, the index was read again');
  t.equal(opened.record.size, second.byteLength, 'the record is the new version');
  t.equal(sha(Buffer.concat(parts)), sha(second), 'and so are the bytes');
});
