// Goal: the web console (docs/console.md) works in a real browser against the real service:
// sign-in (token field, `#token=` fragment, expired token, a refused one), the time series
// list and search, charts whose drawn range, granularity and values match the API (table view
// and CSV export included), zoom and pan by button, keyboard, wheel, drag and touch, live points over the
// WebSocket, event marks and their details, the asset tree and resource pages, policy
// findings linking to their resource, file download byte for byte, a hostile series name
// shown as text, a 429 shown readably, a keyboard-only walk with visible focus, and the
// Content-Security-Policy and `/` redirect. Screenshots of each view are written for the docs.
// Method: the service as a child process (`node --import tsx api/main.ts`, 127.0.0.1, port 0,
// its own DATA_DIR with embedded PostgreSQL and chdb), data created through the public API
// with minted tokens, Debian's chromium driven by puppeteer-core. Skipped (with the reason)
// when /usr/bin/chromium is missing: engine/testing/chromium-install.sh installs it.
// CONSOLE_SCREENSHOTS=1 writes the screenshots into docs/console/screenshots/, otherwise into
// a temporary folder named in the output.
import t, { type Test } from 'tap';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSigner } from 'fast-jwt';
import puppeteer, { type Browser, type BrowserContext, type CDPSession, type ElementHandle, type Page } from 'puppeteer-core';
import { mintToken } from './auth.ts';
import { serviceHome, startServiceProcess, type ServiceHome, type ServiceProcess } from './testing/service-process.ts';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const ORG = 'acme';
const SUB = 'alice';
const LIMITED_ORG = 'acme-limited';
const WAIT_MS = 10_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const XSS_NAME = '<img src=x onerror=alert(1)>';
const XSS_EVENT = '<img src=x onerror=alert(2)>';
interface Series { id: number; externalId: string; name: string; unit?: string }
interface Resource { id: number; externalId: string; name: string }
const GRANULARITY_RANK: Record<string, number> = { raw: 0, '1m': 1, '1h': 2, '1d': 3 };

// ---------------------------------------------------------------------------------------------
// Small helpers

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Puppeteer's ARIA selector: the accessible name (exact), optionally with the role. */
const aria = (name: string, role?: string) =>
  role ? `::-p-aria([name=${JSON.stringify(name)}][role=${JSON.stringify(role)}])` : `::-p-aria([name=${JSON.stringify(name)}])`;

const CHART = '[data-testid="chart"]';
const TABLE = 'table[aria-label="Plotted values"]';
const SIGN_IN = 'form[aria-label="Sign in"]';
const DIALOG = '[role="dialog"][aria-label="Event details"], dialog[open][aria-label="Event details"]';

interface ChartState { start: number; end: number; granularity: string; points: number; drawn: string; label: string }

const chartState = (page: Page): Promise<ChartState> => page.$eval(CHART, (el) => {
  const h = el as HTMLElement;
  return {
    start: Number(h.dataset['start']), end: Number(h.dataset['end']), granularity: h.dataset['granularity'] ?? '',
    points: Number(h.dataset['points']), drawn: h.dataset['drawn'] ?? '', label: h.getAttribute('aria-label') ?? '',
  };
});

/** Goes to a chart of the range and waits until that range is drawn (a chart already on the page stays drawn meanwhile). */
async function openChart(page: Page, hash: string, start: number, end: number): Promise<ChartState> {
  await go(page, hash);
  await page.waitForFunction((sel: string, s: string, e: string) => {
    const el = document.querySelector(sel) as HTMLElement | null;
    return !!el && el.dataset['drawn'] === 'true' && el.dataset['start'] === s && el.dataset['end'] === e;
  }, { timeout: WAIT_MS, polling: 50 }, CHART, String(start), String(end)).catch(async (e: Error) => {
    const got = await chartState(page).catch(() => 'no chart');
    throw new Error(`${e.message}: waiting for the chart of ${hash} drawn with data-start ${start}, data-end ${end}; got ${JSON.stringify(got)} at ${await hashOf(page)}`);
  });
  return chartState(page);
}

/** Waits for the chart to be drawn (`data-drawn="true"`), optionally for a range other than `prev`'s. */
async function waitChart(page: Page, prev?: ChartState): Promise<ChartState> {
  await page.waitForFunction((sel: string, ps: string, pe: string) => {
    const el = document.querySelector(sel) as HTMLElement | null;
    if (!el || el.dataset['drawn'] !== 'true') return false;
    return ps === '' || el.dataset['start'] !== ps || el.dataset['end'] !== pe;
  }, { timeout: WAIT_MS, polling: 50 }, CHART, prev ? String(prev.start) : '', prev ? String(prev.end) : '');
  return chartState(page);
}

/** Table rows (cells' text) of the "Plotted values" table, header rows left out. */
const tableRows = (page: Page): Promise<string[][]> => page.$$eval(`${TABLE} tr`, (trs) =>
  trs.filter((tr) => tr.querySelector('td')).map((tr) => Array.from(tr.children, (c) => (c.textContent ?? '').trim())));

const firstNumber = (text: string): number => {
  const m = /-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/i.exec(text.replace(/[\u00a0\u202f ]/g, ''));
  return m ? Number(m[0]) : Number.NaN;
};

/** The text of the section an `<h2>` heads (its <section>, else its parent). */
const sectionText = (page: Page, heading: string): Promise<string | null> => page.evaluate((h: string) => {
  const h2 = Array.from(document.querySelectorAll('main h2')).find((e) => (e.textContent ?? '').trim() === h);
  if (!h2) return null;
  return ((h2.closest('section') ?? h2.parentElement)?.textContent ?? '').trim();
}, heading);

/** Waits until the section under `heading` holds `text` (sections load on their own). */
const sectionHolds = (page: Page, heading: string, text: string): Promise<unknown> => page.waitForFunction((h: string, x: string) => {
  const h2 = Array.from(document.querySelectorAll('main h2')).find((e) => (e.textContent ?? '').trim() === h);
  return ((h2?.closest('section') ?? h2?.parentElement)?.textContent ?? '').includes(x);
}, { timeout: WAIT_MS, polling: 50 }, heading, text).catch(() => undefined);

/** Clicks the first link or button inside `scope` whose text is exactly `text`. */
async function clickByText(page: Page, scopeSelector: string, text: string): Promise<void> {
  const found = await page.evaluate((sel: string, txt: string) => {
    for (const scope of Array.from(document.querySelectorAll(sel))) {
      const el = Array.from(scope.querySelectorAll('a, button')).find((e) => (e.textContent ?? '').trim() === txt);
      if (el) { (el as HTMLElement).click(); return true; }
    }
    return false;
  }, scopeSelector, text);
  if (!found) throw new Error(`no link or button with the text ${JSON.stringify(text)} in ${scopeSelector}`);
}

const hashOf = (page: Page) => page.evaluate(() => location.hash);
const go = (page: Page, hash: string) => page.evaluate((h: string) => { location.hash = h; }, hash);

// ---------------------------------------------------------------------------------------------

if (!existsSync(CHROMIUM)) {
  const reason = `${CHROMIUM} is missing: run engine/testing/chromium-install.sh (make test does) to run the console's browser test`;
  console.log(`# ${reason}`);
  t.skip(reason, () => undefined);
} else {
  // One parent test holds the whole run: the root test would end (and tear the service down)
  // while the data is being created otherwise.
  await t.test('the console in chromium', (t) => run(t));
}

async function run(t: Test): Promise<void> {
  const screenshotDir = process.env['CONSOLE_SCREENSHOTS'] === '1'
    ? path.join(ROOT, 'docs', 'console', 'screenshots')
    : mkdtempSync(path.join(tmpdir(), 'console-screenshots-'));
  mkdirSync(screenshotDir, { recursive: true });
  const downloadDir = mkdtempSync(path.join(tmpdir(), 'console-downloads-'));
  t.comment(`screenshots go to ${screenshotDir}`);

  const limits = { readsPerMinute: 2, writesPerMinute: 100 };
  const home: ServiceHome = serviceHome('console-browser-', ORG, {
    tenants: { [ORG]: { files: true }, [LIMITED_ORG]: { rateLimits: { organization: limits, user: limits } } },
    oauthClients: { 'console-dev': { clientSecret: 'console-dev-secret', organization: ORG, sub: 'dev-client' } },
  });
  const secret = home.env['AUTH_JWT_SECRET'] as string;
  const token = (opts: { org?: string; sub?: string; expiresInSeconds?: number } = {}) =>
    mintToken({ secret, organization: opts.org ?? ORG, sub: opts.sub ?? SUB, expiresInSeconds: opts.expiresInSeconds ?? 3600 });
  const TOKEN = token();

  let svc: ServiceProcess | undefined;
  let browser: Browser | undefined;
  t.teardown(async () => {
    await browser?.close().catch(() => undefined);
    await svc?.stop();
    home.remove();
    rmSync(downloadDir, { recursive: true, force: true });
  });

  svc = await startServiceProcess({ ...home.env, HOST: '127.0.0.1' });
  const url = svc.url;
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+$/, `the service listens on 127.0.0.1 only (pid ${svc.pid})`);

  async function api(method: string, p: string, body?: unknown, opts: { token?: string; status?: number; raw?: Uint8Array; contentType?: string } = {}) {
    const headers: Record<string, string> = { authorization: `Bearer ${opts.token ?? TOKEN}` };
    let payload: BodyInit | undefined;
    if (opts.raw) { payload = opts.raw as unknown as BodyInit; headers['content-type'] = opts.contentType ?? 'application/octet-stream'; }
    else if (body !== undefined) { payload = JSON.stringify(body); headers['content-type'] = 'application/json'; }
    const res = await fetch(url + p, { method, headers, body: payload }).catch(async (e: Error) => {
      const exit = await Promise.race([svc!.exited.then((how) => `exited (${how})`), sleep(1000).then(() => 'still running')]);
      throw new Error(`${method} ${p}: ${e.message} (${e.cause ?? ''}); the service ${exit}; its last output: ${svc?.outputTail()}`);
    });
    const text = await res.text();
    const expected = opts.status ?? (method === 'GET' ? 200 : undefined);
    if (expected !== undefined ? res.status !== expected : res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text.slice(0, 500)}`);
    return text ? JSON.parse(text) : undefined;
  }

  // -------------------------------------------------------------------------------------------
  // Data, through the public API.
  const T_END = Math.floor(Date.now() / MINUTE) * MINUTE - MINUTE;
  const T_START = T_END - 24 * HOUR;
  const STEP = 5 * MINUTE;
  const N = (T_END - T_START) / STEP;
  const flowValue = (i: number) => Math.round((50 + 10 * Math.sin(i / 20)) * 10) / 10;
  const tempValue = (i: number) => Math.round((20 + 3 * Math.cos(i / 30)) * 10) / 10;
  const fileBytes = new Uint8Array(randomBytes(5000));

  const data = await createData();
  async function createData() {
    const seriesItems = (withUnits: boolean) => [
      { externalId: 'flow', name: 'Flow FT-101', valueType: 'FLOAT', description: 'Outlet flow of pump P-101', ...(withUnits ? { unit: 'm3/h' } : {}) },
      { externalId: 'temp', name: 'Temperature TT-102', valueType: 'FLOAT', description: 'Bearing temperature', ...(withUnits ? { unit: 'degC' } : {}) },
      { externalId: 'xss', name: XSS_NAME, valueType: 'FLOAT', description: XSS_NAME },
    ];
    // Without units if the catalogue refused a symbol (all-or-nothing, so nothing was written).
    const series = (await api('POST', '/timeseries/create', { items: seriesItems(true) })
      .catch(() => api('POST', '/timeseries/create', { items: seriesItems(false) }))).items as Series[];
    const [flow, temp, xss] = series as [Series, Series, Series];
    t.comment(`series ${series.map((s) => `${s.id} ${JSON.stringify(s.name)} unit ${s.unit ?? '-'}`).join('; ')}`);
    const points = (f: (i: number) => number) => Array.from({ length: N }, (_, i) => ({ timestamp: T_START + i * STEP, value: f(i) }));
    await api('POST', '/timeseries/data', { items: [
      { id: flow.id, datapoints: points(flowValue) },
      { id: temp.id, datapoints: points(tempValue) },
      { id: xss.id, datapoints: points((i) => i % 10) },
    ] });
    const tree = await api('POST', '/resources/create', {
      nodes: [
        { externalId: 'oslo', name: 'Oslo plant', isRoot: true, description: 'Site' },
        { externalId: 'p-101', name: 'P-101', description: 'Feed pump' },
      ],
      relations: [{ fromExternalId: 'oslo', toExternalId: 'p-101', relationshipType: 'CONTAINS' }],
    }, { status: 201 });
    const [root, pump] = tree.items as [Resource, Resource];
    await api('POST', '/edges/create', { items: [{ fromExternalId: 'p-101', toExternalId: 'flow', relationshipType: 'HAS_TIMESERIES' }] }, { status: 201 });
    await api('POST', '/policies/create', { items: [
      { externalId: 'resource-names', name: 'Tag names', description: 'Resource names are tags like P-101', target: 'resource', field: 'name', pattern: '[A-Z]+-\\d{3}', mode: 'advisory' },
    ] }, { status: 201 });
    const valve = (await api('POST', '/resources/create', {
      nodes: [{ externalId: 'valve-7', name: 'valve 7', description: 'Outlet valve' }],
      relations: [{ fromExternalId: 'oslo', toExternalId: 'valve-7', relationshipType: 'CONTAINS' }],
    }, { status: 201 })).items[0] as Resource;
    await api('POST', '/events/create', { items: [
      ...[3, 9, 15, 21].map((h, i) => ({
        externalId: `alarm-${i}`, type: 'alarm', subType: 'vibration', eventTime: T_START + h * HOUR,
        description: i === 0 ? `Vibration high ${XSS_EVENT}` : `Vibration high (${i})`, relatedResources: [{ id: pump.id }],
      })),
      { externalId: 'maint-1', type: 'maintenance', eventTime: T_START + 12 * HOUR, description: 'Bearing greased', relatedResources: [{ id: pump.id }] },
    ] }, { status: 201 });
    const findings = (await api('POST', '/policies/findings', { filter: { state: 'OPEN' } })).items as { nodeId: string; offendingValue: string }[];
    t.match(findings, [{ nodeId: String(valve.id), offendingValue: 'valve 7' }], 'the advisory policy raised a finding on the valve');
    await api('PUT', `/files?path=${encodeURIComponent('reports/2024/pump-log.bin')}`, undefined, { raw: fileBytes, status: 201 });
    await api('PUT', '/files?path=readme.txt', undefined, { raw: new TextEncoder().encode('Plant files\n'), contentType: 'text/plain', status: 201 });
    return { flow, temp, xss, root, pump, valve };
  }

  // -------------------------------------------------------------------------------------------
  // HTTP-level checks of what the console is served with.
  let consoleServed = false;
  await t.test('GET / redirects to /console/; the console carries the CSP', async (t) => {
    const root = await fetch(`${url}/`, { redirect: 'manual' });
    t.equal(root.status, 302, 'GET / is a 302');
    t.match(root.headers.get('location') ?? '', /\/console\/$/, 'to /console/');
    for (const p of ['/console/', '/console/console.js', '/console/console.css']) {
      const res = await fetch(url + p);
      await res.arrayBuffer();
      t.equal(res.status, 200, `${p} is served (build it with: node console/build.mjs)`);
      if (p === '/console/') consoleServed = res.status === 200;
      const csp = res.headers.get('content-security-policy') ?? '';
      const scriptSrc = /(?:^|;)\s*script-src([^;]*)/.exec(csp)?.[1] ?? '';
      t.match(scriptSrc, /'self'/, `${p}: script-src 'self' (CSP: ${csp || 'none'})`);
      t.notMatch(csp, /unsafe-inline|unsafe-eval/, `${p}: no 'unsafe-inline' or 'unsafe-eval'`);
      t.match(csp, /default-src 'none'/, `${p}: default-src 'none'`);
      t.match(csp, /frame-ancestors 'none'/, `${p}: frame-ancestors 'none'`);
    }
    const config = await fetch(`${url}/console/config.json`);
    t.equal(config.status, 200, 'config.json needs no token');
    t.same(await config.json().catch(() => null), { oauth: true }, 'the dev OAuth client is configured');
  });

  // -------------------------------------------------------------------------------------------
  // The browser.
  browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  if (!consoleServed) {
    t.fail(`GET /console/ is not served (chromium ${await browser.version()} started): nothing to drive; build with node console/build.mjs`);
    return;
  }
  const cdp: CDPSession = await browser.target().createCDPSession();
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'allow', downloadPath: downloadDir, eventsEnabled: true });
  /** Resolves with the downloaded file's bytes once Chromium reports the download complete. */
  function nextDownload(): Promise<{ name: string; bytes: Buffer }> {
    return new Promise((resolve, reject) => {
      let name = '';
      let guid = '';
      const timer = setTimeout(() => { cleanup(); reject(new Error(`no download completed within ${WAIT_MS} ms`)); }, WAIT_MS);
      const begin = (e: { guid: string; suggestedFilename: string }) => { if (!guid) { guid = e.guid; name = e.suggestedFilename; } };
      const progress = (e: { guid: string; state: string }) => {
        if (e.guid !== guid) return;
        if (e.state === 'canceled') { cleanup(); reject(new Error(`download of ${name} canceled`)); }
        if (e.state === 'completed') { cleanup(); resolve({ name, bytes: readFileSync(path.join(downloadDir, name)) }); }
      };
      const cleanup = () => { clearTimeout(timer); cdp.off('Browser.downloadWillBegin', begin); cdp.off('Browser.downloadProgress', progress); };
      cdp.on('Browser.downloadWillBegin', begin);
      cdp.on('Browser.downloadProgress', progress);
    });
  }

  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];
  async function newPage(context?: BrowserContext): Promise<Page> {
    const page = await (context ?? browser!.defaultBrowserContext()).newPage();
    page.setDefaultTimeout(WAIT_MS);
    await page.setViewport({ width: 1280, height: 800 });
    await page.emulateMediaFeatures([{ name: 'prefers-reduced-motion', value: 'reduce' }, { name: 'prefers-color-scheme', value: 'light' }]);
    page.on('dialog', (d) => { dialogs.push(`${d.type()}: ${d.message()}`); void d.dismiss(); });
    page.on('pageerror', (e) => pageErrors.push(String((e as Error).message ?? e)));
    page.on('console', (m) => { if (/Content Security Policy|Refused to/i.test(m.text())) cspViolations.push(m.text()); });
    return page;
  }

  /** A page in a fresh browser context (its own session storage), closed after `use`. */
  async function inFreshContext(use: (page: Page) => Promise<void>): Promise<void> {
    const context = await browser!.createBrowserContext();
    try {
      await use(await newPage(context));
    } finally {
      await context.close();
    }
  }
  const shot = (page: Page, view: string) => page.screenshot({ path: path.join(screenshotDir, `${view}.png`) as `${string}.png`, fullPage: true });

  async function signInWithField(page: Page, tok: string): Promise<void> {
    await page.goto(`${url}/console/`);
    await page.waitForSelector(SIGN_IN);
    await page.locator(aria('Access token')).fill(tok);
    await page.locator(`${SIGN_IN} ${aria('Sign in', 'button')}`).click();
  }
  const signInAlert = (page: Page) => page.waitForFunction((sel: string) => {
    const alert = document.querySelector(`${sel} [role="alert"]`) ?? (document.querySelector(sel) ? document.querySelector('[role="alert"]') : null);
    const text = (alert?.textContent ?? '').trim();
    return text || false;
  }, { timeout: WAIT_MS, polling: 50 }, SIGN_IN).then((h) => h.jsonValue() as Promise<string>);

  const page = await newPage();
  const urlsWithToken: string[] = [];
  page.on('request', (r) => { if (r.url().includes(TOKEN)) urlsWithToken.push(r.url().slice(0, 80)); });

  await t.test('sign in with the Access token field', async (t) => {
    await page.goto(`${url}/console/`);
    await page.waitForSelector(SIGN_IN);
    t.ok(await page.$(aria('Access token')), 'an input labelled "Access token"');
    t.equal(await page.$eval(aria('Access token'), (e) => (e as HTMLInputElement).type), 'password', 'of type password');
    await page.waitForSelector(aria('Client ID'));
    t.pass('the client-credentials fields, since the dev OAuth client is configured');
    await shot(page, 'sign-in');
    await signInWithField(page, TOKEN);
    const identity = await page.waitForSelector('header [data-testid="identity"]');
    await page.waitForFunction(() => /alice/.test(document.querySelector('[data-testid="identity"]')?.textContent ?? ''));
    const who = await identity!.evaluate((e) => e.textContent ?? '');
    t.match(who, SUB, 'identity names the subject');
    t.match(who, ORG, 'and the organization');
    t.match(await page.$eval('[data-testid="readable-datasets"]', (e) => e.textContent ?? ''), /All data sets/, 'readable data sets: all');
    const storage = await page.evaluate(() => ({
      session: sessionStorage.getItem('plantdata.token'),
      local: Object.keys(localStorage).map((k) => localStorage.getItem(k) ?? ''), cookie: document.cookie,
    }));
    t.equal(storage.session, TOKEN, 'the token is kept in sessionStorage plantdata.token');
    t.notOk(storage.local.some((v) => v.includes(TOKEN)), 'not in localStorage');
    t.equal(storage.cookie, '', 'no cookie');
    for (const [name, hash] of [['Time series', '#/timeseries'], ['Assets', '#/assets'], ['Governance', '#/governance'], ['Files', '#/files']]) {
      const href = await page.$eval(`nav[aria-label="Main"] ${aria(name!, 'link')}`, (a) => a.getAttribute('href') ?? '').catch(() => null);
      t.equal(href, hash, `nav link "${name}" leads to ${hash}`);
    }
  });

  await t.test('time series: list, search, open a chart by name', async (t) => {
    await go(page, '#/timeseries');
    const search = await page.waitForSelector(aria('Search time series'));
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="series-row"]').length >= 3);
    const rows = await page.$$eval('[data-testid="series-row"]', (rs) => rs.map((r) => (r.textContent ?? '')));
    t.ok(rows.some((r) => r.includes('Flow FT-101') && r.includes('flow') && r.includes('FLOAT')), 'the list shows name, external ID and value type');
    if (data.flow.unit) t.ok(rows.some((r) => r.includes('Flow FT-101') && r.includes(data.flow.unit!)), 'and the unit');
    t.ok(await page.$('h1'), 'the view has an <h1>');
    await shot(page, 'timeseries');
    await search!.click({ count: 3 });
    await search!.type('Flow FT');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => {
      const first = document.querySelector('[data-testid="series-row"]');
      return (first?.textContent ?? '').includes('Flow FT-101');
    });
    t.pass('the search ranks "Flow FT-101" first');
    if (data.flow.unit) {
      // A term narrows the list by the filter the search applies: here the unit alone.
      await search!.click({ count: 3 });
      await search!.type('unit:degC');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => {
        const rows = Array.from(document.querySelectorAll('[data-testid="series-row"]'), (r) => r.textContent ?? '');
        return rows.length === 1 && rows[0]!.includes('Temperature TT-102');
      }, { timeout: WAIT_MS }).then(() => t.pass('unit:degC lists the temperature series only'), (e: Error) => t.fail(`unit:degC: ${e.message}`));
      await search!.click({ count: 3 });
      await search!.type('Flow FT');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => (document.querySelector('[data-testid="series-row"]')?.textContent ?? '').includes('Flow FT-101'));
    }
    await clickByText(page, '[data-testid="series-row"]', 'Flow FT-101');
    await page.waitForFunction((id: number) => location.hash.startsWith(`#/chart?ids=${id}`), {}, data.flow.id);
    const state = await waitChart(page);
    t.match(state.label, 'Flow FT-101', 'clicking the name opens its chart');
  });

  await t.test('a hostile series name is shown as text', async (t) => {
    await go(page, '#/timeseries');
    const search = await page.waitForSelector(aria('Search time series'));
    await search!.click({ count: 3 });
    await page.keyboard.press('Backspace');
    await search!.type(XSS_NAME);
    await page.keyboard.press('Enter');
    await page.waitForFunction((name: string) => Array.from(document.querySelectorAll('[data-testid="series-row"]')).some((r) => (r.textContent ?? '').includes(name)), {}, XSS_NAME);
    t.pass('the row shows the characters of the name');
    const imgs = () => page.$$eval('img', (is) => is.filter((i) => i.getAttribute('src') === 'x').length);
    t.equal(await imgs(), 0, 'no <img src=x> in the list');
    await clickByText(page, '[data-testid="series-row"]', XSS_NAME);
    const state = await waitChart(page);
    t.match(state.label, XSS_NAME, 'the chart is labelled with the name as text');
    t.equal(await imgs(), 0, 'no <img src=x> on the chart');
    t.same(dialogs, [], 'no dialog fired');
  });

  await t.test('Open chart with two series checked', async (t) => {
    await go(page, '#/timeseries');
    const search = await page.waitForSelector(aria('Search time series'));
    await search!.click({ count: 3 });
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="series-row"]').length >= 3);
    const open = await page.waitForSelector(aria('Open chart', 'button'));
    t.ok(await open!.evaluate((b) => (b as HTMLButtonElement).disabled), '"Open chart" is disabled with nothing checked');
    await page.locator(aria('Plot Flow FT-101', 'checkbox')).click();
    await page.locator(aria('Plot Temperature TT-102', 'checkbox')).click();
    await page.waitForFunction((b: Element) => !(b as HTMLButtonElement).disabled, {}, open!);
    t.pass('"Open chart" is enabled once a series is checked');
    await page.locator(aria('Open chart', 'button')).click();
    await page.waitForFunction(() => location.hash.startsWith('#/chart?ids='));
    const ids = decodeURIComponent((/ids=([^&]*)/.exec(await hashOf(page)) ?? [])[1] ?? '').split(',').map(Number).sort();
    t.same(ids, [data.flow.id, data.temp.id].sort(), 'the chart URL names both series');
    const state = await waitChart(page);
    t.match(state.label, 'Flow FT-101', 'labelled with the first name');
    t.match(state.label, 'Temperature TT-102', 'and the second');
  });

  const chartHash = (start: number, end: number, id = data.flow.id) => `#/chart?ids=${id}&start=${start}&end=${end}`;

  await t.test('chart: drawn range, granularity and values match the API; table; CSV export', async (t) => {
    const s = await openChart(page, chartHash(T_START, T_END), T_START, T_END);
    t.equal(s.start, T_START, 'data-start is the range asked for');
    t.equal(s.end, T_END, 'data-end is the range asked for');
    t.match(s.label, `from ${new Date(T_START).toISOString()} to ${new Date(T_END).toISOString()}`, 'aria-label names the range in ISO');
    t.equal(s.granularity, '1m', 'a day is drawn at 1m');
    const agg = (await api('POST', '/timeseries/data/list', { items: [{ id: data.flow.id, start: T_START, end: T_END, aggregates: ['AVG', 'MIN', 'MAX', 'COUNT'], granularity: '1m', limit: 10_000 }] })).items[0].datapoints as { timestamp: number; average: string }[];
    t.equal(agg.length, N, 'the API has a bucket per point');
    t.equal(s.points, agg.length, 'data-points is the number of buckets the API answers');

    await page.locator(aria('Show table', 'button')).click();
    await page.waitForSelector(TABLE);
    await page.waitForFunction((sel: string, n: number) => document.querySelectorAll(`${sel} td`).length >= n, {}, TABLE, agg.length);
    const headers = await page.$$eval(`${TABLE} th`, (ths) => ths.map((h) => (h.textContent ?? '').trim()));
    t.ok(headers.some((h) => /^Time/.test(h)), 'a Time column');
    t.ok(headers.some((h) => h.includes('Flow FT-101')), 'a column for the series');
    const rows = await tableRows(page);
    t.equal(rows.length, agg.length, 'a table row per bucket');
    const matches = (order: typeof agg) => rows.findIndex((r, i) => Math.abs(firstNumber(r[1] ?? '') - Number(order[i]?.average)) > 0.051);
    const asc = matches(agg);
    const desc = asc === -1 ? -1 : matches([...agg].reverse());
    t.ok(asc === -1 || desc === -1, asc === -1 ? 'the table values are the API averages' : `table row ${asc} is ${JSON.stringify(rows[asc])}, the API says ${agg[asc]?.average}`);
    const times = rows.map((r) => Date.parse(r[0] ?? ''));
    if (times.every(Number.isFinite)) {
      const order = asc === -1 ? agg : [...agg].reverse();
      t.ok(times.every((ms, i) => Math.abs(ms - (order[i]?.timestamp ?? 0)) < MINUTE), 'the Time column is each bucket\'s time');
    } else {
      t.comment(`the Time column does not parse as a date (e.g. ${JSON.stringify(rows[0]?.[0])}); its times are not compared`);
    }
    await shot(page, 'chart-table');

    const download = nextDownload();
    await page.locator(aria('Export CSV', 'button')).click();
    const csv = await download;
    t.equal(csv.name, 'Flow FT-101.csv', 'the export is named after the series');
    const lines = csv.bytes.toString('utf8').trim().split(/\r?\n/);
    const body = lines.slice(1).map((l) => l.split(','));
    t.equal(body.length, s.points, 'a CSV row per drawn point');
    t.ok(body.every((cells) => {
      const ms = Date.parse((cells[0] ?? '').replace(/"/g, ''));
      return /^"?\d{4}-\d\d-\d\dT/.test(cells[0] ?? '') && ms >= T_START && ms < T_END;
    }), 'the first column is an ISO time inside the visible range');
    await page.locator(aria('Show table', 'button')).click().catch(() => undefined);
  });

  await t.test('event marks of a type, and their details', async (t) => {
    await openChart(page, chartHash(T_START, T_END), T_START, T_END);
    const table = await page.$(TABLE);
    if (table) await page.locator(aria('Show table', 'button')).click();
    t.equal(await page.$$eval('[data-testid="event-mark"]', (m) => m.length), 0, 'no marks without an event type');
    const typeInput = await page.waitForSelector(aria('Event type'));
    await typeInput!.type('alarm');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="event-mark"]').length >= 4);
    const labels = await page.$$eval('[data-testid="event-mark"]', (ms) => ms.map((m) => m.getAttribute('aria-label') ?? ''));
    t.equal(labels.length, 4, 'a mark per alarm in the range (the maintenance event is not one)');
    const expected = [3, 9, 15, 21].map((h) => `Event alarm at ${new Date(T_START + h * HOUR).toISOString()}`);
    t.same([...labels].sort(), expected.sort(), 'marks are labelled "Event <type> at <ISO time>"');
    await shot(page, 'chart');
    const first = await page.$(`[data-testid="event-mark"][aria-label="${expected[0]}"]`) ?? (await page.$$('[data-testid="event-mark"]'))[0];
    await first!.focus();
    await page.keyboard.press('Enter');
    const dialog = await page.waitForSelector(DIALOG);
    const text = await dialog!.evaluate((d) => d.textContent ?? '');
    t.match(text, 'alarm', 'the dialog shows the type');
    t.match(text, 'vibration', 'and the subtype');
    t.match(text, XSS_EVENT, 'and the description, as text');
    t.equal(await page.$$eval('img', (is) => is.filter((i) => i.getAttribute('src') === 'x').length), 0, 'no <img src=x> from the description');
    await page.locator(`:is(${DIALOG}) ${aria('Close', 'button')}`).click();
    await page.waitForSelector(DIALOG, { hidden: true });
    t.pass('"Close" closes the dialog');
    t.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName), 'event-mark', 'focus returns to the mark');
  });

  await t.test('zoom and pan by mouse (wheel, drag) and touch (one finger pans, two pinch)', async (t) => {
    let s = await openChart(page, chartHash(T_START, T_END), T_START, T_END);
    const over = await page.$(`${CHART} .u-over`);
    const box = (await over!.boundingBox())!;
    const y = box.y + box.height / 2;
    const span = (c: ChartState) => c.end - c.start;
    // The wheel zooms around the pointer.
    let before = s;
    await page.mouse.move(box.x + box.width / 2, y);
    await page.mouse.wheel({ deltaY: -200 });
    s = await waitChart(page, before);
    t.ok(span(s) < span(before) && s.start > before.start && s.end < before.end, 'the wheel zooms in around the pointer');
    // A drag across the plot selects the range to zoom to.
    before = s;
    await page.mouse.move(box.x + box.width * 0.25, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.5, y, { steps: 5 });
    await page.mouse.up();
    s = await waitChart(page, before);
    t.ok(span(s) < span(before) * 0.4 && s.start > before.start && s.end < before.end, 'a drag zooms to the span selected');
    // Touch, through the DevTools protocol as a touch screen sends it.
    const cdp = await page.createCDPSession();
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: true, maxTouchPoints: 2 });
    const touch = async (type: 'touchStart' | 'touchMove' | 'touchEnd', xs: number[]) =>
      cdp.send('Input.dispatchTouchEvent', { type, touchPoints: xs.map((x, id) => ({ x, y, id })) });
    before = s;
    await touch('touchStart', [box.x + box.width * 0.6]);
    for (const f of [0.55, 0.5, 0.45, 0.4]) await touch('touchMove', [box.x + box.width * f]);
    await touch('touchEnd', []);
    s = await waitChart(page, before);
    t.ok(s.start > before.start && Math.abs(span(s) - span(before)) <= 1, 'one finger dragged left pans forward in time, same span');
    before = s;
    await touch('touchStart', [box.x + box.width * 0.45, box.x + box.width * 0.55]);
    for (const f of [0.07, 0.1, 0.15, 0.2]) await touch('touchMove', [box.x + box.width * (0.5 - f), box.x + box.width * (0.5 + f)]);
    await touch('touchEnd', []);
    s = await waitChart(page, before);
    t.ok(span(s) < span(before), 'two fingers spread apart zoom in');
    await cdp.send('Emulation.setTouchEmulationEnabled', { enabled: false });
    await cdp.detach();
  });

  await t.test('zoom and pan by button and keyboard', async (t) => {
    let s = await openChart(page, chartHash(T_START, T_END), T_START, T_END);
    const s0 = s;
    await page.locator(aria('Zoom in', 'button')).click();
    s = await waitChart(page, s);
    t.ok(s.end - s.start < s0.end - s0.start && s.start >= s0.start && s.end <= s0.end, `"Zoom in" narrows the range (${(s0.end - s0.start) / HOUR} h -> ${(s.end - s.start) / HOUR} h)`);
    const chart = await page.$(CHART);
    await chart!.focus();
    t.equal(await page.evaluate((sel: string) => document.activeElement === document.querySelector(sel), CHART), true, 'the chart takes focus');
    let steps = 0;
    while (s.granularity !== 'raw' && steps < 8) {
      const before = s;
      await page.keyboard.press('+');
      s = await waitChart(page, s);
      t.ok(s.end - s.start < before.end - before.start, `"+" narrows the range to ${((s.end - s.start) / HOUR).toFixed(2)} h (${s.granularity})`);
      steps++;
    }
    t.ok(steps >= 1, 'the keyboard zoomed at least once');
    t.equal(s.granularity, 'raw', 'zoomed in to raw points');
    t.ok((GRANULARITY_RANK[s.granularity] ?? 9) < (GRANULARITY_RANK[s0.granularity] ?? 9), `granularity became finer (${s0.granularity} -> ${s.granularity})`);
    const raw = (await api('POST', '/timeseries/data/list', { items: [{ id: data.flow.id, start: s.start, end: s.end, limit: 10_000 }] })).items[0].datapoints as unknown[];
    t.equal(s.points, raw.length, 'data-points is the number of raw points the API has in the range');
    t.match(await hashOf(page), `start=${s.start}`, 'the URL follows the range');

    const beforePan = s;
    await page.keyboard.press('ArrowLeft');
    s = await waitChart(page, s);
    t.ok(s.start < beforePan.start && Math.abs((s.end - s.start) - (beforePan.end - beforePan.start)) <= 1, 'ArrowLeft pans back in time, same span');
    const beforeRight = s;
    await page.locator(aria('Pan right', 'button')).click();
    s = await waitChart(page, s);
    t.ok(s.start > beforeRight.start, '"Pan right" pans forward');
    const beforeOut = s;
    await chart!.focus();
    await page.keyboard.press('-');
    s = await waitChart(page, s);
    t.ok(s.end - s.start > beforeOut.end - beforeOut.start, '"-" widens the range');
    const beforeButtonOut = s;
    await page.locator(aria('Zoom out', 'button')).click();
    s = await waitChart(page, s);
    t.ok(s.end - s.start > beforeButtonOut.end - beforeButtonOut.start, '"Zoom out" widens the range');
    // An address naming another range of the same series (a link, an edited URL, history).
    const back = await openChart(page, chartHash(T_START, T_END), T_START, T_END).then(() => true, (e: Error) => e.message);
    t.equal(back, true, 'a new range in the address is drawn while the chart of the same series is shown');
  });

  await t.test('live: a point written through the API appears', async (t) => {
    const now = Date.now();
    // Through another view, so this does not depend on the chart following its address.
    await go(page, '#/timeseries');
    await page.waitForSelector(aria('Search time series'));
    const s = await openChart(page, chartHash(now - 30 * MINUTE, now + 30 * MINUTE), now - 30 * MINUTE, now + 30 * MINUTE);
    t.equal(s.granularity, 'raw', 'an hour is drawn raw');
    if (!(await page.$(TABLE))) await page.locator(aria('Show table', 'button')).click();
    await page.waitForSelector(TABLE);
    const live = await page.waitForSelector(aria('Live', 'switch'));
    await live!.click();
    t.equal(await live!.evaluate((e) => (e as HTMLInputElement).checked), true, 'the Live switch is on');
    // Written until seen: the subscription is set up asynchronously after the switch.
    const written: string[] = [];
    const deadline = Date.now() + 12_000;
    let seen = '';
    while (!seen && Date.now() < deadline) {
      const value = `${900 + written.length}.5`;
      await api('POST', '/timeseries/data', { items: [{ id: data.flow.id, datapoints: [{ timestamp: Date.now(), value }] }] });
      written.push(value);
      const found = await page.waitForFunction((sel: string, values: string[]) => {
        const text = document.querySelector(sel)?.textContent ?? '';
        return values.find((v) => text.includes(v)) ?? false;
      }, { timeout: 1500, polling: 50 }, TABLE, written).then((h) => h.jsonValue() as Promise<string>).catch(() => '');
      seen = found;
    }
    t.ok(seen, `a live point shows in the table (${written.length} written: ${written.join(', ')})`);
    const after = await chartState(page);
    t.ok(after.points > s.points, `data-points grew (${s.points} -> ${after.points})`);
    await live!.click();
    t.equal(await live!.evaluate((e) => (e as HTMLInputElement).checked), false, 'Live off');
  });

  await t.test('assets: the tree expands to a child; the resource page shows its sections', async (t) => {
    await go(page, '#/assets');
    await page.waitForSelector('[role="tree"][aria-label="Asset tree"]');
    const rootItem = await page.waitForFunction(() => Array.from(document.querySelectorAll('[role="treeitem"]')).find((e) => (e.textContent ?? '').includes('Oslo plant')) ?? false);
    const root = rootItem as unknown as ElementHandle<Element>;
    t.equal(await root.evaluate((e) => e.getAttribute('aria-expanded')), 'false', 'the root starts collapsed');
    await root.evaluate((e) => (e as HTMLElement).focus());
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction(() => Array.from(document.querySelectorAll('[role="treeitem"]')).some((e) => (e.textContent ?? '').includes('P-101')));
    t.equal(await root.evaluate((e) => e.getAttribute('aria-expanded')), 'true', 'ArrowRight expands the root');
    await shot(page, 'assets');
    const activeItem = () => page.evaluate(() => {
      const active = document.activeElement;
      const ad = active?.getAttribute('aria-activedescendant');
      const item = (ad ? document.getElementById(ad) : active)?.closest('[role="treeitem"]');
      if (!item) return '';
      // The item's own text, without its expanded children's.
      const own = item.cloneNode(true) as Element;
      own.querySelectorAll('[role="group"], [role="treeitem"]').forEach((e) => e.remove());
      return (own.textContent ?? '').trim();
    });
    // Each press moves focus once the tree has re-rendered: wait for the move before the next.
    for (let i = 0; i < 4 && !(await activeItem()).includes('P-101'); i++) {
      const before = await activeItem();
      await page.keyboard.press('ArrowDown');
      for (let poll = 0; poll < 100 && (await activeItem()) === before; poll++) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    t.match(await activeItem(), 'P-101', 'ArrowDown reaches the child');
    await page.keyboard.press('Enter');
    await page.waitForFunction((id: number) => location.hash === `#/assets/${id}`, {}, data.pump.id);
    await page.waitForSelector('[data-testid="resource-page"]');
    await page.waitForFunction(() => (document.querySelector('main h1')?.textContent ?? '').trim() === 'P-101');
    t.pass('Enter opens the resource page');
    for (const h of ['Time series', 'Events', 'Edges out', 'Edges in', 'Policy findings']) {
      t.ok(await page.waitForFunction((txt: string) => Array.from(document.querySelectorAll('main h2')).some((e) => (e.textContent ?? '').trim() === txt), {}, h).catch(() => false), `section "${h}"`);
    }
    await page.waitForFunction(() => /Flow FT-101/.test(document.querySelector('[data-testid="resource-page"]')?.textContent ?? '') && /alarm/.test(document.querySelector('[data-testid="resource-page"]')?.textContent ?? '')).catch(() => undefined);
    await sectionHolds(page, 'Time series', 'Flow FT-101');
    t.match(await sectionText(page, 'Time series'), 'Flow FT-101', 'its time series (the end of its edge)');
    await sectionHolds(page, 'Events', 'alarm');
    t.match(await sectionText(page, 'Events'), 'alarm', 'its events');
    await sectionHolds(page, 'Edges out', 'HAS_TIMESERIES');
    t.match(await sectionText(page, 'Edges out'), 'HAS_TIMESERIES', 'edges out with their type');
    await sectionHolds(page, 'Edges in', 'Oslo plant');
    const edgesIn = await sectionText(page, 'Edges in');
    t.match(edgesIn, 'CONTAINS', 'edges in with their type');
    t.match(edgesIn, 'Oslo plant', 'and the other end');
    const rootLink = await page.evaluate((id: number) => Array.from(document.querySelectorAll('main a')).some((a) => a.getAttribute('href') === `#/assets/${id}`), data.root.id);
    t.ok(rootLink, 'the other end is a link to its page');
    await shot(page, 'resource');
    // Its series' chart marks the resource's own events (four alarms and the maintenance).
    await page.$eval(`[data-testid="resource-page"] a[href^="#/chart?ids=${data.flow.id}&resources=${data.pump.id}"]`, (a) => (a as HTMLElement).click());
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="event-mark"]').length === 5, { timeout: WAIT_MS }).catch(() => undefined);
    const marks = await page.$$eval('[data-testid="event-mark"]', (ms) => ms.map((m) => m.getAttribute('aria-label') ?? ''));
    t.equal(marks.length, 5, 'the chart opened from the resource marks its five events');
    t.ok(marks.some((label) => label.startsWith('Event maintenance')), 'of every type, the maintenance too');
  });

  await t.test('governance: policies and a finding linking to its resource', async (t) => {
    await go(page, '#/governance');
    await page.waitForSelector('[data-testid="finding-row"]');
    await sectionHolds(page, 'Policies', 'resource-names');
    t.match(await sectionText(page, 'Policies'), /resource-names[\s\S]*advisory|advisory[\s\S]*resource-names/, 'the policy with its mode');
    const row = await page.$eval('[data-testid="finding-row"]', (r) => ({ text: r.textContent ?? '', links: Array.from(r.querySelectorAll('a'), (a) => a.getAttribute('href')) }));
    t.match(row.text, 'OPEN', 'the finding is open');
    t.match(row.text, 'valve 7', 'with the offending value');
    t.match(row.text, 'resource-names', 'and the policy');
    t.ok(row.links.includes(`#/assets/${data.valve.id}`), `the resource is a link to #/assets/${data.valve.id}`);
    await shot(page, 'governance');
    await page.select(aria('State'), 'RESOLVED').catch(async () => page.select('select', 'RESOLVED'));
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="finding-row"]').length === 0);
    t.pass('State RESOLVED shows no finding');
    await page.select(aria('State'), 'OPEN').catch(async () => page.select('select', 'OPEN'));
    await page.waitForSelector('[data-testid="finding-row"]');
    await page.$eval(`[data-testid="finding-row"] a[href="#/assets/${data.valve.id}"]`, (a) => (a as HTMLElement).click());
    await page.waitForFunction((id: number) => location.hash === `#/assets/${id}`, {}, data.valve.id);
    await page.waitForFunction(() => (document.querySelector('main h1')?.textContent ?? '').trim() === 'valve 7');
    await page.waitForFunction(() => /OPEN/.test(document.querySelector('[data-testid="resource-page"]')?.textContent ?? '')).catch(() => undefined);
    await sectionHolds(page, 'Policy findings', 'OPEN');
    const findings = await sectionText(page, 'Policy findings');
    t.match(findings, 'OPEN', 'the resource page lists the finding');
    t.match(findings, 'valve 7', 'with its offending value');
  });

  await t.test('files: folders, and a download byte for byte', async (t) => {
    await go(page, '#/files');
    await page.waitForFunction(() => Array.from(document.querySelectorAll('[data-testid="file-row"]')).some((r) => (r.textContent ?? '').includes('readme.txt')));
    await page.locator(aria('reports/', 'link')).wait();
    await shot(page, 'files');
    await page.locator(aria('reports/', 'link')).click();
    await page.locator(aria('2024/', 'link')).click();
    await page.waitForFunction(() => Array.from(document.querySelectorAll('[data-testid="file-row"]')).some((r) => (r.textContent ?? '').includes('pump-log.bin')));
    t.match(await hashOf(page), /^#\/files\/reports\/2024\/?$/, 'the URL names the folder');
    const row = await page.$eval('[data-testid="file-row"]', (r) => r.textContent ?? '');
    t.match(row, /5[,.\s\u00a0\u202f]?000|4\.9|4\.88|5(\.0)?\s*k/i, 'the row shows the size');
    const download = nextDownload();
    await page.locator(aria('Download pump-log.bin', 'button')).click();
    const file = await download;
    t.equal(file.name, 'pump-log.bin', 'saved under its name');
    t.ok(Buffer.compare(file.bytes, Buffer.from(fileBytes)) === 0, `the bytes are the uploaded ones (${file.bytes.length} of ${fileBytes.length})`);
  });

  await t.test('keyboard only: Tab reaches the controls, each with a visible focus outline', async (t) => {
    /** Tabs through the page until every name is met (or `max` presses); returns what was met and the unmarked ones. */
    async function walk(names: string[], max: number) {
      await page.evaluate(() => { (document.activeElement as HTMLElement | null)?.blur(); window.scrollTo(0, 0); });
      const met = new Set<string>();
      const unmarked = new Set<string>();
      let moved = 0;
      let last = '';
      for (let i = 0; i < max && names.some((n) => !met.has(n)); i++) {
        await page.keyboard.press('Tab');
        const f = await page.evaluate(() => {
          const el = document.activeElement as HTMLElement | null;
          if (!el || el === document.body) return null;
          const labelled = el.getAttribute('aria-labelledby');
          const name = el.getAttribute('aria-label')
            ?? (labelled ? document.getElementById(labelled)?.textContent : null)
            ?? ((el as HTMLInputElement).labels?.[0]?.textContent)
            ?? el.textContent ?? '';
          const cs = getComputedStyle(el);
          const outline = cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0;
          const shadow = !!cs.boxShadow && cs.boxShadow !== 'none';
          return { name: name.trim(), tag: el.tagName.toLowerCase(), id: el.outerHTML.slice(0, 80), visible: outline || shadow };
        });
        if (!f) continue;
        if (f.id !== last) moved++;
        last = f.id;
        const key = names.find((n) => f.name === n || (n.endsWith('*') && f.name.startsWith(n.slice(0, -1))));
        if (key) met.add(key);
        if (!f.visible) unmarked.add(`${f.tag} "${f.name.slice(0, 40)}"`);
      }
      return { met, unmarked, moved };
    }
    await go(page, '#/timeseries');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="series-row"]').length >= 1);
    const shell = ['Time series', 'Assets', 'Governance', 'Files', 'Search time series', 'Sign out'];
    const a = await walk(shell, 40);
    t.ok(a.moved >= shell.length, `focus moved through ${a.moved} controls`);
    t.same(shell.filter((n) => !a.met.has(n)), [], 'Tab reaches the nav links, the search field and Sign out');
    t.same([...a.unmarked], [], 'every focused control shows a focus outline');
    await openChart(page, chartHash(T_START, T_END), T_START, T_END);
    const controls = ['Zoom in', 'Zoom out', 'Pan left', 'Pan right', 'Show table', 'Export CSV', 'Live', 'Event type', 'Flow FT-101*'];
    const b = await walk(controls, 60);
    t.same(controls.filter((n) => !b.met.has(n)), [], 'Tab reaches every chart control and the chart itself');
    t.same([...b.unmarked], [], 'every focused chart control shows a focus outline');
  });

  await t.test('#token= signs in and leaves the address', async (t) => {
    await inFreshContext(async (p) => {
    const tok = token({ sub: 'bob' });
    await p.goto(`${url}/console/#token=${tok}`);
    await p.waitForFunction(() => /bob/.test(document.querySelector('[data-testid="identity"]')?.textContent ?? ''));
    t.pass('signed in from the fragment');
    const href = await p.evaluate(() => location.href);
    t.notMatch(href, 'token=', `the fragment is removed (${href})`);
    t.notMatch(href, tok, 'the token is not in the address');
    t.equal(await p.evaluate(() => sessionStorage.getItem('plantdata.token')), tok, 'kept in sessionStorage');
    await p.locator(aria('Sign out', 'button')).click();
    await p.waitForSelector(SIGN_IN);
    t.equal(await p.evaluate(() => sessionStorage.getItem('plantdata.token')), null, 'Sign out forgets the token');
    });
  });

  await t.test('the dev OAuth client signs in with its client credentials', async (t) => {
    await inFreshContext(async (p) => {
    await p.goto(`${url}/console/`);
    await p.waitForSelector(SIGN_IN);
    await (await p.waitForSelector(aria('Client ID')))!.type('console-dev');
    await (await p.waitForSelector(aria('Client secret')))!.type('wrong');
    await p.locator(aria('Sign in with client credentials', 'button')).click();
    t.ok(await signInAlert(p), 'a wrong secret is refused with a reason');
    await p.reload();
    await (await p.waitForSelector(aria('Client ID')))!.type('console-dev');
    await (await p.waitForSelector(aria('Client secret')))!.type('console-dev-secret');
    await p.locator(aria('Sign in with client credentials', 'button')).click();
    await p.waitForFunction(() => /dev-client/.test(document.querySelector('[data-testid="identity"]')?.textContent ?? ''), { timeout: WAIT_MS });
    t.pass('signed in as the client\'s subject');
    t.notMatch(await p.evaluate(() => location.href), /secret/, 'no credential in the address');
    });
  });

  await t.test('an expired token brings back the sign-in with the reason', async (t) => {
    await inFreshContext(async (p) => {
    const sign = createSigner({ key: secret });
    const stale = sign({ organization: ORG, sub: SUB, exp: Math.floor(Date.now() / 1000) - 60 });
    await signInWithField(p, stale);
    const refused = await signInAlert(p);
    t.ok(refused, `a token already expired is refused at sign-in: "${refused}"`);
    t.equal(await p.evaluate(() => sessionStorage.getItem('plantdata.token')), null, 'and not kept');

    const shortLived = token({ expiresInSeconds: 4 });
    const expiresAt = (JSON.parse(Buffer.from(shortLived.split('.')[1]!, 'base64url').toString()) as { exp: number }).exp * 1000;
    await signInWithField(p, shortLived);
    await p.waitForSelector('[data-testid="identity"]');
    t.pass('signed in with a token about to expire');
    while (Date.now() < expiresAt + 500) await sleep(100);
    await go(p, '#/assets');
    await p.waitForSelector(SIGN_IN);
    const reason = await signInAlert(p);
    t.ok(reason, `the sign-in is back with a reason: "${reason}"`);
    t.match(reason, /expire|sign in again|401|refused|invalid/i, 'the reason says the token is no longer valid');
    });
  });

  await t.test('a 429 is shown readably', async (t) => {
    await inFreshContext(async (p) => {
    await signInWithField(p, token({ org: LIMITED_ORG, sub: 'carol' }));
    const readable = /(too many requests|rate limit)[\s\S]*\d+\s*s/i;
    let message = '';
    for (let i = 0; i < 6 && !message; i++) {
      const hash = ['#/timeseries', '#/assets', '#/governance'][i % 3]!;
      if (await p.$('[data-testid="identity"]')) await go(p, hash);
      message = await p.waitForFunction((re: string) => {
        const rx = new RegExp(re, 'i');
        return Array.from(document.querySelectorAll('[role="alert"]')).map((a) => (a.textContent ?? '').trim()).find((x) => rx.test(x)) ?? false;
      }, { timeout: 2000, polling: 50 }, readable.source).then((h) => h.jsonValue() as Promise<string>).catch(() => '');
    }
    t.ok(message, `the rate limit shows in role=alert with the retry time: "${message}"`);
    });
  });

  await t.test('no dialog, no script error, no CSP violation during the run', async (t) => {
    t.same(dialogs, [], 'no alert/confirm/prompt fired');
    t.same(pageErrors, [], 'no uncaught error in the page');
    t.same(cspViolations, [], 'no Content-Security-Policy violation reported');
    t.same(urlsWithToken, [], 'no request carried the token in its address');
    t.comment(`screenshots: ${screenshotDir}`);
  });
}

