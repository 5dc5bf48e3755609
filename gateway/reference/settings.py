"""Every `GATEWAY_*` environment variable, its default and its meaning: the source of the settings reference
(docs/reference/settings.md, made by gateway.reference.pages). tests/gateway/reference/test_settings_page.py fails
when the code reads a name this catalogue (with gateway.reference.limits) lacks."""

from __future__ import annotations

from gateway.reference.catalogue import Group, Setting
from gateway.reference.limits import LIMITS

GROUPS = (
    Group(
        "General",
        (
            "Read once per process; a value that is not a positive number (or not a URL where one is asked for) "
            "stops `gateway` at once with one line naming the variable."
        ),
        "meaning",
        (
            Setting(
                "GATEWAY_DATABASE_URL",
                "`sqlite+aiosqlite:///gateway.db`",
                (
                    "SQLAlchemy async URL; PostgreSQL: `postgresql+asyncpg://user@host/db` (the user creates the "
                    "tables, and the extension `pg_trgm` for the article search's index: the database's owner may; "
                    "see *GraphQL*, search cost)"
                ),
            ),
            Setting(
                "GATEWAY_SECRET_KEY",
                "generated",
                (
                    "key that signs tokens. If unset, one is generated once and kept beside the database "
                    "(`gateway.db.secret`, mode 0600; for a server database `gateway.secret` in the working "
                    "directory). Set it explicitly when several machines serve the same users"
                ),
            ),
            Setting(
                "GATEWAY_PUBLIC_URL",
                "the address served",
                (
                    "the base of every `links[].href`, e.g. `https://shop.example/erp` behind a proxy. Without it, "
                    "the address and port the request came to (never the `Host` header, which any client sets)"
                ),
            ),
            Setting(
                "GATEWAY_TRUSTED_PROXIES",
                "(empty: none)",
                (
                    "comma-separated addresses and networks (`127.0.0.1`, `10.0.0.0/8`, `fd00::/8`) of proxies "
                    "whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed: the client's address (for the "
                    "per-address limit and the access log) and the scheme (for links) are then the ones they name. "
                    "From any other peer these headers are ignored (uvicorn's own default, 127.0.0.1, and its "
                    "`FORWARDED_ALLOW_IPS` do not apply). `*` is refused (see *Behind nginx*)"
                ),
            ),
            Setting(
                "GATEWAY_LOG_DIR",
                "`./logs`",
                (
                    "where `gateway.log` and `access.log` are written; `-`: no files, access lines on standard "
                    "output and the others on standard error (containers)"
                ),
            ),
            Setting(
                "GATEWAY_LOG_FORMAT",
                "`text`",
                (
                    "`text`: `2026-05-04 10:00:00,123 INFO gateway.access ...` lines; `json`: one JSON object per "
                    "line (see *Logs and observability*). Anything else stops the gateway with one line"
                ),
            ),
            Setting(
                "GATEWAY_LOG_QUEUE_SIZE",
                "`10000`",
                (
                    "log lines per process waiting for the log writer's thread; while that many wait (a stalled "
                    "disk), further lines are dropped and counted (`gateway_log_lines_dropped_total`), never waited"
                    " for"
                ),
            ),
            Setting(
                "GATEWAY_WORK_DIR",
                "`./work`",
                ("where `/www/zugferd` keeps its work files when a request with an `admin` token asks for `Debug`"),
            ),
            Setting(
                "GATEWAY_WORK_DIR_MAX_BYTES",
                "`104857600` (100 MiB)",
                "the work files kept there; beyond it the oldest calls' files are removed",
            ),
            Setting(
                "GATEWAY_TOKEN_LIFETIME",
                "`3600`",
                "token lifetime in seconds",
            ),
            Setting(
                "GATEWAY_TOKEN_CHECK_SECONDS",
                "`5`",
                (
                    "how long a process trusts what it last read of a user's token version: a removed or rotated "
                    "user's tokens are refused at most this long after `gateway users remove` / `rotate`, by every "
                    "process"
                ),
            ),
            Setting(
                "GATEWAY_DEBUG_SQL",
                "unset",
                "`1` echoes every SQL statement",
            ),
            Setting(
                "GATEWAY_METRICS_PUBLIC",
                "`0`",
                (
                    "`1`: `GET /metrics` needs no token, for a Prometheus that scrapes on a private network; `0`: a"
                    " token with the `metrics` (or `admin`) scope (see *Health and metrics*). Anything but `0` or "
                    "`1` stops the gateway with one line"
                ),
            ),
            Setting(
                "PROMETHEUS_MULTIPROC_DIR",
                "a fresh temporary directory per `gateway serve --workers N`",
                (
                    "where worker processes keep their metrics; created if missing, emptied of `*.db` files at "
                    "start, kept at exit (see *Health and metrics*)"
                ),
            ),
            Setting(
                "GATEWAY_SUPERVISOR_PID",
                "set by `gateway serve`",
                (
                    "the process id of the `gateway serve` that started a worker (`--workers N`); a worker whose "
                    "supervisor is gone shuts itself down. Set by the gateway for its workers, never by hand"
                ),
            ),
            Setting(
                "GATEWAY_CORS_ORIGINS",
                "(empty: no CORS)",
                (
                    "browser origins allowed to call the API, comma-separated `scheme://host[:port]`; `*` is "
                    "refused (see *Browser pages and CORS*)"
                ),
            ),
        ),
    ),
    Group(
        "Timeouts",
        "Seconds; fractions allowed.",
        "what it bounds",
        (
            Setting(
                "GATEWAY_REQUEST_TIMEOUT",
                "`30`",
                (
                    "the gateway's work on one request, counted from the last part of its body to the start of its "
                    "answer; then the work is cancelled and answered 503 `unavailable`, unless a write transaction "
                    "has begun (it runs to its end, and its outcome is answered)"
                ),
            ),
            Setting(
                "GATEWAY_READY_TIMEOUT",
                "`2`",
                (
                    "how long `/readyz` waits for the database (and `/metrics` for the outbox figures); longer is "
                    "answered 503 `database unavailable`"
                ),
            ),
            Setting(
                "GATEWAY_DB_CONNECT_TIMEOUT",
                "`5`",
                "opening a database connection (PostgreSQL)",
            ),
            Setting(
                "GATEWAY_DB_STATEMENT_TIMEOUT",
                "`10`",
                (
                    "one statement's answer (PostgreSQL, also from a frozen server); on SQLite a writer's wait for "
                    "its turn to write (and SQLite's busy timeout)"
                ),
            ),
            Setting(
                "GATEWAY_DB_POOL_TIMEOUT",
                "`5`",
                "waiting for a free connection of the pool (10 + 10 overflow on PostgreSQL)",
            ),
            Setting(
                "GATEWAY_HEADER_TIMEOUT",
                "`10`",
                (
                    "a request head, from the connection (or the last answer) on; a silent connection is closed, a "
                    "trickling head answered 408"
                ),
            ),
            Setting(
                "GATEWAY_BODY_TIMEOUT",
                "`30`",
                "the longest pause inside a body; a body shorter than its `Content-Length` is answered 408",
            ),
            Setting(
                "GATEWAY_BODY_MIN_RATE",
                "`1024`",
                (
                    "bytes per second a body must average, from the end of its head, once it has had 5 s; a body "
                    "trickled in parts that each come within the body timeout is answered 408 too"
                ),
            ),
            Setting(
                "GATEWAY_MAX_HEAD_BYTES",
                "`65536`",
                (
                    "a request head (request line and header fields); a larger one is answered 431 as soon as it "
                    "passes the limit, before the rest is read"
                ),
            ),
            Setting(
                "GATEWAY_KEEP_ALIVE_TIMEOUT",
                "`5`",
                "an idle kept-alive connection between requests",
            ),
            Setting(
                "GATEWAY_MAX_CONNECTIONS",
                "`1000`",
                (
                    "open connections per worker process. At the limit a new connection takes the place of an idle "
                    "one (connected or kept alive, no request under way), which is closed; when every connection is"
                    " busy the new one is answered 503 and closed at once. The open-file limit is raised to its "
                    "maximum at start"
                ),
            ),
            Setting(
                "GATEWAY_WORKER_TIMEOUT",
                "`60`",
                (
                    "with `--workers N` (N > 1): how long the supervisor waits for a worker's answer to its health "
                    "check (sent every 0.5 s) before it kills the worker and starts another. Generous, because a "
                    "worker still starting on a busy host answers late (uvicorn's 5 s killed half of 12 starting "
                    "workers); a hung worker is replaced this long after it stopped answering. Whole seconds"
                ),
            ),
        ),
    ),
    Group(
        "Catalogue sync and live subscriptions",
        (
            "The change feed (`GET /www/artikelaenderungen`, GraphQL `catalogueChanges`) and the GraphQL "
            "subscriptions over WebSocket (see *Keep a shop's catalogue in sync* and *Live updates*). Seconds "
            "allow fractions; counts are whole numbers."
        ),
        "meaning",
        (
            Setting(
                "GATEWAY_CHANGES_RETENTION",
                "`2592000` (30 days)",
                (
                    "seconds a removed article's record stays in the change feed; a cursor older than this "
                    "answers 410 `gone` (the shop reads the whole list again). Purged by every serving process, "
                    "hourly"
                ),
            ),
            Setting(
                "GATEWAY_CATALOGUE_EVENT_SECONDS",
                "`1`",
                (
                    "at most one `REST_Artikel` event per this many seconds, to the webhook endpoints and to each "
                    "`catalogueChanges` subscription: once a change is seen, the changes made within this time "
                    "come together in one event (a batch of more than 1,000 articles comes in parts at once)"
                ),
            ),
            Setting(
                "GATEWAY_LIVE_POLL_SECONDS",
                "`1`",
                (
                    "how often each process reads the outbox for other processes' events, and the change positions "
                    "for the catalogue's changes (on SQLite the ERP's too), while someone subscribes"
                ),
            ),
            Setting(
                "GATEWAY_LIVE_GAP_SECONDS",
                "`10`",
                (
                    "how long a missing outbox id holds back the events after it (a transaction still open); "
                    "longer than any transaction that records an event takes"
                ),
            ),
            Setting(
                "GATEWAY_LIVE_BUFFER",
                "`1000`",
                "events waiting for one subscription; when it is full, the feed waits up to 2 s for the client to "
                "take half of them, then its connection (4413) or event stream is ended as a slow consumer",
            ),
            Setting("GATEWAY_LIVE_PER_CONNECTION", "`20`", "subscriptions open at once on one WebSocket connection"),
            Setting(
                "GATEWAY_LIVE_PER_USER",
                "`100`",
                "operations open at once by one user on one process (WebSockets' and event streams' together)",
            ),
            Setting(
                "GATEWAY_LIVE_PING_SECONDS",
                "`15`",
                "how often the server pings a WebSocket connection (and an idle event stream, with a comment)",
            ),
            Setting(
                "GATEWAY_LIVE_IDLE_SECONDS",
                "`60`",
                "a WebSocket that sends nothing (not even a pong) this long is closed (4408); an event stream whose "
                "client takes nothing this long is ended",
            ),
            Setting(
                "GATEWAY_LIVE_INIT_SECONDS",
                "`10`",
                "the time a new WebSocket connection has to send `connection_init`",
            ),
        ),
    ),
    *LIMITS,
)
