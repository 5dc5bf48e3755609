// The npm graphql-sse client (pinned in package.json) subscribing to a real gateway in its "distinct
// connections" mode (one event stream per operation, Accept: text/event-stream):
//   node graphql_sse_subscribe.mjs URL TOKEN COUNT [SINCE]
// Prints one JSON line per happening: {"connected": true} once the stream is open, {"next": data} per
// result, {"complete": true} when the server completes it, {"error": ...} when it fails (no retries).
// Exits after COUNT results, on complete, or on error.
import { createClient } from "graphql-sse";

const [url, token, count, since] = process.argv.slice(2);
const print = (value) => process.stdout.write(JSON.stringify(value) + "\n");

const client = createClient({
  url,
  singleConnection: false,
  headers: { Authorization: `Bearer ${token}` },
  retryAttempts: 0,
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
      // A refused request is a NetworkError holding the response: its status says why.
      const status = error?.response?.status;
      print({ error: status ? { status } : String(error) });
      process.exit(0);
    },
    complete: () => {
      print({ complete: true });
      process.exit(0);
    },
  },
  { connected: () => print({ connected: true }) },
);
