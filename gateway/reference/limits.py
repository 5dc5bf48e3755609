"""The settings that bound a request, a GraphQL document, a user's rate and webhook delivery (see
gateway.reference.settings)."""

from __future__ import annotations

from gateway.reference.catalogue import Group, Setting

LIMITS = (
    Group(
        "Limits",
        "Each refused with the error body before any work.",
        "what it bounds",
        (
            Setting(
                "GATEWAY_MAX_JSON_BYTES",
                "`4194304` (4 MiB)",
                "a request body of every route but `/www/zugferd` (and `/graphql`); 413",
            ),
            Setting(
                "GATEWAY_MAX_BODY_BYTES",
                "`33554432` (32 MiB)",
                "a `/www/zugferd` body (room for 20 MiB of base64 PDF); 413",
            ),
            Setting(
                "GATEWAY_MAX_PATH_BYTES",
                "`2048`",
                "the path (a link's href is varchar(2048)); 400 `info.field` `path`",
            ),
            Setting(
                "GATEWAY_MAX_QUERY_BYTES",
                "`8192`",
                "the query string; 400 `info.field` `query`",
            ),
            Setting(
                "GATEWAY_MAX_POSITIONS",
                "`1000`",
                (
                    "positions of one order or offer, and entries of one offer PATCH; a PATCH that adds positions "
                    "may not leave the offer with more; 400 `Positionen` (GraphQL: `input.positions`, before "
                    "coercion; see *GraphQL*)"
                ),
            ),
            Setting(
                "GATEWAY_MAX_PAYMENTS",
                "`100`",
                (
                    "`Zahlung` entries of one order (`POST` and `PUT /www/auftrag`); 400 `Zahlung` (GraphQL: "
                    "`input.payments`)"
                ),
            ),
            Setting(
                "GATEWAY_MAX_SORT_KEYS",
                "`10`",
                (
                    "`sorts` entries (REST) and `sort` keys (GraphQL); 400. Any other GraphQL input list holds at "
                    "most the largest of these three"
                ),
            ),
            Setting(
                "GATEWAY_MAX_FIELDS",
                "`100`",
                "`fields` entries; 400",
            ),
            Setting(
                "GATEWAY_MAX_UPSERT_RECORDS",
                "`1000`",
                "article records of one GraphQL `articlesUpsert`; a request error naming `records`, before coercion",
            ),
        ),
    ),
    Group(
        "GraphQL documents",
        (
            "a client's, at `/graphql`; the REST routes' own documents are held only to the first four), each "
            "checked in time linear in the document before anything runs"
        ),
        "what it bounds",
        (
            Setting(
                "GATEWAY_GRAPHQL_MAX_BYTES",
                "`65536`",
                "the document's text, comments included, checked before parsing",
            ),
            Setting(
                "GATEWAY_GRAPHQL_MAX_DEPTH",
                "`10`",
                "nested fields with selections (introspection fields do not count)",
            ),
            Setting(
                "GATEWAY_GRAPHQL_MAX_ALIASES",
                "`30`",
                "aliases in the response as sent (a fragment's count again at every spread)",
            ),
            Setting(
                "GATEWAY_GRAPHQL_MAX_TOKENS",
                "`5000`",
                "the parser's tokens",
            ),
            Setting(
                "GATEWAY_GRAPHQL_MAX_COST",
                "`100000`",
                "the operation's static cost (see *GraphQL*); over it, `too_expensive`",
            ),
            Setting(
                "GATEWAY_GRAPHQL_MAX_SCHEMA_WALKS",
                "`1`",
                "`__schema` fields of one operation (by response name: aliases count, repeats do not)",
            ),
            Setting(
                "GATEWAY_GRAPHQL_PAGE_SIZE",
                "`1000`",
                "the largest `articles` page a client gets, and its `limit` when none is given",
            ),
            Setting(
                "GATEWAY_GRAPHQL_CACHE_BYTES",
                "`16777216` (16 MiB)",
                (
                    "memory of the parsed and validated documents kept across requests, and again of their compiled"
                    " plans (per process)"
                ),
            ),
            Setting(
                "GATEWAY_GRAPHQL_PERSISTED_BYTES",
                "`4194304` (4 MiB)",
                "text of the documents kept under their automatic persisted query hash (per process)",
            ),
        ),
    ),
    Group(
        "Rate limits",
        (
            "in the `limits` library's notation, e.g. `20/minute` or `5/second;100/hour`; refused with 429 "
            "`rate_limited`; see [Redis for shared limits](../how-to/redis.md)"
        ),
        "what it bounds",
        (
            Setting(
                "GATEWAY_RATE_TOKEN_FAILURES_PER_ADDRESS",
                "`20/minute`",
                "failed `POST /www/token` from one client address",
            ),
            Setting(
                "GATEWAY_RATE_TOKEN_FAILURES_PER_USER",
                "`10/minute`",
                "failed `POST /www/token` for one user name, from any address",
            ),
            Setting(
                "GATEWAY_RATE_REQUESTS_PER_USER",
                "`1200/minute`",
                (
                    "every authenticated `/www`, `/graphql` and `/metrics` request of one user, whichever of its "
                    "tokens it carries (`GATEWAY_RATE_REQUESTS_PER_TOKEN`, its older name, is read when this one is"
                    " unset)"
                ),
            ),
            Setting(
                "GATEWAY_RATE_TOKENS_PER_USER",
                "`60/minute`",
                "tokens issued to one user (successful `POST /www/token`)",
            ),
            Setting(
                "GATEWAY_REDIS_URL",
                "unset (memory)",
                (
                    "`redis://host:6379/0`, `rediss://...` or `unix://...`: counters shared by every gateway "
                    "process on every host"
                ),
            ),
            Setting(
                "GATEWAY_REDIS_KEY_PREFIX",
                "`gateway`",
                "prefix of the counters' keys, so several gateways can share one Redis",
            ),
        ),
    ),
    Group(
        "Webhook delivery",
        "How events reach their webhook endpoints (see [Webhooks end to end](../how-to/webhooks.md)).",
        "meaning",
        (
            Setting(
                "GATEWAY_WEBHOOK_DISPATCH",
                "`1`",
                "`gateway serve` runs a dispatcher in each process; `0` leaves delivery to `gateway dispatch`",
            ),
            Setting(
                "GATEWAY_WEBHOOK_TIMEOUT",
                "`10`",
                "one attempt, whole: connecting, sending, the answer's status and first bytes (seconds)",
            ),
            Setting(
                "GATEWAY_WEBHOOK_CONCURRENCY",
                "`10`",
                "attempts under way at once, per process",
            ),
            Setting(
                "GATEWAY_WEBHOOK_POLL_INTERVAL",
                "`2`",
                "how often the database is asked for due deliveries when nothing woke the dispatcher (seconds)",
            ),
            Setting(
                "GATEWAY_WEBHOOK_CLAIM_TIME",
                "`60`",
                (
                    "how long a claimed delivery stays one dispatcher's; must be longer than the timeout. A killed "
                    "dispatcher's deliveries are taken up by another this long after"
                ),
            ),
            Setting(
                "GATEWAY_WEBHOOK_RETRY_FIRST_DELAY",
                "`5`",
                "wait before the second attempt (seconds); each later wait is 3 times the one before",
            ),
            Setting(
                "GATEWAY_WEBHOOK_RETRY_MAX_DELAY",
                "`21600` (6 h)",
                "the longest wait between attempts",
            ),
            Setting(
                "GATEWAY_WEBHOOK_MAX_ATTEMPTS",
                "`12`",
                "attempts in all; then the delivery is `failed`",
            ),
            Setting(
                "GATEWAY_WEBHOOK_ALLOW_PRIVATE",
                "`0`",
                (
                    "`1`: endpoints may be on loopback, private, link-local, multicast, unspecified or reserved "
                    "addresses (receivers on an intranet); `0`: refused when added and at every delivery"
                ),
            ),
        ),
    ),
)
