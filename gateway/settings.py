"""Configuration from `GATEWAY_*` environment variables, read once per process.

Every limit and timeout is here with its default; docs/reference/settings.md lists them (gateway/reference/settings.py).
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from ipaddress import ip_address, ip_network
from pathlib import Path
from urllib.parse import urlsplit

from limits import parse_many
from sqlalchemy.engine import make_url

from datasources.database import Timeouts
from datasources.einvoice.workfiles import DEFAULT_MAX_BYTES as DEFAULT_MAX_WORK_BYTES
from gateway.dispatch.settings import WebhookSettings
from gateway.live.settings import LiveSettings
from schema.limits import DocumentLimits, RequestLimits

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///gateway.db"
MiB = 1024 * 1024
REDIS_SCHEMES = ("redis", "rediss", "unix")
# GATEWAY_LOG_DIR=-: no files; access lines go to standard output, the others to standard error.
LOG_TO_CONSOLE = Path("-")
LOG_FORMATS = ("text", "json")
# A host as a browser writes it in Origin: a name or IPv4 address, or an IPv6 address (brackets taken off).
_ORIGIN_HOST = re.compile(r"[a-z0-9-]+(\.[a-z0-9-]+)*|[0-9a-f:.]*:[0-9a-f:.]*")


@dataclass(frozen=True)
class ServerLimits:
    """What one connection may hold the server for (gateway/server/protocol.py)."""

    header_timeout: float = 10.0  # from the connection (or the last answer) to a request's complete head
    body_timeout: float = 30.0  # longest pause between two parts of a body (a body shorter than declared)
    # The least a body must average (bytes per second, from the end of its head) once it has had a few
    # seconds (protocol.BODY_RATE_GRACE): a body trickled in parts closer than the body timeout is bounded too.
    body_min_rate: int = 1024
    keep_alive_timeout: float = 5.0  # an idle connection between requests
    max_connections: int = 1000  # per worker process; more are answered 503 and closed
    max_head_bytes: int = 64 * 1024  # a request's head: its request line and header fields

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ServerLimits:
        number, defaults = _Numbers(os.environ if environ is None else environ), cls()
        return cls(
            header_timeout=number.seconds("GATEWAY_HEADER_TIMEOUT", defaults.header_timeout),
            body_timeout=number.seconds("GATEWAY_BODY_TIMEOUT", defaults.body_timeout),
            body_min_rate=number.whole("GATEWAY_BODY_MIN_RATE", defaults.body_min_rate),
            keep_alive_timeout=number.seconds("GATEWAY_KEEP_ALIVE_TIMEOUT", defaults.keep_alive_timeout),
            max_connections=number.whole("GATEWAY_MAX_CONNECTIONS", defaults.max_connections),
            max_head_bytes=number.whole("GATEWAY_MAX_HEAD_BYTES", defaults.max_head_bytes),
        )


@dataclass(frozen=True)
class RateLimits:
    """Rate limits in the `limits` library's notation ("10/minute", "5/second;100/hour")."""

    # Failed POST /www/token from one client address, failed POST /www/token for one user name, every
    # request of one user (all its tokens together), and tokens issued to one user: a user that mints tokens
    # gets no more requests. (Rates, not secrets: "token" in a name is all ruff's S105 sees.)
    token_failures_per_address: str = "20/minute"  # noqa: S105
    token_failures_per_user: str = "10/minute"  # noqa: S105
    requests_per_user: str = "1200/minute"
    tokens_per_user: str = "60/minute"
    redis_url: str | None = None  # shared counters for N processes on several hosts; else in memory
    redis_key_prefix: str = "gateway"  # several gateways (or test runs) can share one Redis

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> RateLimits:
        defaults = cls()
        return cls(
            token_failures_per_address=_rate(
                env, "GATEWAY_RATE_TOKEN_FAILURES_PER_ADDRESS", defaults.token_failures_per_address
            ),
            token_failures_per_user=_rate(
                env, "GATEWAY_RATE_TOKEN_FAILURES_PER_USER", defaults.token_failures_per_user
            ),
            requests_per_user=_rate(env, _requests_per_user_name(env), defaults.requests_per_user),
            tokens_per_user=_rate(env, "GATEWAY_RATE_TOKENS_PER_USER", defaults.tokens_per_user),
            redis_url=_redis_url(env.get("GATEWAY_REDIS_URL")),
            redis_key_prefix=env.get("GATEWAY_REDIS_KEY_PREFIX") or defaults.redis_key_prefix,
        )


def _requests_per_user_name(env: Mapping[str, str]) -> str:
    """GATEWAY_RATE_REQUESTS_PER_USER, or its older name from when the budget was counted per token when
    only that one is set."""
    if not env.get("GATEWAY_RATE_REQUESTS_PER_USER") and env.get("GATEWAY_RATE_REQUESTS_PER_TOKEN"):
        return "GATEWAY_RATE_REQUESTS_PER_TOKEN"
    return "GATEWAY_RATE_REQUESTS_PER_USER"


def _rate(env: Mapping[str, str], name: str, default: str) -> str:
    raw = env.get(name) or default
    try:
        items = parse_many(raw)
    except ValueError:
        raise SystemExit(
            f"{name} must be rate limits such as '20/minute' or '5/second;100/hour', not {raw!r}"
        ) from None
    if any(item.amount <= 0 for item in items):
        raise SystemExit(f"{name} must allow at least 1 per period, not {raw!r}")
    return raw


def _redis_url(raw: str | None) -> str | None:
    if not raw:
        return None
    parts = urlsplit(raw)
    try:
        _ = parts.port  # raises for a port that is not a number from 0 to 65535
        valid = parts.scheme in REDIS_SCHEMES and bool(parts.netloc or parts.path)
    except ValueError:
        valid = False
    if not valid:
        raise SystemExit(
            "GATEWAY_REDIS_URL must be a redis://, rediss:// or unix:// URL such as redis://127.0.0.1:6379/0 "
            "(the value is not shown: it may hold a password)"
        )
    return raw


@dataclass(frozen=True)
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    secret_key: str = ""
    log_dir: Path = Path("logs")
    work_dir: Path = Path("work")
    max_work_bytes: int = DEFAULT_MAX_WORK_BYTES  # the work files Debug keeps there, oldest removed first
    token_lifetime: int = 3600
    # How long a process trusts what it read of a user's token version: a removed or rotated user's tokens
    # are refused at most this long after the change (gateway/auth/versions.py).
    token_check_seconds: float = 5.0
    # How long the catalogue's change feed keeps tombstones: an older cursor is answered 410 gone.
    changes_retention: float = 30 * 24 * 3600.0
    # At most one REST_Artikel event per this many seconds, to webhooks and to each catalogueChanges
    # subscription: the changes made meanwhile come together in the next.
    catalogue_event_seconds: float = 1.0
    max_body_bytes: int = 32 * MiB  # /www/zugferd (base64 PDFs)
    max_json_bytes: int = 4 * MiB  # every other body: /www JSON and /graphql
    max_path_bytes: int = 2048  # a link's href is varchar(2048)
    max_query_bytes: int = 8192
    request_timeout: float = 30.0  # a request's whole work, after its body arrived
    public_url: str | None = None  # the base of every link; default: the address the request came to
    ready_timeout: float = 2.0  # /readyz's wait for the database, and /metrics' for the outbox figures
    metrics_public: bool = False  # /metrics without a token (a private network's Prometheus); else admin scope
    database_timeouts: Timeouts = field(default_factory=Timeouts)
    request_limits: RequestLimits = field(default_factory=RequestLimits)
    document_limits: DocumentLimits = field(default_factory=DocumentLimits)
    rate_limits: RateLimits = field(default_factory=RateLimits)
    server: ServerLimits = field(default_factory=ServerLimits)
    webhooks: WebhookSettings = field(default_factory=WebhookSettings)
    live: LiveSettings = field(default_factory=LiveSettings)
    debug_sql: bool = False
    cors_origins: tuple[str, ...] = ()  # browser origins allowed to call the API (gateway/middleware/cors.py)
    # Peers whose X-Forwarded-For and X-Forwarded-Proto are believed (addresses and networks); nobody's by default.
    trusted_proxies: tuple[str, ...] = ()
    log_format: str = "text"  # or "json": one object per line (gateway/logs/formats.py)
    # Lines queued for the log writer's thread at most; more are dropped and counted, never waited for.
    log_queue_size: int = 10_000
    # How long uvicorn's supervisor waits for a worker's answer to its health check before it kills the worker:
    # one still starting on a busy host answers late (uvicorn's own 5 s killed half of them).
    worker_timeout: int = 60

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        url = database_url(env)
        number = _Numbers(env)
        timeouts, limits, document = Timeouts(), RequestLimits(), DocumentLimits()
        return cls(
            database_url=url,
            secret_key=env.get("GATEWAY_SECRET_KEY") or load_or_create_secret(url),
            log_dir=Path(env.get("GATEWAY_LOG_DIR", "logs")),
            work_dir=Path(env.get("GATEWAY_WORK_DIR", "work")),
            max_work_bytes=number.whole("GATEWAY_WORK_DIR_MAX_BYTES", DEFAULT_MAX_WORK_BYTES),
            token_lifetime=number.whole("GATEWAY_TOKEN_LIFETIME", 3600),
            token_check_seconds=number.seconds("GATEWAY_TOKEN_CHECK_SECONDS", 5.0),
            changes_retention=number.seconds("GATEWAY_CHANGES_RETENTION", 30 * 24 * 3600.0),
            catalogue_event_seconds=number.seconds("GATEWAY_CATALOGUE_EVENT_SECONDS", 1.0),
            max_body_bytes=number.whole("GATEWAY_MAX_BODY_BYTES", 32 * MiB),
            max_json_bytes=number.whole("GATEWAY_MAX_JSON_BYTES", 4 * MiB),
            max_path_bytes=number.whole("GATEWAY_MAX_PATH_BYTES", 2048),
            max_query_bytes=number.whole("GATEWAY_MAX_QUERY_BYTES", 8192),
            request_timeout=number.seconds("GATEWAY_REQUEST_TIMEOUT", 30.0),
            public_url=_public_url(env.get("GATEWAY_PUBLIC_URL")),
            ready_timeout=number.seconds("GATEWAY_READY_TIMEOUT", 2.0),
            metrics_public=_switch(env, "GATEWAY_METRICS_PUBLIC", default=False),
            database_timeouts=Timeouts(
                connect=number.seconds("GATEWAY_DB_CONNECT_TIMEOUT", timeouts.connect),
                statement=number.seconds("GATEWAY_DB_STATEMENT_TIMEOUT", timeouts.statement),
                pool=number.seconds("GATEWAY_DB_POOL_TIMEOUT", timeouts.pool),
            ),
            request_limits=RequestLimits(
                positions=number.whole("GATEWAY_MAX_POSITIONS", limits.positions),
                payments=number.whole("GATEWAY_MAX_PAYMENTS", limits.payments),
                sort_keys=number.whole("GATEWAY_MAX_SORT_KEYS", limits.sort_keys),
                field_names=number.whole("GATEWAY_MAX_FIELDS", limits.field_names),
                upsert_records=number.whole("GATEWAY_MAX_UPSERT_RECORDS", limits.upsert_records),
            ),
            document_limits=DocumentLimits(
                max_bytes=number.whole("GATEWAY_GRAPHQL_MAX_BYTES", document.max_bytes),
                max_depth=number.whole("GATEWAY_GRAPHQL_MAX_DEPTH", document.max_depth),
                max_aliases=number.whole("GATEWAY_GRAPHQL_MAX_ALIASES", document.max_aliases),
                max_tokens=number.whole("GATEWAY_GRAPHQL_MAX_TOKENS", document.max_tokens),
                max_cost=number.whole("GATEWAY_GRAPHQL_MAX_COST", document.max_cost),
                max_schema_walks=number.whole("GATEWAY_GRAPHQL_MAX_SCHEMA_WALKS", document.max_schema_walks),
                page_size=number.whole("GATEWAY_GRAPHQL_PAGE_SIZE", document.page_size),
                cache_bytes=number.whole("GATEWAY_GRAPHQL_CACHE_BYTES", document.cache_bytes),
                persisted_bytes=number.whole("GATEWAY_GRAPHQL_PERSISTED_BYTES", document.persisted_bytes),
            ),
            rate_limits=RateLimits.from_env(env),
            server=ServerLimits.from_env(env),
            webhooks=WebhookSettings.from_env(env),
            live=_live(number),
            debug_sql=env.get("GATEWAY_DEBUG_SQL", "") == "1",
            cors_origins=_cors_origins(env.get("GATEWAY_CORS_ORIGINS")),
            worker_timeout=number.whole("GATEWAY_WORKER_TIMEOUT", 60),
            log_format=_log_format(env.get("GATEWAY_LOG_FORMAT")),
            log_queue_size=number.whole("GATEWAY_LOG_QUEUE_SIZE", 10_000),
            trusted_proxies=_trusted_proxies(env.get("GATEWAY_TRUSTED_PROXIES")),
        )


def database_url(environ: Mapping[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    return env.get("GATEWAY_DATABASE_URL", DEFAULT_DATABASE_URL)


class _Numbers:
    """Positive numbers from the environment; anything else stops the process with one clear line."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env

    def whole(self, name: str, default: int) -> int:
        raw = self.env.get(name)
        if raw is None or raw == "":
            return default
        try:
            value = int(raw)
        except ValueError:
            raise SystemExit(f"{name} must be a whole number, not {raw!r}") from None
        if value <= 0:
            raise SystemExit(f"{name} must be positive, not {value}")
        return value

    def seconds(self, name: str, default: float) -> float:
        raw = self.env.get(name)
        if raw is None or raw == "":
            return default
        try:
            value = float(raw)
        except ValueError:
            raise SystemExit(f"{name} must be a number of seconds, not {raw!r}") from None
        if not 0 < value < float("inf"):
            raise SystemExit(f"{name} must be a positive number of seconds, not {raw}")
        return value


def _live(number: _Numbers) -> LiveSettings:
    defaults = LiveSettings()
    return LiveSettings(
        poll_seconds=number.seconds("GATEWAY_LIVE_POLL_SECONDS", defaults.poll_seconds),
        gap_seconds=number.seconds("GATEWAY_LIVE_GAP_SECONDS", defaults.gap_seconds),
        buffer=number.whole("GATEWAY_LIVE_BUFFER", defaults.buffer),
        per_connection=number.whole("GATEWAY_LIVE_PER_CONNECTION", defaults.per_connection),
        per_user=number.whole("GATEWAY_LIVE_PER_USER", defaults.per_user),
        ping_seconds=number.seconds("GATEWAY_LIVE_PING_SECONDS", defaults.ping_seconds),
        idle_seconds=number.seconds("GATEWAY_LIVE_IDLE_SECONDS", defaults.idle_seconds),
        init_seconds=number.seconds("GATEWAY_LIVE_INIT_SECONDS", defaults.init_seconds),
    )


def _switch(env: Mapping[str, str], name: str, *, default: bool) -> bool:
    raw = env.get(name, "")
    if raw not in ("", "0", "1"):
        raise SystemExit(f"{name} must be 1 or 0, not {raw!r}")
    return default if raw == "" else raw == "1"


def _public_url(raw: str | None) -> str | None:
    if not raw:
        return None
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise SystemExit(f"GATEWAY_PUBLIC_URL must be an http(s) URL such as https://shop.example/erp, not {raw!r}")
    return raw.rstrip("/")


def _log_format(raw: str | None) -> str:
    if not raw:
        return "text"
    if raw not in LOG_FORMATS:
        raise SystemExit(f"GATEWAY_LOG_FORMAT must be text or json, not {raw!r}")
    return raw


def _trusted_proxies(raw: str | None) -> tuple[str, ...]:
    """Comma-separated addresses and networks (CIDR). An entry uvicorn could not read would silently trust
    nobody there: it stops the process here instead."""
    return tuple(dict.fromkeys(_trusted_proxy(item.strip()) for item in (raw or "").split(",") if item.strip()))


def _trusted_proxy(raw: str) -> str:
    try:
        return str(ip_network(raw, strict=False)) if "/" in raw else str(ip_address(raw))
    except ValueError:
        pass
    what = "'*' (any client could claim any address) is not accepted" if raw == "*" else f"not {raw!r}"
    raise SystemExit(
        f"GATEWAY_TRUSTED_PROXIES must list the proxies' addresses or networks, such as 127.0.0.1 or 10.0.0.0/8; {what}"
    )


def _cors_origins(raw: str | None) -> tuple[str, ...]:
    """Comma-separated origins, each written as a browser sends it in `Origin` (lower case, no default port),
    so that `https://Shop.example:443` matches what the browser says."""
    origins = [_cors_origin(item.strip()) for item in (raw or "").split(",") if item.strip()]
    return tuple(dict.fromkeys(origins))


def _cors_origin(raw: str) -> str:
    if raw == "*":
        # A token is no cookie, so '*' would give no page a user's session; refused all the same, so that
        # every frontend allowed is named, and a page that got hold of a token cannot use it from anywhere.
        raise SystemExit("GATEWAY_CORS_ORIGINS must name each origin; '*' (every site on the web) is not accepted")
    parts = urlsplit(raw)
    try:
        port = parts.port
    except ValueError:  # not a number from 0 to 65535
        port = -1
    host = parts.hostname or ""
    if (
        port == -1
        or parts.scheme not in ("http", "https")
        or not _ORIGIN_HOST.fullmatch(host)
        or parts.username is not None
        or parts.path
        or "?" in raw
        or "#" in raw
    ):
        raise SystemExit(
            "GATEWAY_CORS_ORIGINS must list origins such as https://shop.example or http://localhost:3000 "
            f"(scheme://host[:port], no path), not {raw!r}"
        )
    host = f"[{host}]" if ":" in host else host
    default_port = 443 if parts.scheme == "https" else 80
    return f"{parts.scheme}://{host}" + ("" if port in (None, default_port) else f":{port}")


def secret_file_for(database_url: str) -> Path:
    """Where the generated signing key is kept: beside an SQLite file, else in the working directory."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        return Path(url.database + ".secret")
    return Path("gateway.secret")


def load_or_create_secret(database_url: str) -> str:
    path = secret_file_for(database_url)
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        pass
    key = secrets.token_urlsafe(48)
    try:
        # O_EXCL: when two processes start at once, exactly one key wins and both use it.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    with os.fdopen(fd, "w") as handle:
        handle.write(key + "\n")
    return key
