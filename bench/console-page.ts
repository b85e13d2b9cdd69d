// The console as the bench suite opens it: Debian's chromium, headless, driven by
// puppeteer-core (DESIGN.md), signed in with `#token=` on the series list; the chart element
// and the waits both console rows use.
import type { Browser, Page } from 'puppeteer-core';

export const CHROMIUM = '/usr/bin/chromium';
export const VIEWPORT = { width: 1280, height: 800 };
/** A chart that is not drawn in this long is a failure, not a figure. */
export const DRAW_WAIT_MS_MAX = 60_000;
export const CHART = '[data-testid="chart"]';
export const SERIES_ROW = '[data-testid="series-row"]';

/** A page of the console signed in with `#token=`, on the series list; what it reports as errors goes to pageErrors. */
export async function openSignedIn(browser: Browser, url: string, token: string, pageErrors: string[]): Promise<Page> {
  const page = await browser.newPage();
  page.on('pageerror', (error) => { if (pageErrors.length < 3) pageErrors.push(`page error: ${(error as Error).message}`); });
  page.on('console', (message) => {
    const where = message.location().url ?? '';
    // The browser asks for /favicon.ico on its own; the console has none.
    if (message.type() !== 'error' || where.endsWith('/favicon.ico') || pageErrors.length >= 3) return;
    pageErrors.push(`console error: ${message.text()}${where ? ` (${where})` : ''}`);
  });
  await page.setViewport(VIEWPORT);
  await page.goto(`${url}/console/#token=${encodeURIComponent(token)}`, { waitUntil: 'load' });
  await page.waitForSelector(SERIES_ROW, { timeout: DRAW_WAIT_MS_MAX });
  return page;
}
