// Swagger UI as a user meets it:  node swagger.mjs http://127.0.0.1:PORT <bearer token>
// Opens /www/docs, lists the operations it shows, gives the token to "Authorize", and runs
// GET /www/artikel with "Try it out". Prints what it saw as JSON on its last line; test_swagger.py judges it.
import { openBrowser, print } from './browser.mjs';

const [base, token] = process.argv.slice(2);
const { browser, page, report } = await openBrowser();
const result = {};
try {
  await page.goto(`${base}/www/docs`);
  await page.locator('.opblock').first().waitFor({ timeout: 20000 });
  result.title = await page.locator('.info .title').innerText();
  result.operations = await page.locator('.opblock-summary').evaluateAll((summaries) =>
    summaries.map((summary) => [
      summary.querySelector('.opblock-summary-method').textContent,
      summary.querySelector('.opblock-summary-path').dataset.path,
    ]),
  );

  await page.locator('.auth-wrapper .authorize').click();
  const bearer = page.locator('.auth-container', { hasText: 'bearer' });
  await bearer.locator('input').fill(token);
  await bearer.locator('button.modal-btn.authorize').click();
  await bearer.locator('button.btn-done').click();

  const articles = page.locator('.opblock-get', { has: page.locator('[data-path="/www/artikel"]') });
  await articles.locator('.opblock-summary').click();
  await articles.getByRole('button', { name: 'Try it out' }).click();
  // A short page: Swagger UI takes seconds to highlight a long one.
  await articles.locator('tr[data-param-name="limit"] input').fill('2');
  await articles.getByRole('button', { name: 'Execute' }).click();
  const status = articles.locator('.live-responses-table .response .response-col_status').first();
  await status.waitFor({ timeout: 20000 });
  result.status = (await status.innerText()).trim();
  result.body = await articles.locator('.live-responses-table .microlight').first().innerText();
  result.storage = await page.evaluate(() => ({ ...localStorage }));
} catch (error) {
  result.failure = String(error);
  await page.screenshot({ path: process.env.SCREENSHOT || 'swagger-failure.png' }).catch(() => {});
}
print(await report(result));
await browser.close();
