"""Throwaway databases for the tests: nothing depends on an earlier run.

SQLite (default): one migrated template file per run, copied for every test.
PostgreSQL (GATEWAY_TEST_DATABASE_URL, asyncpg): a database of its own per run, created from the
given server, migrated once, emptied and its sequences set back before every test, dropped at the end.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import uuid
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from datasources import migrate
from datasources.database import create_database
from datasources.models import Base

SERVER_URL = os.environ.get("GATEWAY_TEST_DATABASE_URL", "")


def backend() -> str:
    return "postgresql" if SERVER_URL else "sqlite"


async def create_template(directory: Path) -> str:
    """Migrate a new database once per run; returns its URL."""
    if SERVER_URL:
        url = make_url(SERVER_URL)
        name = f"gateway_test_{uuid.uuid4().hex[:12]}"
        admin = create_async_engine(url, isolation_level="AUTOCOMMIT")
        async with admin.connect() as conn:
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
        await admin.dispose()
        template = url.set(database=name).render_as_string(hide_password=False)
    else:
        template = f"sqlite+aiosqlite:///{directory / 'template.db'}"
    db = create_database(template)
    await migrate.upgrade(db.engine)
    await db.dispose()
    if SERVER_URL:
        await _remember_seeded_rows(template)
    return template


async def drop_template(template: str) -> None:
    if not SERVER_URL:
        return
    name = make_url(template).database
    admin = create_async_engine(make_url(SERVER_URL), isolation_level="AUTOCOMMIT")
    async with admin.connect() as conn:
        await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    await admin.dispose()


async def fresh_database(template: str, directory: Path) -> str:
    """A clean, migrated database for one test: what the migrations seeded, nothing else."""
    if not SERVER_URL:
        source = make_url(template).database
        assert source is not None
        target = directory / "test.db"
        shutil.copyfile(source, target)
        return f"sqlite+aiosqlite:///{target}"
    db = create_database(template)
    async with db.engine.begin() as conn:
        # DELETE, not TRUNCATE: a test's few rows go in a fraction of the time TRUNCATE takes to make new
        # files for every table and index (0.3-0.4 s a test, most of a test's own time on PostgreSQL). As a
        # replica: no trigger fires and no foreign key is checked while everything goes.
        await conn.execute(text("SET LOCAL session_replication_role = replica"))
        large = []
        for table in reversed(Base.metadata.sorted_tables):
            if (await conn.execute(table.delete())).rowcount > _LARGE:
                large.append(table.name)
        if large:  # new files after all, for the next tests' plans: no dead rows left in their tables
            names = ", ".join(f'"{name}"' for name in large)
            await conn.execute(text(f"TRUNCATE {names} CASCADE"))
        for sequence, last_value in _sequences.items():
            if last_value is None:
                await conn.execute(text(f"ALTER SEQUENCE {sequence} RESTART"))
            else:
                await conn.execute(text(f"SELECT setval('{sequence}', {int(last_value)})"))
        for table in Base.metadata.sorted_tables:
            if rows := _seeded.get(table.name):
                await conn.execute(table.insert(), rows)
    await db.dispose()
    return template


# Rows the migrations write (number sequences, ...) and every sequence's state after them, restored before
# every test.
_seeded: dict[str, list[dict[str, Any]]] = {}
_sequences: dict[str, int | None] = {}
_LARGE = 5_000  # rows a table had, beyond which it is truncated too


async def _remember_seeded_rows(template: str) -> None:
    db = create_database(template)
    async with db.engine.connect() as conn:
        for table in Base.metadata.sorted_tables:
            rows = [dict(row._mapping) for row in await conn.execute(table.select())]
            if rows:
                _seeded[table.name] = rows
        sequences = text(
            "SELECT quote_ident(schemaname) || '.' || quote_ident(sequencename), last_value FROM pg_sequences"
        )
        _sequences.update({name: last_value for name, last_value in await conn.execute(sequences)})
    await db.dispose()


def run_sql(url: str, statement: str) -> Any:
    """One statement's scalar result, from synchronous test code (a short event loop of its own)."""

    async def run() -> Any:
        engine = create_async_engine(make_url(url), isolation_level="AUTOCOMMIT")
        try:
            async with engine.connect() as conn:
                return (await conn.execute(text(statement))).scalar()
        finally:
            await engine.dispose()

    return asyncio.run(run())
