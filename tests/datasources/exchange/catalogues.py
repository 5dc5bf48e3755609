"""What the exchange tests share: demo catalogues in a database, the CLI run in-process, record files."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import orjson
import pytest

from datasources.database import create_database
from datasources.demo import fill_demo
from datasources.migrate import upgrade
from datasources.models import ApiUser
from gateway import cli

CUSTOMERS = 6
SECRET = "round-trip-secret-key-that-is-long-enough-0123456789"
CREATED = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)


async def fill(url: str, articles: int, seed: int) -> None:
    """Migrates and fills `url` with a demo catalogue (0 articles: the reference data and customers only),
    and the API user `shop`, created at CREATED."""
    db = create_database(url)
    try:
        await upgrade(db.engine)
        await fill_demo(db.engine, articles=articles, customers=CUSTOMERS, seed=seed)
        async with db.writer() as session, session.begin():
            session.add(ApiUser(name="shop", secret_hash="-", scopes="shop", created_at=CREATED, token_version=0))
    finally:
        await db.dispose()


def run_cli(monkeypatch: pytest.MonkeyPatch, url: str, *args: str) -> int:
    monkeypatch.setenv("GATEWAY_DATABASE_URL", url)
    monkeypatch.setenv("GATEWAY_SECRET_KEY", SECRET)
    return cli.main(list(args))


def write_records(path: Path, *records: object) -> Path:
    """JSON Lines; a bytes record is written as it is (a broken line)."""
    path.write_bytes(b"".join((r if isinstance(r, bytes) else orjson.dumps(r)) + b"\n" for r in records))
    return path
