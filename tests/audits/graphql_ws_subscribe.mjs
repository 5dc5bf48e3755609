// The npm graphql-ws client (pinned in package.json) subscribing to a real gateway:
//   node --experimental-websocket graphql_ws_subscribe.mjs URL TOKEN COUNT [SINCE]
// Prints one JSON line per event: {"connected": true} once acknowledged, {"next": data} per result,
// {"closed": code, "reason": text} when the server closes, {"error": ...} for an operation's error.
// Exits after COUNT results, or when the connection closes.
import { createClient } from "graphql-ws";

const [url, token, count, since] = process.argv.slice(2);
const print = (value) => process.stdout.write(JSON.stringify(value) + "\n");

const client = createClient({
  url,
  webSocketImpl: WebSocket,
  connectionParams: { Authorization: `Bearer ${token}` },
  retryAttempts: 0,
  lazy: false,
  on: {
    connected: () => print({ connected: true }),
    closed: (event) => {
      print({ closed: event.code, reason: event.reason });
      process.exit(0);
    },
  },
});

let received = 0;
client.subscribe(
  {
    query: "subscription($since: String) { orderEvents(since: $since) { type orderNumber occurredAt cursor } }",
    variables: { since: since ?? null },
  },
  {
    next: (result) => {
      print({ next: result });
      received += 1;
      if (received >= Number(count)) {
        client.dispose();
        process.exit(0);
      }
    },
    error: (error) => {
      print({ error: Array.isArray(error) ? error : String(error.reason ?? error) });
    },
    complete: () => {},
  },
);
