// GraphiQL as a user meets it:  node graphiql.mjs http://127.0.0.1:PORT <bearer token>
// Opens /graphql, pastes the token into the headers editor, opens the explorer, types and runs a query;
// then turns "Persist headers" on, reloads, and turns it off again. Prints what it saw as JSON on its
// last line; test_graphiql.py judges it.
import { editorValue, openBrowser, print, typeInto } from './browser.mjs';

const [base, token] = process.argv.slice(2);
const QUERY = 'query Two { articles(limit: 2) { totalCount items { number designation } } }';
const HEADERS = '.graphiql-editor-tool .graphiql-editor:not(.hidden)';
const STORAGE_WRITES = 1500; // ms: GraphiQL writes its tabs to localStorage a moment after a change

const { browser, page, report } = await openBrowser();
const result = {};

async function persistHeaders(choice) {
  await page.getByRole('button', { name: 'Open settings dialog' }).click();
  await page.locator('.graphiql-dialog-section', { hasText: 'Persist headers' }).getByRole('button', { name: choice }).click();
  await page.keyboard.press('Escape');
  await page.waitForTimeout(STORAGE_WRITES);
}

try {
  await page.goto(`${base}/graphql`);
  await page.locator('.graphiql-query-editor .CodeMirror').waitFor();
  result.editors = await page.locator('.graphiql-container .CodeMirror').count();

  await typeInto(page, HEADERS, JSON.stringify({ Authorization: `Bearer ${token}` }));
  await page.getByRole('button', { name: 'Show GraphiQL Explorer' }).click();
  const explorer = page.locator('.graphiql-plugin');
  await explorer.getByText('articles', { exact: true }).first().waitFor({ timeout: 20000 });
  result.explorer = (await explorer.innerText()).split('\n');

  await typeInto(page, '.graphiql-query-editor', QUERY);
  // GraphiQL reads the operation's name from the text a moment after a change (as a user's pause would).
  await page.waitForFunction(() => document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.operationName === 'Two');
  await page.locator('.graphiql-execute-button').click();
  await page.waitForFunction(() => {
    const pane = document.querySelector('.result-window .CodeMirror');
    return pane && pane.CodeMirror.getValue().includes('"data"');
  }, null, { timeout: 20000 });
  result.response = JSON.parse(await editorValue(page, '.result-window'));
  await page.waitForTimeout(STORAGE_WRITES);
  result.stored = await page.evaluate(() => ({ ...localStorage }));

  await persistHeaders('On');
  await page.reload();
  await page.locator('.graphiql-query-editor .CodeMirror').waitFor();
  result.remembered = await editorValue(page, HEADERS);
  await persistHeaders('Off');
  result.optedOut = await page.evaluate(() => ({ ...localStorage }));
} catch (error) {
  result.failure = String(error);
  await page.screenshot({ path: process.env.SCREENSHOT || 'graphiql-failure.png' }).catch(() => {});
}
print(await report(result));
await browser.close();
