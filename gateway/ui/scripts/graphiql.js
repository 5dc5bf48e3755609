// The gateway's GraphiQL page: GraphiQL 3 with its explorer plugin, every file served by the gateway.
//
// Subscriptions run too: over a WebSocket to the same path, with the pasted token.
//
// Every query needs a bearer token, introspection included, so the page opens on the headers editor and
// loads the schema again whenever the Authorization header changes: pasting a token is all it takes to
// fill the explorer and the docs. Headers stay in the page unless the user turns on "Persist headers" in
// GraphiQL's settings (a token in localStorage outlives the tab and is readable by any script of this
// origin); that choice is remembered.
"use strict";

(function () {
  const root = document.getElementById("graphiql");
  if (typeof GraphiQL === "undefined" || typeof GraphiQLPluginExplorer === "undefined") {
    root.textContent = "GraphiQL's files did not load; see the browser console.";
    return;
  }

  const endpoint = window.location.origin + window.location.pathname;
  // Subscriptions go over a WebSocket to the same path (graphql-transport-ws, with the graphql-ws client
  // GraphiQL bundles); the headers editor's Authorization goes in connection_init's payload.
  const subscriptionUrl = endpoint.replace(/^http/, "ws");
  const DEFAULT_HEADERS = '{\n  "Authorization": "Bearer "\n}';
  const DEFAULT_QUERY = [
    "# The catalogue as the web shop sees it. Get a token with HTTP Basic at POST /www/token",
    "# (see the README), paste it after \"Bearer \" in the headers below, then run this with",
    "# Ctrl-Enter, or build a query by clicking in the explorer (the folder icon on the left).",
    "query Articles {",
    "  articles(limit: 5) {",
    "    totalCount",
    "    items {",
    "      number",
    "      designation",
    "    }",
    "  }",
    "}",
    "",
  ].join("\n");
  // The analysts' tab: facets, statistics, a search, and how to get any list as CSV
  // (docs/how-to/analytics.md).
  const ANALYTICS_QUERY = [
    "# Analysing the catalogue. Counts per value: each equals articles(filter) { totalCount } narrowed",
    "# to it. Price bands are nice (1-2-5 steps) unless bounds are given; prices are in the view of",
    "# currency / customerNumber. CSV: send any query with the header Accept: text/csv (and ?bom=1",
    "# for Excel) and the first list of the answer comes back as a spreadsheet.",
    "query Facets($filter: ArticleFilterInput = {search: \"a\"}) {",
    "  articleFacets(filter: $filter) {",
    "    total",
    "    groups { value count }",
    "    classes { value count }",
    "    availability { value count }",
    "    priceBands { from to count }",
    "    withoutPrice",
    "  }",
    "}",
    "",
    "query Statistics {",
    "  articleStatistics(groupBy: GROUP, filter: {available: true}) {",
    "    value count minPrice maxPrice avgPrice stock withoutPrice withoutStock",
    "  }",
    "}",
    "",
    "query Search {",
    "  articles(filter: {search: \"papier\", priceFrom: 1, priceTo: 50, hasMedia: true}, limit: 10) {",
    "    totalCount",
    "    items { number designation group prices { amount } }",
    "  }",
    "}",
    "",
  ].join("\n");
  const NO_TOKEN = {
    errors: [
      {
        message:
          'Every query needs a token: paste one after "Bearer " in the headers editor ' +
          "(POST /www/token with HTTP Basic gives one); the schema loads as soon as it is there.",
      },
    ],
  };

  // The Authorization header's value, "" without one, or null while the headers are not valid JSON.
  function authorizationOf(text) {
    let headers;
    try {
      headers = JSON.parse(text || "{}");
    } catch (error) {
      return null;
    }
    for (const name of Object.keys(headers || {})) {
      if (name.toLowerCase() === "authorization") {
        return String(headers[name]).trim();
      }
    }
    return "";
  }

  function hasCredentials(headers) {
    const value = authorizationOf(JSON.stringify(headers || {}));
    return Boolean(value) && value.toLowerCase() !== "bearer";
  }

  function createFetcher() {
    const http = GraphiQL.createFetcher({ url: endpoint, subscriptionUrl: subscriptionUrl });
    return function fetcher(params, options) {
      return hasCredentials(options && options.headers) ? http(params, options) : Promise.resolve(NO_TOKEN);
    };
  }

  // GraphiQL keeps headers in three places of localStorage besides its own "headers" key: its tabs, its
  // history and its favourites. Its "Persist headers" switch covers the tabs only, and not reliably
  // (a write of the tabs, 500 ms late, can bring the token back after the user turned it off). GraphiQL
  // gets this storage instead: headers reach those three places only while the switch is on.
  const NAMESPACE = "graphiql:";
  const PERSIST_HEADERS = NAMESPACE + "shouldPersistHeaders";
  const WITH_HEADERS = [NAMESPACE + "tabState", NAMESPACE + "queries", NAMESPACE + "favorites"];
  const written = {}; // what GraphiQL last wrote there, headers and all: in this page only

  function optedIn() {
    return localStorage.getItem(PERSIST_HEADERS) === "true";
  }

  // {"tabs": [{..., "headers": ...}]} or {"queries": [...]}: each item's headers become null.
  function withoutHeaders(value) {
    try {
      const stored = JSON.parse(value);
      for (const items of Object.values(stored)) {
        for (const item of Array.isArray(items) ? items : []) {
          if (item && typeof item === "object" && "headers" in item) {
            item.headers = null;
          }
        }
      }
      return JSON.stringify(stored);
    } catch (error) {
      return "";
    }
  }

  function store(key) {
    localStorage.setItem(key, optedIn() ? written[key] : withoutHeaders(written[key]));
  }

  function ownKeys() {
    return Object.keys(localStorage).filter(function (key) {
      return key.startsWith(NAMESPACE);
    });
  }

  const storage = {
    getItem: function (key) {
      return localStorage.getItem(key);
    },
    setItem: function (key, value) {
      if (WITH_HEADERS.includes(key)) {
        written[key] = value;
        store(key);
        return;
      }
      localStorage.setItem(key, value);
      if (key === PERSIST_HEADERS) {
        // GraphiQL writes the switch after what it covers: those again, under the new choice.
        WITH_HEADERS.forEach(function (other) {
          if (!(other in written) && localStorage.getItem(other) !== null) {
            written[other] = localStorage.getItem(other);
          }
          if (other in written) {
            store(other);
          }
        });
      }
    },
    removeItem: function (key) {
      delete written[key];
      localStorage.removeItem(key);
    },
    clear: function () {
      ownKeys().forEach(storage.removeItem);
    },
    get length() {
      return ownKeys().length;
    },
  };

  const explorer = GraphiQLPluginExplorer.explorerPlugin();
  // GraphiQL sets its switch to this value at every load: the user's earlier choice, else off.
  const persistHeaders = optedIn();

  function GatewayGraphiQL() {
    const [authorization, setAuthorization] = React.useState(authorizationOf(DEFAULT_HEADERS));
    // A new fetcher is what makes GraphiQL introspect again.
    const fetcher = React.useMemo(createFetcher, [authorization]);
    return React.createElement(GraphiQL, {
      fetcher: fetcher,
      plugins: [explorer],
      defaultQuery: DEFAULT_QUERY,
      defaultTabs: [{ query: DEFAULT_QUERY }, { query: ANALYTICS_QUERY }],
      defaultHeaders: DEFAULT_HEADERS,
      defaultEditorToolsVisibility: "headers",
      isHeadersEditorEnabled: true,
      storage: storage,
      shouldPersistHeaders: persistHeaders,
      showPersistHeadersSettings: true,
      inputValueDeprecation: true,
      onEditHeaders: function (text) {
        const value = authorizationOf(text);
        if (value !== null) {
          setAuthorization(value);
        }
      },
    });
  }

  ReactDOM.createRoot(root).render(React.createElement(GatewayGraphiQL));
})();
