// graphql-http's own server audit (https://github.com/graphql/graphql-http) against a running gateway.
//   node graphql_http_audit.mjs http://127.0.0.1:8000/graphql <bearer token>
// Prints one line per audit that is not ok, then a JSON summary; exits 1 on any error or warning.
import { auditServer } from 'graphql-http';

const [url, token] = process.argv.slice(2);
const results = await auditServer({
  url,
  fetchFn: (input, init = {}) => {
    const headers = new Headers(init.headers || {});
    headers.set('Authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  },
});
const failed = results.filter((result) => result.status !== 'ok');
for (const result of failed) console.log(result.status, result.id, result.name, '-', result.reason);
const count = (status) => results.filter((result) => result.status === status).length;
console.log(JSON.stringify({ total: results.length, ok: count('ok'), warn: count('warn'), error: count('error') }));
process.exit(failed.length ? 1 : 0);
