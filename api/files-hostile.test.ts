// Goal: the files routes with the feature on take any path a client can send without a 5xx:
// every PUT is a 201 exactly when an independent statement of the path rules says the
// path is valid, else a 400 (structure) or 422 (lengths, characters) naming `path`; every
// stored path reads back byte-identical through its percent-encoded download URL, shows in its
// folder's listing and deletes; hostile download URLs and listing queries are answered with
// JSON errors, never a 5xx. Method: the real server, fast-check with a fixed seed
// (FILES_HOSTILE_SEED chooses another), paths built from segments that sit on every rule's
// edge (empty, `.`, `..`, 255 and 256 UTF-8 bytes, control characters, `%`, `+`, Unicode).
import t from 'tap';
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { startTestServer } from './testing/test-server.ts';

const SEED = Number(process.env['FILES_HOSTILE_SEED'] ?? 10_010);
const RUNS = Number(process.env['FILES_HOSTILE_RUNS'] ?? 150);
t.comment(`fast-check seed ${SEED}, ${RUNS} runs (FILES_HOSTILE_SEED, FILES_HOSTILE_RUNS to choose others)`);
const ORG = `files-hostile-${randomBytes(4).toString('hex')}`;
const srv = await startTestServer({ serviceConfig: { tenants: { [ORG]: { files: true } } } });
t.teardown(() => srv.close());
const token = srv.token({ org: ORG });
const auth = { authorization: `Bearer ${token}` };

/** The path rules, stated independently of engine/files/file-path.ts: 'ok', 400 or 422. */
function expectedStatus(path: string): 201 | 400 | 422 {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(path) || Buffer.byteLength(path) > 1024) return 422;
  const segments = path.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) return 400;
  if (segments.some((s) => Buffer.byteLength(s) > 255)) return 422;
  return 201;
}

const segment = fc.oneof(
  fc.constantFrom('', '.', '..', '...', '%', '%2F', '+', ' ', 'a b', '#?&=', '\u0000', '\n', '\u007f', 'é', '☃', '𝄞', 'x'.repeat(255), 'x'.repeat(256), 'é'.repeat(127) + 'x', 'é'.repeat(128)),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
  fc.stringMatching(/^[A-Za-z0-9._-]{1,20}$/),
);
const pathArbitrary = fc.array(segment, { minLength: 1, maxLength: 6 }).map((segments) => segments.join('/'));
const urlOf = (path: string) => `/files/download/${path.split('/').map(encodeURIComponent).join('/')}`;

t.test('any path: 201 exactly when the rules allow it, and a stored file reads back, lists and deletes', async (t) => {
  let stored = 0;
  await fc.assert(fc.asyncProperty(pathArbitrary, fc.uint8Array({ maxLength: 300 }), async (path, bytes) => {
    const put = await fetch(`${srv.url}/files?path=${encodeURIComponent(path)}`, { method: 'PUT', headers: auth, body: bytes });
    const text = await put.text();
    const expected = path === '' ? 400 : expectedStatus(path);
    if (put.status !== expected) throw new Error(`PUT ${JSON.stringify(path)}: ${put.status}, expected ${expected}: ${text.slice(0, 200)}`);
    if (expected !== 201) {
      const error = (JSON.parse(text) as { error: { code: number; fields: { field: string }[] } }).error;
      if (error.code !== expected || error.fields[0]?.field !== 'path') throw new Error(`PUT ${JSON.stringify(path)}: error body ${text.slice(0, 200)}`);
      return;
    }
    stored++;
    const record = JSON.parse(text) as { path: string; folder: string; name: string };
    if (record.path !== path || `${record.folder ? `${record.folder}/` : ''}${record.name}` !== path) throw new Error(`PUT ${JSON.stringify(path)}: record ${text}`);
    const got = await fetch(srv.url + urlOf(path), { headers: auth });
    const back = new Uint8Array(await got.arrayBuffer());
    if (got.status !== 200 || Buffer.compare(back, bytes) !== 0) throw new Error(`GET ${JSON.stringify(path)}: ${got.status}, ${back.byteLength} bytes of ${bytes.byteLength}`);
    const list = await fetch(`${srv.url}/files?folder=${encodeURIComponent(record.folder)}&limit=1000`, { headers: auth });
    const items = ((await list.json()) as { items: { path: string }[] }).items;
    if (!items.some((f) => f.path === path)) throw new Error(`GET /files?folder=${JSON.stringify(record.folder)}: ${JSON.stringify(path)} not listed`);
    const del = await fetch(`${srv.url}/files/delete`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ items: [{ path }] }) });
    await del.arrayBuffer();
    const gone = await fetch(srv.url + urlOf(path), { headers: auth });
    await gone.arrayBuffer();
    if (del.status !== 204 || gone.status !== 404) throw new Error(`delete ${JSON.stringify(path)}: ${del.status}, then GET ${gone.status}`);
  }), { seed: SEED, numRuns: RUNS });
  t.ok(stored > RUNS / 10, `${stored} of ${RUNS} paths stored, read back, listed and deleted; the rest refused as the rules say`);
});

t.test('hostile download URLs and listing queries: JSON errors, never a 5xx', async (t) => {
  const raw = fc.oneof(
    fc.constantFrom('%', '%zz', '%C0%AF', '%ED%A0%80', '%FF', '%00', '%2F', '%2E%2E', '..', '.', '', '//', '%25', 'a%2F%2Fb'),
    fc.string({ unit: 'grapheme', maxLength: 20 }).map(encodeURIComponent),
  );
  await fc.assert(fc.asyncProperty(fc.array(raw, { minLength: 1, maxLength: 5 }), fc.array(raw, { maxLength: 3 }), async (segments, query) => {
    for (const url of [`/files/download/${segments.join('/')}`, `/files?folder=${segments.join('/')}&recursive=${query[0] ?? ''}&limit=${query[1] ?? ''}&cursor=${query[2] ?? ''}`]) {
      const res = await fetch(srv.url + url, { headers: auth });
      const text = await res.text();
      if (res.status >= 500) throw new Error(`GET ${url}: ${res.status} ${text.slice(0, 200)}`);
      if (res.status >= 400) JSON.parse(text);
    }
  }), { seed: SEED, numRuns: RUNS });
  t.pass('answered without a 5xx, errors as JSON');
});
