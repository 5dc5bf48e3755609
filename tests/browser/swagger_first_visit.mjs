// Swagger UI on a first visit (nothing cached):  node swagger_first_visit.mjs http://127.0.0.1:PORT <shop token>
// Times /www/docs from the navigation until the POST /www/kunden operation is shown, then gives the token to
// "Authorize" and runs that operation with "Try it out" and its example body as shipped. Prints what it saw as
// JSON on its last line (with what each file cost, to say why when the page is slow); test_swagger.py judges it.
import { openBrowser, print } from './browser.mjs';

const [base, token] = process.argv.slice(2);
const { browser, page, report } = await openBrowser();
const result = {};
try {
  const customers = page.locator('.opblock-post', { has: page.locator('[data-path="/www/kunden"]') });
  const started = Date.now();
  await page.goto(`${base}/www/docs`, { waitUntil: 'commit' });
  await customers.locator('.opblock-summary').waitFor({ state: 'visible', timeout: 20000 });
  result.shownMs = Date.now() - started;
  result.files = await page.evaluate(() =>
    performance.getEntriesByType('resource').map((entry) => ({
      path: new URL(entry.name).pathname,
      ms: Math.round(entry.duration),
      transferred: entry.transferSize,
      size: entry.decodedBodySize,
    })),
  );

  await page.locator('.auth-wrapper .authorize').click();
  const bearer = page.locator('.auth-container', { hasText: 'bearer' });
  await bearer.locator('input').fill(token);
  await bearer.locator('button.modal-btn.authorize').click();
  await bearer.locator('button.btn-done').click();

  await customers.locator('.opblock-summary').click();
  await customers.getByRole('button', { name: 'Try it out' }).click();
  result.sent = await customers.locator('textarea.body-param__text').inputValue();
  await customers.getByRole('button', { name: 'Execute' }).click();
  const status = customers.locator('.live-responses-table .response .response-col_status').first();
  await status.waitFor({ timeout: 20000 });
  result.status = (await status.innerText()).trim();
  result.body = await customers.locator('.live-responses-table .microlight').first().innerText();
} catch (error) {
  result.failure = String(error);
  await page.screenshot({ path: process.env.SCREENSHOT || 'swagger-failure.png' }).catch(() => {});
}
print(await report(result));
await browser.close();
