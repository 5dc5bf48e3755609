// The whole article list as a Node shop reads it: fetch, then res.text() and JSON.parse (res.json() reads the
// same way). Prints {"articles": N, "sha256": "..."} or {"error": "..."}; exits 0 either way.
// Usage: node long_list.mjs URL TOKEN
import { createHash } from 'node:crypto';

const [url, token] = process.argv.slice(2);
try {
  const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`status ${res.status}`);
  const text = await res.text();
  const list = JSON.parse(text);
  console.log(JSON.stringify({ articles: list.data.length, sha256: createHash('sha256').update(text).digest('hex') }));
} catch (error) {
  console.log(JSON.stringify({ error: `${error.name}: ${error.message}${error.cause ? ` (${error.cause})` : ''}` }));
}
