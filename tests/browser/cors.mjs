// A page of another origin calling the gateway:  node cors.mjs '<cases as JSON>'
// Each case {page, url, token} opens `page` (a static site on another port) and, in it, POSTs a GraphQL
// query to `url` with fetch(), with `Authorization: Bearer <token>` when there is a token. Prints, per
// case, what the page could read (or the error fetch rejected with) as JSON on its last line.
import { openBrowser, print } from './browser.mjs';

const cases = JSON.parse(process.argv[2]);
const { browser, page, report } = await openBrowser();
const answers = [];
let failure;
try {
  for (const { page: origin, url, token } of cases) {
    await page.goto(`${origin}/`);
    answers.push(
      await page.evaluate(async ({ url, token }) => {
        const headers = { 'Content-Type': 'application/json' };
        if (token) headers.Authorization = `Bearer ${token}`;
        try {
          const response = await fetch(url, {
            method: 'POST',
            headers,
            body: JSON.stringify({ query: '{ articles(limit: 1) { totalCount } }' }),
          });
          return {
            status: response.status,
            body: await response.json(),
            requestId: response.headers.get('X-Request-Id'),
            challenge: response.headers.get('WWW-Authenticate'),
          };
        } catch (error) {
          return { rejected: `${error.name}: ${error.message}` };
        }
      }, { url, token }),
    );
  }
} catch (error) {
  failure = String(error);
  await page.screenshot({ path: process.env.SCREENSHOT || 'cors-failure.png' }).catch(() => {});
}
print(await report({ answers, failure }));
await browser.close();
