// Goal: the directory blob store keeps every byte at every size and range, whichever way it
// writes and reads: O_DIRECT with aligned buffers (sizes around the 4 KiB alignment and the
// 2 MiB write buffer, ranges starting mid-block), on tmpfs (which refuses O_DIRECT on older
// kernels), and through the page cache when more uploads or downloads run at once than the
// aligned pools serve. A reader keeps the bytes it opened after the blob is removed.
// Method: real files in temp directories (one on the disk, one on /dev/shm when it is a
// tmpfs); random contents compared byte for byte.
import t, { type Test } from 'tap';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DirectoryBlobStore } from './directory-blob-store.ts';
import { newBlobKey } from './file-write.ts';

const MiB = 1024 * 1024;
const SIZES = [0, 1, 4095, 4096, 4097, 2 * MiB - 1, 2 * MiB, 2 * MiB + 1, 5 * MiB + 123];

async function storeIn(parent: string): Promise<DirectoryBlobStore> {
  const root = mkdtempSync(path.join(parent, 'blob-store-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  return new DirectoryBlobStore(root).open();
}

async function put(store: DirectoryBlobStore, bytes: Buffer): Promise<string> {
  const key = newBlobKey();
  const writer = await store.createWriter(key);
  // Odd chunk sizes, as a body arrives.
  for (let offset = 0; offset < bytes.byteLength; offset += 300_001) await writer.write(bytes.subarray(offset, offset + 300_001));
  await writer.commit();
  return key;
}

async function read(store: DirectoryBlobStore, key: string, start: number, end: number): Promise<Buffer> {
  const source = await store.openRead(key, start, end);
  if (!source) throw new Error('no blob');
  const parts: Buffer[] = [];
  for await (const chunk of source) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}

async function checkStore(t: Test, store: DirectoryBlobStore, how: string): Promise<void> {
  for (const size of SIZES) {
    const bytes = randomBytes(size);
    const key = await put(store, bytes);
    t.ok((await read(store, key, 0, size)).equals(bytes), `${how}: ${size} bytes round trip`);
    for (const [from, to] of [[1, size], [4095, size], [4097, Math.min(size, 3 * MiB)], [size - 1, size], [Math.floor(size / 3), Math.floor(size / 2) + 1]] as [number, number][]) {
      if (!(from >= 0 && from < to && to <= size)) continue;
      t.ok((await read(store, key, from, to)).equals(bytes.subarray(from, to)), `${how}: ${size} bytes, range ${from}-${to - 1}`);
    }
  }
}

t.test('on the disk (O_DIRECT where the file system takes it)', async (t) => {
  const store = await storeIn(tmpdir());
  t.comment(`O_DIRECT ${(store as unknown as { direct: boolean }).direct ? 'on' : 'refused by the file system'}`);
  await checkStore(t, store, 'disk');
});

t.test('on tmpfs (O_DIRECT or not, as the kernel allows)', { skip: existsSync('/dev/shm') ? false : 'no /dev/shm here' }, async (t) => {
  const store = await storeIn('/dev/shm');
  t.comment(`O_DIRECT ${(store as unknown as { direct: boolean }).direct ? 'on (tmpfs takes it on this kernel)' : 'refused by the file system'}`);
  await checkStore(t, store, 'tmpfs');
});

t.test('more uploads at once than the aligned pool serves, and a reader outliving a remove', async (t) => {
  const store = await storeIn(tmpdir());
  const bodies = Array.from({ length: 12 }, (_, i) => randomBytes(3 * MiB + i));
  const keys = await Promise.all(bodies.map((bytes) => put(store, bytes)));
  for (const [i, key] of keys.entries()) t.ok((await read(store, key, 0, (bodies[i] as Buffer).byteLength)).equals(bodies[i] as Buffer), `upload ${i} of 12 at once kept`);
  // 24 readers at once: the aligned read pool serves 16, the others read through the page cache.
  const sources = await Promise.all(keys.flatMap((key, i) => [0, 1].map(() => store.openRead(key, 1, (bodies[i] as Buffer).byteLength))));
  const reads = await Promise.all(sources.map(async (opened) => {
    const parts: Buffer[] = [];
    for await (const chunk of opened ?? []) parts.push(Buffer.from(chunk));
    return Buffer.concat(parts);
  }));
  t.ok(reads.every((bytes, j) => bytes.equals((bodies[Math.floor(j / 2)] as Buffer).subarray(1))), '24 reads at once, each whole');
  const source = await store.openRead(keys[0] as string, 0, (bodies[0] as Buffer).byteLength);
  await store.remove(keys[0] as string);
  t.equal(await store.openRead(keys[0] as string, 0, 1), undefined, 'a removed blob no longer opens');
  const parts: Buffer[] = [];
  for await (const chunk of source ?? []) parts.push(Buffer.from(chunk));
  t.ok(Buffer.concat(parts).equals(bodies[0] as Buffer), 'the reader that opened it first reads it whole');
});
