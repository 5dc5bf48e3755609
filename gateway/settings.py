"""Configuration from `GATEWAY_*` environment variables, read once per process."""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///gateway.db"


@dataclass(frozen=True)
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    secret_key: str = ""
    log_dir: Path = Path("logs")
    work_dir: Path = Path("work")
    token_lifetime: int = 3600
    max_body_bytes: int = 32 * 1024 * 1024
    debug_sql: bool = False

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        url = env.get("GATEWAY_DATABASE_URL", DEFAULT_DATABASE_URL)
        return cls(
            database_url=url,
            secret_key=env.get("GATEWAY_SECRET_KEY") or load_or_create_secret(url),
            log_dir=Path(env.get("GATEWAY_LOG_DIR", "logs")),
            work_dir=Path(env.get("GATEWAY_WORK_DIR", "work")),
            token_lifetime=_positive_int(env, "GATEWAY_TOKEN_LIFETIME", 3600),
            max_body_bytes=_positive_int(env, "GATEWAY_MAX_BODY_BYTES", 32 * 1024 * 1024),
            debug_sql=env.get("GATEWAY_DEBUG_SQL", "") == "1",
        )


def _positive_int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise SystemExit(f"{name} must be a whole number of seconds or bytes, not {raw!r}") from None
    if value <= 0:
        raise SystemExit(f"{name} must be positive, not {value}")
    return value


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
