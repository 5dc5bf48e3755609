// What every browser test shares: Debian's Chromium driven by playwright-core (no browser download), and a
// page that may reach 127.0.0.1 only. A request to any other host is aborted and recorded; so are
// Content-Security-Policy violations (the CSP stops a foreign request before it reaches the network),
// uncaught errors, and local files that do not load.
import { chromium } from 'playwright-core';

export const LOCAL_HOST = '127.0.0.1';

export async function openBrowser() {
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium' });
  const context = await browser.newContext();
  const seen = { foreign: [], violations: [], errors: [], failed: [] };
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === LOCAL_HOST) return route.continue();
    seen.foreign.push(url.href);
    return route.abort('blockedbyclient');
  });
  await context.addInitScript(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (event) => {
      window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => seen.errors.push(String(error)));
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (response.status() >= 400 && url.hostname === LOCAL_HOST && response.request().resourceType() !== 'fetch') {
      seen.failed.push(`${response.status()} ${url.pathname}`);
    }
  });
  async function report(extra) {
    seen.violations.push(...(await page.evaluate(() => window.__violations).catch(() => ['page gone'])));
    return { ...seen, ...extra };
  }
  return { browser, context, page, report };
}

// The one line the pytest side reads: the last line of stdout.
export function print(result) {
  console.log(JSON.stringify(result));
}

// Text typed into a CodeMirror 5 editor (GraphiQL's), as a user pastes it: select all, then insert.
export async function typeInto(page, editor, text) {
  await page.locator(`${editor} .CodeMirror`).first().click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

export function editorValue(page, editor) {
  return page.evaluate((selector) => document.querySelector(`${selector} .CodeMirror`).CodeMirror.getValue(), editor);
}
