// A Node shop calling the gateway the way Node code usually does: the built-in fetch and res.json(),
// no charset handling of its own. Runs tests/clients/scenario.py's steps and prints the result as JSON.
//
//   node shop_client.mjs http://127.0.0.1:8000 shop a-long-secret

const [baseUrl, user, secret] = process.argv.slice(2);

const FIRST_NAME = 'Zoë';
const LAST_NAME = 'Müller-Lüdenscheidt';
const STREET = 'Löwenstrasse 12';
const PLACE = 'Zürich';
const COMMENT = 'Lieferung bitte 🚚 — 12 € Trinkgeld';

const result = { responses: [] };

async function call(label, expected, method, path, { body, basic, token } = {}) {
  const headers = {};
  if (basic) headers.Authorization = `Basic ${Buffer.from(`${basic[0]}:${basic[1]}`).toString('base64')}`;
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(baseUrl + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  result.responses.push([label, res.status, res.headers.get('content-type')]);
  const data = await res.json();
  if (res.status !== expected) throw new Error(`${label}: ${res.status} ${JSON.stringify(data)}`);
  return data;
}

try {
  const token = await call('POST /www/token', 200, 'POST', '/www/token', { basic: [user, secret] });
  result.token_type = token.token_type;
  const bearer = token.access_token;

  const articles = await call('GET /www/artikel?limit=5', 200, 'GET', '/www/artikel?limit=5', { token: bearer });
  result.articles = articles.data.map((a) => [a.ArtNr, a.ArtBez]);

  const customer = {
    GrundDaten: { WaehrAbk: 'CHF', FAKTZahlArt: 'R' },
    Adressen: {
      KontaktAdr: {
        AdrSprache: 'ger', AdrAnrede: 2, AdrVorname: FIRST_NAME, AdrName: LAST_NAME, AdrAdresse1: STREET,
        OrtLand: 'CH', OrtName: PLACE, OrtPLZ: '8001',
      },
    },
  };
  const debiNr = (await call('POST /www/kunden', 201, 'POST', '/www/kunden', { body: customer, token: bearer })).data.DebiNr;
  const order = {
    GrundDaten: { KundNr: debiNr, AuftKomment: COMMENT },
    Positionen: [{ ArtNr: 'A-000001', Menge: 2 }],
  };
  const auftNr = (await call('POST /www/auftrag', 201, 'POST', '/www/auftrag', { body: order, token: bearer })).data.AuftNr;
  result.DebiNr = debiNr;
  result.AuftNr = auftNr;

  const kunde = await call('GET /www/kunden/{DebiNr}', 200, 'GET', `/www/kunden/${debiNr}`, { token: bearer });
  result.KundBez = kunde.data.KundBez;
  const adressen = await call('GET /www/adressen?debinr={DebiNr}', 200, 'GET', `/www/adressen?debinr=${debiNr}`, { token: bearer });
  const contact = adressen.data.KundKontakt[0];
  const { AdrVorname, AdrName, AdrAdresse1, OrtName, OrtPLZ, OrtLand } = contact;
  result.KundKontakt = { AdrVorname, AdrName, AdrAdresse1, OrtName, OrtPLZ, OrtLand };
  const auftrag = (await call('GET /www/auftrag/{AuftNr}', 200, 'GET', `/www/auftrag/${auftNr}`, { token: bearer })).data;
  const address = auftrag.Adressen.KontaktAdr;
  result.order = {
    KundNr: auftrag.GrundDaten.KundNr,
    AuftKomment: auftrag.GrundDaten.AuftKomment,
    KontaktAdr: { AdrVorname: address.AdrVorname, AdrName: address.AdrName, OrtName: address.OrtName },
    PosBez: auftrag.Positionen[0].PosBez,
  };

  // What was sent must come back character for character (=== compares UTF-16 code units).
  const sentAndRead = [
    ['AdrVorname', FIRST_NAME, contact.AdrVorname],
    ['AdrName', LAST_NAME, contact.AdrName],
    ['AdrAdresse1', STREET, contact.AdrAdresse1],
    ['OrtName', PLACE, contact.OrtName],
    ['AuftKomment', COMMENT, auftrag.GrundDaten.AuftKomment],
    ['KontaktAdr.AdrVorname', FIRST_NAME, address.AdrVorname],
    ['KontaktAdr.AdrName', LAST_NAME, address.AdrName],
    ['KontaktAdr.OrtName', PLACE, address.OrtName],
  ];
  result.mismatches = sentAndRead.filter(([, sent, read]) => read !== sent);
} catch (error) {
  result.error = String(error?.stack ?? error);
  process.exitCode = 1;
}
console.log(JSON.stringify(result));
