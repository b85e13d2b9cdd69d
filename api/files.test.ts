// Goal: the files contract (docs/api.md "Files") through the real server: the per-tenant feature (403 on
// every call when off), PUT /files (201 record, Content-Type kept or defaulted, ETag and
// Location), byte-identical round trips (every byte value, empty, Unicode and percent-encoded
// paths), replace, the path rules with their bad inputs at the limit and one past it,
// conditional PUT (If-None-Match: * and If-Match, racing creates included),
// listing (one folder by name, recursive by path, paging with cursors bound to their
// listing, limit), downloads (ETag, If-None-Match 304, one Range 206 in each form, If-Range,
// 416, several ranges ignored), delete (204, idempotent, batch cap), the rate budget (PUT a
// write, GET a read) and the daily ingestedBytes quota (429, nothing stored, no staging left).
// Method: one real server (embedded PostgreSQL, DATA_DIR/files); tenants chosen up front so
// SERVICE_CONFIG can turn files on for them; every JSON 2xx schema-checked, every error body
// checked with assertErrorBody.
import t, { type Test } from 'tap';
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { assertErrorBody } from './testing/error-body.ts';
import { schemaCheckedRequest } from './testing/response-schema.ts';
import { startTestServer } from './testing/test-server.ts';

const suffix = randomBytes(4).toString('hex');
const ON = Array.from({ length: 12 }, (_, i) => `files-on-${i}-${suffix}`);
const OFF = `files-off-${suffix}`;
const QUOTA = `files-quota-${suffix}`;
const RATE = `files-rate-${suffix}`;
const QUOTA_BYTES = 3 * 1024 * 1024;
const tenants: Record<string, unknown> = Object.fromEntries(ON.map((org) => [org, { files: true }]));
tenants[QUOTA] = { files: true, dailyQuotas: { ingestedBytes: QUOTA_BYTES } };
tenants[RATE] = { files: true, rateLimits: { organization: { writesPerMinute: 2, readsPerMinute: 3 } } };
const srv = await startTestServer({ serviceConfig: { tenants } });
t.teardown(() => srv.close());
const call = schemaCheckedRequest(srv);
let nextOn = 0;
/** A token of a fresh tenant with files on. */
const onToken = () => srv.token({ org: ON[nextOn++] as string });

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function put(t: Test, token: string, filePath: string, body: Uint8Array | string, headers: Record<string, string> = {}) {
  return call(t, 'PUT', `/files?path=${encodeURIComponent(filePath)}`, { token, rawBody: body, headers });
}

async function download(token: string, urlPath: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${srv.url}${urlPath}`, { headers: { authorization: `Bearer ${token}`, ...headers } });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  let body: unknown;
  if ((res.headers.get('content-type') ?? '').includes('json')) body = JSON.parse(text);
  return { status: res.status, headers: res.headers, bytes, body };
}

/** A GET sent with its path exactly as written: fetch would resolve `..` and `%2E%2E` first. */
function rawGet(token: string, rawPath: string): Promise<{ status: number; body: unknown }> {
  const { port } = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: rawPath, headers: { authorization: `Bearer ${token}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => { text += chunk; }).on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject).end();
  });
}

const at = (filePath: string) => `/files/download/${filePath.split('/').map(encodeURIComponent).join('/')}`;

t.test('the feature off: every call is 403 FeatureDisabledError, whatever the input', async (t) => {
  const token = srv.token({ org: OFF });
  const cases: [string, string, Parameters<typeof call>[3]][] = [
    ['PUT', '/files?path=a/b.txt', { rawBody: 'x' }],
    ['PUT', '/files?path=..', { rawBody: 'x' }],
    ['PUT', '/files', { rawBody: new Uint8Array(5 * 1024 * 1024) }],
    ['GET', '/files', {}],
    ['GET', '/files?folder=a&recursive=true', {}],
    ['GET', '/files/download/a/b.txt', {}],
    ['POST', '/files/delete', { body: { items: [{ path: 'a/b.txt' }] } }],
  ];
  for (const [method, url, opts] of cases) {
    const res = await call(t, method, url, { token, ...opts });
    assertErrorBody(t, res, { status: 403, type: 'FeatureDisabledError' }, `${method} ${url}`);
    t.equal(res.body.error.feature, 'files', `${method} ${url}: names the feature`);
  }
  const settings = await call(t, 'GET', '/settings', { token });
  t.equal(settings.body.files, false, 'GET /settings says files are off');
});

t.test('upload and download: 201 record, byte-identical round trips, Content-Type kept or defaulted', async (t) => {
  const token = onToken();
  const every = new Uint8Array(256 * 4).map((_, i) => i % 256);
  const made = await put(t, token, 'plant/line 1/every-byte.bin', every, { 'content-type': 'image/png' });
  t.equal(made.status, 201, 'PUT answers 201');
  const { createdTime, ...rest } = made.body;
  t.strictSame(rest, { path: 'plant/line 1/every-byte.bin', folder: 'plant/line 1', name: 'every-byte.bin', size: every.byteLength, contentType: 'image/png', sha256: sha(every) }, 'the record');
  t.ok(Math.abs(createdTime - Date.now()) < 60_000, 'createdTime is now');
  t.equal(made.headers.get('etag'), `"${sha(every)}"`, 'ETag is the quoted SHA-256');
  t.equal(made.headers.get('location'), '/files/download/plant/line%201/every-byte.bin', 'Location is the download address');
  const got = await download(token, made.headers.get('location') as string);
  t.equal(got.status, 200, 'GET 200');
  t.strictSame(got.bytes, every, 'byte-identical');
  t.equal(got.headers.get('content-type'), 'image/png', 'Content-Type kept');
  t.equal(got.headers.get('content-length'), String(every.byteLength), 'Content-Length');
  t.equal(got.headers.get('etag'), `"${sha(every)}"`, 'ETag');
  t.equal(got.headers.get('accept-ranges'), 'bytes', 'Accept-Ranges');
  t.equal(got.headers.get('x-content-type-options'), 'nosniff', 'nosniff: the stored type is served as is');

  const plain = await put(t, token, 'top.txt', new TextEncoder().encode('no type sent'));
  t.equal(plain.body.contentType, 'application/octet-stream', 'no Content-Type: application/octet-stream');
  t.equal(plain.body.folder, '', 'a file at the top has folder ""');
  const empty = await put(t, token, 'empty/nothing', new Uint8Array(0), { 'content-type': 'text/plain; charset=utf-8' });
  t.equal(empty.body.size, 0, 'an empty file');
  t.equal(empty.body.sha256, sha(new Uint8Array(0)), 'the SHA-256 of nothing');
  const gotEmpty = await download(token, at('empty/nothing'));
  t.equal(gotEmpty.status, 200, 'an empty file downloads');
  t.equal(gotEmpty.bytes.byteLength, 0, 'with no bytes');
  t.equal(gotEmpty.headers.get('content-type'), 'text/plain; charset=utf-8', 'parameters of the Content-Type kept');

  // Unicode and characters URLs encode: the same file by percent-encoded path segments.
  const odd = 'Werk Süd/☃ snow+man/100% #1 ?&=.txt';
  const uni = await put(t, token, odd, 'unicode', { 'content-type': 'text/plain' });
  t.equal(uni.body.path, odd, 'a Unicode path with +, %, #, ?, & and = is kept exactly');
  t.equal((await download(token, at(odd))).status, 200, 'downloaded by its percent-encoded segments');
  const slashEncoded = `/files/download/${encodeURIComponent(odd)}`;
  t.equal(new TextDecoder().decode((await download(token, slashEncoded)).bytes), 'unicode', 'an encoded / (%2F) is a /');
  const plus = await call(t, 'PUT', '/files?path=a+b', { token, rawBody: 'x' });
  t.equal(plus.body.path, 'a b', 'a + in the query string is a space (send %2B for +)');
});

t.test('replace: a PUT on an existing path replaces the file', async (t) => {
  const token = onToken();
  await put(t, token, 'r/file', 'first version', { 'content-type': 'text/plain' });
  const second = await put(t, token, 'r/file', 'second, longer version', { 'content-type': 'text/csv' });
  t.equal(second.status, 201, 'a replace answers 201');
  const got = await download(token, at('r/file'));
  t.equal(new TextDecoder().decode(got.bytes), 'second, longer version', 'the new bytes');
  t.equal(got.headers.get('content-type'), 'text/csv', 'the new Content-Type');
  const list = await call(t, 'GET', '/files?folder=r', { token });
  t.equal(list.body.items.length, 1, 'one file at the path');
  t.equal(list.body.items[0].size, 22, 'with the new size');
  const blobs = readdirSync(path.join(srv.dataDir, 'files', 'blobs'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).length;
  t.ok(blobs >= 1, 'blobs exist');
});

t.test('conditional PUT: If-None-Match: * creates only, If-Match replaces only the named version', async (t) => {
  const token = onToken();
  const created = await put(t, token, 'cond/file', 'v1', { 'if-none-match': '*' });
  t.equal(created.status, 201, 'If-None-Match: * on a new path: 201');
  const v1 = created.headers.get('etag') as string;
  const again = await put(t, token, 'cond/file', 'not stored', { 'if-none-match': '*' });
  assertErrorBody(t, again, { status: 409, type: 'ConflictError' }, 'If-None-Match: * on an existing path');
  t.equal(again.body.error.cause, 'concurrency', 'SPEC\'s ConflictError cause');
  const stale = await put(t, token, 'cond/file', 'not stored', { 'if-match': '"0000000000000000000000000000000000000000000000000000000000000000"' });
  assertErrorBody(t, stale, { status: 409, type: 'ConflictError' }, 'If-Match with another version');
  const weak = await put(t, token, 'cond/file', 'not stored', { 'if-match': `W/${v1}` });
  assertErrorBody(t, weak, { status: 409, type: 'ConflictError' }, 'If-Match compares strongly: a weak tag never matches');
  const v2 = await put(t, token, 'cond/file', 'v2', { 'if-match': `"x", ${v1}` });
  t.equal(v2.status, 201, 'If-Match with the current ETag in a list: 201');
  t.equal(new TextDecoder().decode((await download(token, at('cond/file'))).bytes), 'v2', 'the refused PUTs stored nothing; the matching one did');
  t.equal((await put(t, token, 'cond/file', 'v3', { 'if-match': '*' })).status, 201, 'If-Match: * on an existing path: 201');
  assertErrorBody(t, await put(t, token, 'cond/none', 'x', { 'if-match': '*' }), { status: 409, type: 'ConflictError' }, 'If-Match: * on a missing path');
  assertErrorBody(t, await put(t, token, 'cond/file', 'x', { 'if-none-match': `W/"${sha(new TextEncoder().encode('v3'))}"` }), { status: 409, type: 'ConflictError' }, 'If-None-Match naming the current version (weakly)');
  t.equal((await download(token, at('cond/none'))).status, 404, 'nothing stored at the missing path');
  // Racing creates: exactly one wins.
  const racers = await Promise.all(Array.from({ length: 6 }, (_, i) => put(t, token, 'cond/race', `racer ${i}`, { 'if-none-match': '*' })));
  t.strictSame(racers.map((r) => r.status).sort(), [201, 409, 409, 409, 409, 409], 'six racing creates with If-None-Match: *: one 201, five 409');
});

t.test('path rules: each bad input, at the limit and one past it', async (t) => {
  const token = onToken();
  const seg255 = 'é'.repeat(127) + 'a'; // 255 UTF-8 bytes
  const seg256 = 'é'.repeat(128); // 256
  const path1024 = `${Array.from({ length: 4 }, () => 'a'.repeat(200)).join('/')}/${'a'.repeat(219)}`; // 1,023 bytes
  const check = async (filePath: string, expected: number | { status: number; fields?: string[] }, name: string) => {
    const res = await call(t, 'PUT', `/files?path=${encodeURIComponent(filePath)}`, { token, rawBody: 'x' });
    const status = typeof expected === 'number' ? expected : expected.status;
    if (status === 201) t.equal(res.status, 201, `${name}: 201 (${res.text.slice(0, 200)})`);
    else assertErrorBody(t, res, { status, fields: ['path'] }, name);
  };
  await check(seg255, 201, 'a segment of 255 UTF-8 bytes');
  await check(seg256, 422, 'a segment of 256 UTF-8 bytes');
  await check(`${path1024}a`, 201, 'a path of 1,024 bytes');
  await check(`${path1024}ab`, 422, 'a path of 1,025 bytes');
  await check(`x/${'a'.repeat(1100)}`, 422, 'a path far past the cap');
  await check('', 400, 'an empty path');
  await check('/a/b', 400, 'a leading /');
  await check('a/b/', 400, 'a trailing /');
  await check('a//b', 400, 'a doubled /');
  await check('a/../b', 400, 'a .. segment');
  await check('..', 400, '.. alone');
  await check('a/./b', 400, 'a . segment');
  await check('a/b\u0000c', 422, 'a NUL');
  await check('a/b\nc', 422, 'a line feed');
  await check('a/b\u007fc', 422, 'a DEL');
  await check('a/...', 201, 'three dots are a name');
  await check('.hidden/..x', 201, 'dots inside a name');
  const missing = await call(t, 'PUT', '/files', { token, rawBody: 'x' });
  assertErrorBody(t, missing, { status: 400, fields: ['path'] }, 'no path parameter');
  const bad = await call(t, 'PUT', '/files?path=a%ZZ', { token, rawBody: 'x' });
  t.equal(bad.status, 201, 'a malformed escape in the query is kept as text (URLSearchParams)');
  t.equal(bad.body.path, 'a%ZZ', 'literally');
  const longType = await call(t, 'PUT', '/files?path=t', { token, rawBody: 'x', headers: { 'content-type': `text/${'x'.repeat(251)}` } });
  assertErrorBody(t, longType, { status: 422, fields: ['contentType'] }, 'a Content-Type of 256 characters');
  const typeAt = await call(t, 'PUT', '/files?path=t', { token, rawBody: 'x', headers: { 'content-type': `text/${'x'.repeat(250)}` } });
  t.equal(typeAt.status, 201, 'a Content-Type of 255 characters');
  const typeTab = await call(t, 'PUT', '/files?path=t', { token, rawBody: 'x', headers: { 'content-type': 'text/plain;\tcharset=x' } });
  assertErrorBody(t, typeTab, { status: 422, fields: ['contentType'] }, 'a Content-Type with a control character (tab)');

  for (const [url, status, name] of [
    ['/files/download/', 400, 'download of an empty path'],
    ['/files/download/a//b', 400, 'download with a doubled /'],
    ['/files/download/a/%2E%2E/b', 400, 'download through an encoded .. segment'],
    ['/files/download/a/../b', 400, 'download through a .. segment'],
    ['/files/download/./b', 400, 'download through a . segment'],
    ['/files/download/a/%00', 422, 'download of a NUL'],
    ['/files/download/a/%ZZ', 400, 'download with malformed percent-encoding'],
    [`/files/download/${'a'.repeat(256)}`, 422, 'download of a 256-byte segment'],
    ['/files/download/no/such/file', 404, 'download of a path with no file'],
  ] as const) {
    const res = await rawGet(token, url);
    assertErrorBody(t, res, { status, ...(status === 404 ? {} : { fields: ['path'] }) }, name);
  }
  for (const [query, status, field, name] of [
    ['folder=/a', 400, 'folder', 'a folder with a leading /'],
    ['folder=a/', 400, 'folder', 'a folder with a trailing /'],
    ['folder=a/..', 400, 'folder', 'a folder with ..'],
    [`folder=${'b'.repeat(256)}`, 422, 'folder', 'a folder segment of 256 bytes'],
    ['recursive=yes', 400, 'recursive', 'recursive not true or false'],
    ['limit=0', 400, 'limit', 'limit 0'],
    ['limit=1001', 400, 'limit', 'limit 1,001'],
    ['limit=ten', 400, 'limit', 'limit not a number'],
    ['cursor=nonsense', 400, 'cursor', 'a cursor not of GET /files'],
  ] as const) {
    const res = await call(t, 'GET', `/files?${query}`, { token });
    assertErrorBody(t, res, { status, fields: [field] }, name);
  }
  t.equal((await call(t, 'GET', '/files?limit=1000', { token })).status, 200, 'limit 1,000');
  const del = await call(t, 'POST', '/files/delete', { token, body: { items: [{ path: 'ok' }, { path: 'a/../b' }] } });
  assertErrorBody(t, del, { status: 400, fields: ['items[1].path'] }, 'delete names the bad item');
  const delLong = await call(t, 'POST', '/files/delete', { token, body: { items: [{ path: seg256 }] } });
  assertErrorBody(t, delLong, { status: 422, fields: ['items[0].path'] }, 'delete of a 256-byte segment');
  const delCap = await call(t, 'POST', '/files/delete', { token, body: { items: Array.from({ length: 10_001 }, (_, i) => ({ path: `f${i}` })) } });
  t.equal(delCap.status, 400, 'delete of 10,001 items: 400 (the batch cap)');
  const delAtCap = await call(t, 'POST', '/files/delete', { token, body: { items: Array.from({ length: 10_000 }, (_, i) => ({ path: `f${i}` })) } });
  t.equal(delAtCap.status, 204, 'delete of 10,000 items');
  const delEmpty = await call(t, 'POST', '/files/delete', { token, body: { items: [] } });
  t.equal(delEmpty.status, 400, 'delete of no items: 400');
});

t.test('listing: one folder by name, recursive by path, paging, cursors bound to their listing', async (t) => {
  const token = onToken();
  const paths = ['a/x', 'a/b', 'a/c/d', 'a/c/e/f', 'a b/x', 'a0', 'a.txt', 'ab/y', 'top', 'a/Z', 'a/é', 'a'];
  for (const p of paths) await put(t, token, p, p);
  const names = async (query: string) => {
    const out: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const res = await call(t, 'GET', `/files?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { token });
      if (res.status !== 200) throw new Error(`${query}: ${res.status} ${res.text}`);
      out.push(...res.body.items.map((f: { path: string }) => f.path));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor && pages < 100);
    return out;
  };
  t.strictSame(await names('folder=a'), ['a/Z', 'a/b', 'a/x', 'a/é'], 'one folder, by name as bytes; subfolders\' files not included');
  t.strictSame(await names('folder=a&limit=1'), ['a/Z', 'a/b', 'a/x', 'a/é'], 'the same, a file per page');
  t.strictSame(await names(''), ['a', 'a.txt', 'a0', 'top'], 'the top folder: the file `a` beside the folder `a`');
  t.strictSame(await names('folder=a&recursive=true'), ['a/Z', 'a/b', 'a/c/d', 'a/c/e/f', 'a/x', 'a/é'], 'recursive: all below a/, not "a b/", "a0", "a.txt" or "ab/"');
  t.strictSame(await names('folder=a&recursive=true&limit=2'), ['a/Z', 'a/b', 'a/c/d', 'a/c/e/f', 'a/x', 'a/é'], 'the same in pages of 2');
  t.strictSame(await names('recursive=true&limit=3'), [...paths].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y))), 'recursive from the top: every file by path');
  t.strictSame(await names('folder=a/c&recursive=false'), ['a/c/d'], 'recursive=false');
  t.strictSame(await names('folder=nothing/here'), [], 'a folder with nothing: an empty page');
  const first = await call(t, 'GET', '/files?folder=a&limit=1', { token });
  const foreign = await call(t, 'GET', `/files?folder=a&recursive=true&limit=1&cursor=${first.body.nextCursor}`, { token });
  assertErrorBody(t, foreign, { status: 400, fields: ['cursor'] }, 'a cursor of the folder listing sent to the recursive one');
  const otherFolder = await call(t, 'GET', `/files?folder=ab&limit=1&cursor=${first.body.nextCursor}`, { token });
  assertErrorBody(t, otherFolder, { status: 400, fields: ['cursor'] }, 'a cursor sent with another folder');
  const other = await call(t, 'GET', '/files', { token: onToken() });
  t.strictSame(other.body.items, [], 'another tenant sees none of them');
  t.equal((await call(t, 'GET', '/files/download/top', { token: onToken() })).status, 404, 'nor downloads them');
});

t.test('downloads: If-None-Match, one Range in each form, If-Range, 416, several ranges ignored', async (t) => {
  const token = onToken();
  const bytes = randomBytes(1000);
  const made = await put(t, token, 'r/range.bin', bytes);
  const etag = `"${made.body.sha256}"`;
  const check = async (headers: Record<string, string>, status: number, expected: { from: number; to: number } | undefined, name: string) => {
    const res = await download(token, at('r/range.bin'), headers);
    t.equal(res.status, status, `${name}: ${status}`);
    if (expected) {
      t.strictSame(Buffer.from(res.bytes), bytes.subarray(expected.from, expected.to), `${name}: bytes ${expected.from}-${expected.to - 1}`);
      if (status === 206) t.equal(res.headers.get('content-range'), `bytes ${expected.from}-${expected.to - 1}/1000`, `${name}: Content-Range`);
      t.equal(res.headers.get('content-length'), String(expected.to - expected.from), `${name}: Content-Length`);
    }
    return res;
  };
  await check({ range: 'bytes=0-99' }, 206, { from: 0, to: 100 }, 'first-last');
  await check({ range: 'bytes=990-' }, 206, { from: 990, to: 1000 }, 'first-');
  await check({ range: 'bytes=-10' }, 206, { from: 990, to: 1000 }, 'a suffix');
  await check({ range: 'bytes=-5000' }, 206, { from: 0, to: 1000 }, 'a suffix longer than the file');
  await check({ range: 'bytes=500-99999' }, 206, { from: 500, to: 1000 }, 'a last past the end is clamped');
  await check({ range: 'bytes=999-999' }, 206, { from: 999, to: 1000 }, 'the last byte');
  await check({ range: 'bytes=0-0,5-6' }, 200, { from: 0, to: 1000 }, 'several ranges: the whole file');
  await check({ range: 'bytes=9-5' }, 200, { from: 0, to: 1000 }, 'last before first: ignored');
  await check({ range: 'items=0-5' }, 200, { from: 0, to: 1000 }, 'another unit: ignored');
  await check({ range: 'bytes=abc' }, 200, { from: 0, to: 1000 }, 'unreadable: ignored');
  for (const range of ['bytes=1000-', 'bytes=5000-6000', 'bytes=-0']) {
    const res = await check({ range }, 416, undefined, `unsatisfiable ${range}`);
    assertErrorBody(t, res, { status: 416, type: 'RangeNotSatisfiableError' }, `unsatisfiable ${range}`);
    t.equal(res.headers.get('content-range'), 'bytes */1000', `${range}: Content-Range bytes */size`);
  }
  await check({ range: 'bytes=0-9', 'if-range': etag }, 206, { from: 0, to: 10 }, 'If-Range with the ETag keeps the range');
  await check({ range: 'bytes=0-9', 'if-range': '"stale"' }, 200, { from: 0, to: 1000 }, 'If-Range with another ETag: the whole file');
  const notModified = await check({ 'if-none-match': etag }, 304, undefined, 'If-None-Match with the ETag');
  t.equal(notModified.bytes.byteLength, 0, '304 has no body');
  t.equal(notModified.headers.get('etag'), etag, '304 carries the ETag');
  await check({ 'if-none-match': `"x", W/${etag}` }, 304, undefined, 'If-None-Match: a list with the weak form');
  await check({ 'if-none-match': '*' }, 304, undefined, 'If-None-Match: *');
  await check({ 'if-none-match': '"other"', range: 'bytes=0-1' }, 206, { from: 0, to: 2 }, 'If-None-Match not matching: the range');
  await put(t, token, 'r/empty', new Uint8Array(0));
  const emptyRange = await download(token, at('r/empty'), { range: 'bytes=0-' });
  t.equal(emptyRange.status, 416, 'any range of an empty file is unsatisfiable');
  t.equal(emptyRange.headers.get('content-range'), 'bytes */0', 'bytes */0');
});

t.test('delete: 204, idempotent, the file gone from listing and download', async (t) => {
  const token = onToken();
  await put(t, token, 'd/one', '1');
  await put(t, token, 'd/two', '2');
  const del = await call(t, 'POST', '/files/delete', { token, body: { items: [{ path: 'd/one' }, { path: 'd/one' }, { path: 'd/none' }] } });
  t.equal(del.status, 204, 'delete answers 204 (a repeat and a missing path skipped)');
  t.equal(del.text, '', 'with no body');
  t.equal((await download(token, at('d/one'))).status, 404, 'the file is gone');
  t.strictSame((await call(t, 'GET', '/files?folder=d', { token })).body.items.map((f: { path: string }) => f.path), ['d/two'], 'the other stays');
  t.equal((await call(t, 'POST', '/files/delete', { token, body: { items: [{ path: 'd/one' }] } })).status, 204, 'again: 204');
  t.equal((await call(t, 'POST', '/files/delete', { token: onToken(), body: { items: [{ path: 'd/two' }] } })).status, 204, 'another tenant deleting it: 204');
  t.equal((await download(token, at('d/two'))).status, 200, 'and it is still there');
  const extra = await call(t, 'POST', '/files/delete', { token, body: { items: [{ path: 'd/two', id: 1 }] } });
  t.ok(extra.status === 400 || extra.status === 422, `an unknown item key is refused (${extra.status})`);
});

t.test('rate budget: PUT and delete are writes, GETs are reads', async (t) => {
  const token = srv.token({ org: RATE });
  t.equal((await put(t, token, 'a', 'x')).status, 201, 'write 1');
  t.equal((await call(t, 'POST', '/files/delete', { token, body: { items: [{ path: 'zz' }] } })).status, 204, 'write 2');
  const third = await put(t, token, 'b', 'x');
  t.equal(third.status, 429, 'write 3 is over the 2 writes a minute');
  t.equal(third.body.scope, 'tenant', 'rate-limit-exceeded names the scope');
  t.equal((await call(t, 'GET', '/files', { token })).status, 200, 'read 1 still passes');
  t.equal((await download(token, '/files/download/a')).status, 200, 'read 2');
  t.equal((await download(token, '/files/download/a')).status, 200, 'read 3');
  t.equal((await call(t, 'GET', '/files', { token })).status, 429, 'read 4 is over the 3 reads a minute');
});

t.test('daily ingestedBytes quota: charged as bytes arrive; past it 429, nothing stored, no staging left', async (t) => {
  const token = srv.token({ org: QUOTA });
  const fits = randomBytes(2 * 1024 * 1024);
  t.equal((await put(t, token, 'q/fits', fits)).status, 201, '2 MiB of the 3 MiB quota');
  const over = await put(t, token, 'q/over', randomBytes(2 * 1024 * 1024));
  t.equal(over.status, 429, 'the next 2 MiB passes the quota: 429');
  t.match(over.body, { type: /\/ingest-quota-exceeded$/, metric: 'ingestedBytes', limit: QUOTA_BYTES }, 'ingest-quota-exceeded names the metric and limit');
  t.ok(Number(over.headers.get('retry-after')) > 0, 'Retry-After');
  t.equal((await download(token, at('q/over'))).status, 404, 'nothing stored at the path');
  const metrics = await (await fetch(`${srv.url}/metrics`)).text();
  t.match(metrics, /limit_hits_total\{limit="ingested-bytes"\} [1-9]/, 'the refusal counted in limit_hits_total');
  t.strictSame(readdirSync(path.join(srv.dataDir, 'files', 'staging')), [], 'no staging file left');
  const got = await download(token, at('q/fits'));
  t.equal(sha(got.bytes), sha(fits), 'the file that fit is intact');
});
