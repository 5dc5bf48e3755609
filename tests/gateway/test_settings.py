"""Settings.from_env: GATEWAY_* variables, defaults, and the generated signing key."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from datasources.database import Timeouts
from gateway.settings import DEFAULT_DATABASE_URL, ServerLimits, Settings
from schema.limits import DocumentLimits, RequestLimits

KEY = "a-configured-secret-key-0123456789-0123456789"


def test_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)

    settings = Settings.from_env({"GATEWAY_SECRET_KEY": KEY})

    assert settings == Settings(
        database_url=DEFAULT_DATABASE_URL,
        secret_key=KEY,
        log_dir=Path("logs"),
        token_lifetime=3600,
        max_body_bytes=32 * 1024 * 1024,
        max_json_bytes=4 * 1024 * 1024,
        max_path_bytes=2048,
        max_query_bytes=8192,
        request_timeout=30.0,
        public_url=None,
        database_timeouts=Timeouts(connect=5.0, statement=10.0, pool=5.0),
        request_limits=RequestLimits(positions=1000, payments=100, sort_keys=10, field_names=100),
        server=ServerLimits(
            header_timeout=10.0,
            body_timeout=30.0,
            body_min_rate=1024,
            keep_alive_timeout=5.0,
            max_connections=1000,
            max_head_bytes=65536,
        ),
        debug_sql=False,
    )
    assert DEFAULT_DATABASE_URL == "sqlite+aiosqlite:///gateway.db"
    assert list(tmp_path.iterdir()) == []


def test_every_variable_is_read(tmp_path: Path) -> None:
    settings = Settings.from_env(
        {
            "GATEWAY_DATABASE_URL": "postgresql+asyncpg://gw@db.internal/erp",
            "GATEWAY_SECRET_KEY": KEY,
            "GATEWAY_LOG_DIR": str(tmp_path / "log"),
            "GATEWAY_WORK_DIR": str(tmp_path / "work"),
            "GATEWAY_TOKEN_LIFETIME": "900",
            "GATEWAY_TOKEN_CHECK_SECONDS": "2.5",
            "GATEWAY_MAX_BODY_BYTES": "4096",
            "GATEWAY_MAX_JSON_BYTES": "2048",
            "GATEWAY_MAX_PATH_BYTES": "512",
            "GATEWAY_MAX_QUERY_BYTES": "1024",
            "GATEWAY_REQUEST_TIMEOUT": "12.5",
            "GATEWAY_PUBLIC_URL": "https://shop.example/erp/",
            "GATEWAY_DB_CONNECT_TIMEOUT": "2",
            "GATEWAY_DB_STATEMENT_TIMEOUT": "3",
            "GATEWAY_DB_POOL_TIMEOUT": "4",
            "GATEWAY_MAX_POSITIONS": "50",
            "GATEWAY_MAX_PAYMENTS": "5",
            "GATEWAY_MAX_SORT_KEYS": "3",
            "GATEWAY_MAX_FIELDS": "20",
            "GATEWAY_HEADER_TIMEOUT": "6",
            "GATEWAY_BODY_TIMEOUT": "7",
            "GATEWAY_KEEP_ALIVE_TIMEOUT": "8",
            "GATEWAY_MAX_CONNECTIONS": "64",
            "GATEWAY_BODY_MIN_RATE": "100",
            "GATEWAY_MAX_HEAD_BYTES": "4096",
            "GATEWAY_GRAPHQL_MAX_BYTES": "1000",
            "GATEWAY_GRAPHQL_MAX_DEPTH": "5",
            "GATEWAY_GRAPHQL_MAX_ALIASES": "6",
            "GATEWAY_GRAPHQL_MAX_TOKENS": "700",
            "GATEWAY_GRAPHQL_MAX_COST": "8000",
            "GATEWAY_GRAPHQL_MAX_SCHEMA_WALKS": "2",
            "GATEWAY_GRAPHQL_PAGE_SIZE": "9",
            "GATEWAY_GRAPHQL_CACHE_BYTES": "10000",
            "GATEWAY_GRAPHQL_PERSISTED_BYTES": "20000",
            "GATEWAY_DEBUG_SQL": "1",
            "GATEWAY_WORKER_TIMEOUT": "90",
            "GATEWAY_LOG_FORMAT": "json",
            "GATEWAY_LOG_QUEUE_SIZE": "500",
        }
    )

    assert settings == Settings(
        database_url="postgresql+asyncpg://gw@db.internal/erp",
        secret_key=KEY,
        log_dir=tmp_path / "log",
        work_dir=tmp_path / "work",
        token_lifetime=900,
        token_check_seconds=2.5,
        max_body_bytes=4096,
        max_json_bytes=2048,
        max_path_bytes=512,
        max_query_bytes=1024,
        request_timeout=12.5,
        public_url="https://shop.example/erp",
        database_timeouts=Timeouts(connect=2.0, statement=3.0, pool=4.0),
        request_limits=RequestLimits(positions=50, payments=5, sort_keys=3, field_names=20),
        server=ServerLimits(
            header_timeout=6.0,
            body_timeout=7.0,
            body_min_rate=100,
            keep_alive_timeout=8.0,
            max_connections=64,
            max_head_bytes=4096,
        ),
        document_limits=DocumentLimits(
            max_bytes=1000,
            max_depth=5,
            max_aliases=6,
            max_tokens=700,
            max_cost=8000,
            max_schema_walks=2,
            page_size=9,
            cache_bytes=10000,
            persisted_bytes=20000,
        ),
        debug_sql=True,
        worker_timeout=90,
        log_format="json",
        log_queue_size=500,
    )


def test_the_process_environment_is_the_default_source(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GATEWAY_SECRET_KEY", KEY)
    monkeypatch.setenv("GATEWAY_TOKEN_LIFETIME", "60")

    settings = Settings.from_env()

    assert settings.secret_key == KEY
    assert settings.token_lifetime == 60


def test_health_and_metrics_settings() -> None:
    defaults = Settings.from_env({"GATEWAY_SECRET_KEY": KEY})
    assert (defaults.ready_timeout, defaults.metrics_public) == (2.0, False)

    settings = Settings.from_env(
        {"GATEWAY_SECRET_KEY": KEY, "GATEWAY_READY_TIMEOUT": "0.5", "GATEWAY_METRICS_PUBLIC": "1"}
    )
    assert (settings.ready_timeout, settings.metrics_public) == (0.5, True)
    assert not Settings.from_env({"GATEWAY_SECRET_KEY": KEY, "GATEWAY_METRICS_PUBLIC": "0"}).metrics_public


@pytest.mark.parametrize(("raw", "expected"), [("1", 1), ("7200", 7200), (" 120 ", 120), ("", 3600)])
def test_token_lifetime_parsing(raw: str, expected: int) -> None:
    settings = Settings.from_env({"GATEWAY_SECRET_KEY": KEY, "GATEWAY_TOKEN_LIFETIME": raw})

    assert settings.token_lifetime == expected


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("abc", "GATEWAY_TOKEN_LIFETIME must be a whole number, not 'abc'"),
        ("1.5", "GATEWAY_TOKEN_LIFETIME must be a whole number, not '1.5'"),
        ("1h", "GATEWAY_TOKEN_LIFETIME must be a whole number, not '1h'"),
        ("0", "GATEWAY_TOKEN_LIFETIME must be positive, not 0"),
        ("-60", "GATEWAY_TOKEN_LIFETIME must be positive, not -60"),
    ],
)
def test_an_invalid_token_lifetime_stops_the_process(raw: str, message: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        Settings.from_env({"GATEWAY_SECRET_KEY": KEY, "GATEWAY_TOKEN_LIFETIME": raw})

    assert exit_info.value.code == message


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("GATEWAY_MAX_BODY_BYTES", "lots", "GATEWAY_MAX_BODY_BYTES must be a whole number, not 'lots'"),
        ("GATEWAY_REQUEST_TIMEOUT", "soon", "GATEWAY_REQUEST_TIMEOUT must be a number of seconds, not 'soon'"),
        (
            "GATEWAY_DB_STATEMENT_TIMEOUT",
            "0",
            "GATEWAY_DB_STATEMENT_TIMEOUT must be a positive number of seconds, not 0",
        ),
        ("GATEWAY_HEADER_TIMEOUT", "inf", "GATEWAY_HEADER_TIMEOUT must be a positive number of seconds, not inf"),
        ("GATEWAY_MAX_POSITIONS", "-1", "GATEWAY_MAX_POSITIONS must be positive, not -1"),
        (
            "GATEWAY_PUBLIC_URL",
            "shop.example",
            "GATEWAY_PUBLIC_URL must be an http(s) URL such as https://shop.example/erp, not 'shop.example'",
        ),
        ("GATEWAY_READY_TIMEOUT", "0", "GATEWAY_READY_TIMEOUT must be a positive number of seconds, not 0"),
        # A typo must not open /metrics, nor silently leave it closed to a scraper that expects it open.
        ("GATEWAY_METRICS_PUBLIC", "yes", "GATEWAY_METRICS_PUBLIC must be 1 or 0, not 'yes'"),
        ("GATEWAY_WORKER_TIMEOUT", "1.5", "GATEWAY_WORKER_TIMEOUT must be a whole number, not '1.5'"),
        ("GATEWAY_LOG_FORMAT", "JSON", "GATEWAY_LOG_FORMAT must be text or json, not 'JSON'"),
        ("GATEWAY_LOG_QUEUE_SIZE", "0", "GATEWAY_LOG_QUEUE_SIZE must be positive, not 0"),
        (
            "GATEWAY_TRUSTED_PROXIES",
            "127.0.0.1,proxy.internal",
            "GATEWAY_TRUSTED_PROXIES must list the proxies' addresses or networks, such as 127.0.0.1 or "
            "10.0.0.0/8; not 'proxy.internal'",
        ),
        (
            "GATEWAY_TRUSTED_PROXIES",
            "*",
            "GATEWAY_TRUSTED_PROXIES must list the proxies' addresses or networks, such as 127.0.0.1 or "
            "10.0.0.0/8; '*' (any client could claim any address) is not accepted",
        ),
        (
            "GATEWAY_TRUSTED_PROXIES",
            "10.0.0.0/33",
            "GATEWAY_TRUSTED_PROXIES must list the proxies' addresses or networks, such as 127.0.0.1 or "
            "10.0.0.0/8; not '10.0.0.0/33'",
        ),
    ],
)
def test_an_invalid_setting_stops_the_process_with_one_line(name: str, raw: str, message: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        Settings.from_env({"GATEWAY_SECRET_KEY": KEY, name: raw})

    assert exit_info.value.code == message


def test_a_key_is_generated_once_beside_the_sqlite_file(tmp_path: Path) -> None:
    env = {"GATEWAY_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'shop.db'}"}
    key_file = tmp_path / "shop.db.secret"

    first = Settings.from_env(env)

    assert key_file.read_text() == first.secret_key + "\n"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(first.secret_key) >= 32
    assert Settings.from_env(env).secret_key == first.secret_key
    # Another database gets a key of its own.
    other = Settings.from_env({"GATEWAY_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'other.db'}"})
    assert other.secret_key != first.secret_key
    assert (tmp_path / "other.db.secret").exists()


def test_an_empty_secret_key_variable_also_uses_the_generated_key(tmp_path: Path) -> None:
    env = {"GATEWAY_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'shop.db'}", "GATEWAY_SECRET_KEY": ""}

    settings = Settings.from_env(env)

    assert settings.secret_key
    assert (tmp_path / "shop.db.secret").read_text().strip() == settings.secret_key


def test_a_configured_key_writes_no_file(tmp_path: Path) -> None:
    env = {"GATEWAY_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'shop.db'}", "GATEWAY_SECRET_KEY": KEY}

    assert Settings.from_env(env).secret_key == KEY
    assert list(tmp_path.iterdir()) == []


def test_an_existing_key_file_is_used(tmp_path: Path) -> None:
    (tmp_path / "shop.db.secret").write_text("kept-from-an-earlier-start\n")

    settings = Settings.from_env({"GATEWAY_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'shop.db'}"})

    assert settings.secret_key == "kept-from-an-earlier-start"


@pytest.mark.parametrize(
    "url", ["postgresql+asyncpg://gw@db.internal/erp", "sqlite+aiosqlite:///:memory:", "sqlite+aiosqlite://"]
)
def test_without_a_database_file_the_key_is_kept_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, url: str
) -> None:
    monkeypatch.chdir(tmp_path)

    first = Settings.from_env({"GATEWAY_DATABASE_URL": url})

    assert (tmp_path / "gateway.secret").read_text() == first.secret_key + "\n"
    assert stat.S_IMODE((tmp_path / "gateway.secret").stat().st_mode) == 0o600
    assert Settings.from_env({"GATEWAY_DATABASE_URL": url}).secret_key == first.secret_key


def test_trusted_proxies_are_addresses_and_networks_as_uvicorn_compares_them() -> None:
    assert Settings.from_env({"GATEWAY_SECRET_KEY": KEY}).trusted_proxies == ()
    settings = Settings.from_env(
        {"GATEWAY_SECRET_KEY": KEY, "GATEWAY_TRUSTED_PROXIES": " 127.0.0.1, 10.1.2.3/8,::1,fd00::/8,127.0.0.1,"}
    )
    assert settings.trusted_proxies == ("127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8")


def test_no_cors_origin_by_default() -> None:
    assert Settings.from_env({"GATEWAY_SECRET_KEY": KEY}).cors_origins == ()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("https://shop.example", ("https://shop.example",)),
        (" https://shop.example , http://localhost:3000,", ("https://shop.example", "http://localhost:3000")),
        # As a browser writes Origin: lower case, without the scheme's default port, listed once.
        ("HTTPS://Shop.Example:443,https://shop.example", ("https://shop.example",)),
        ("http://127.0.0.1:80,http://[::1]:8080", ("http://127.0.0.1", "http://[::1]:8080")),
        ("", ()),
    ],
)
def test_cors_origins_are_read_as_a_browser_writes_them(raw: str, expected: tuple[str, ...]) -> None:
    settings = Settings.from_env({"GATEWAY_SECRET_KEY": KEY, "GATEWAY_CORS_ORIGINS": raw})

    assert settings.cors_origins == expected


@pytest.mark.parametrize(
    "raw",
    [
        "shop.example",
        "https://shop.example/",
        "https://shop.example/shop",
        "https://shop.example?x=1",
        "https://user@shop.example",
        "https://shop.example:99999",
        "ftp://shop.example",
        "null",
        "https://bücher.example",
    ],
)
def test_a_cors_origin_with_more_or_less_than_an_origin_stops_the_process(raw: str) -> None:
    with pytest.raises(SystemExit) as exit_info:
        Settings.from_env({"GATEWAY_SECRET_KEY": KEY, "GATEWAY_CORS_ORIGINS": f"http://localhost:3000,{raw}"})

    assert exit_info.value.code == (
        "GATEWAY_CORS_ORIGINS must list origins such as https://shop.example or http://localhost:3000 "
        f"(scheme://host[:port], no path), not {raw!r}"
    )


def test_a_wildcard_cors_origin_stops_the_process() -> None:
    with pytest.raises(SystemExit) as exit_info:
        Settings.from_env({"GATEWAY_SECRET_KEY": KEY, "GATEWAY_CORS_ORIGINS": "*"})

    assert exit_info.value.code == (
        "GATEWAY_CORS_ORIGINS must name each origin; '*' (every site on the web) is not accepted"
    )
