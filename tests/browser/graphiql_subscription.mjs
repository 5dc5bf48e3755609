// A subscription in GraphiQL:  node graphiql_subscription.mjs http://127.0.0.1:PORT <bearer token> <KundNr>
// Opens /graphql, pastes the token, types a subscription to orderEvents and runs it; once it runs, places
// an order through REST (POST /www/auftrag, as the web shop does) and waits for GraphiQL's result pane to
// show its event. Prints what it saw as JSON on its last line; test_graphiql_subscription.py judges it.
import { editorValue, openBrowser, print, typeInto } from './browser.mjs';

const [base, token, customer] = process.argv.slice(2);
const SUBSCRIPTION = 'subscription Orders { orderEvents { type orderNumber customerNumber cursor } }';
const HEADERS = '.graphiql-editor-tool .graphiql-editor:not(.hidden)';
const RUNNING = 1000; // ms for the subscription to join the gateway's feed once it is sent

const { browser, page, report } = await openBrowser();
const result = { sockets: [] };
// Resolved once GraphiQL's WebSocket has sent its subscribe message.
const subscribed = new Promise((resolve) => {
  page.on('websocket', (socket) => {
    result.sockets.push(new URL(socket.url()).pathname);
    socket.on('framesent', (frame) => {
      if (JSON.parse(frame.payload).type === 'subscribe') resolve();
    });
  });
});

async function placeOrder() {
  const response = await fetch(`${base}/www/auftrag`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ GrundDaten: { KundNr: customer }, Positionen: [{ ArtNr: 'A-000001', Menge: 1 }] }),
  });
  const body = await response.json();
  if (response.status !== 201) throw new Error(`POST /www/auftrag answered ${response.status}: ${JSON.stringify(body)}`);
  return body.data.AuftNr;
}

try {
  await page.goto(`${base}/graphql`);
  await page.locator('.graphiql-query-editor .CodeMirror').waitFor();
  await typeInto(page, HEADERS, JSON.stringify({ Authorization: `Bearer ${token}` }));
  await typeInto(page, '.graphiql-query-editor', SUBSCRIPTION);
  await page.waitForFunction(() => document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.operationName === 'Orders');
  await page.locator('.graphiql-execute-button').click();
  await Promise.race([subscribed, page.waitForTimeout(20000).then(() => { throw new Error('no subscribe message'); })]);
  await page.waitForTimeout(RUNNING);
  // While a subscription runs, the execute button is its stop button.
  result.running = await page.getByRole('button', { name: 'Stop query' }).isVisible();
  result.placed = await placeOrder();
  await page.waitForFunction((number) => {
    const pane = document.querySelector('.result-window .CodeMirror');
    return pane && pane.CodeMirror.getValue().includes(number);
  }, result.placed, { timeout: 20000 });
  result.response = JSON.parse(await editorValue(page, '.result-window'));
} catch (error) {
  result.failure = String(error);
  await page.screenshot({ path: process.env.SCREENSHOT || 'graphiql-subscription-failure.png' }).catch(() => {});
}
print(await report(result));
await browser.close();
