"""Benchmark: what the full catalogue page would cost if the database wrote its JSON (issue 15's open goal).

The full pages `GET /www/artikel?limit=100` and `?limit=1000` are not within 1.3x of a direct app's CPU; the
README names two routes that could close that, and both are the team's decision: a REST page read outside
the GraphQL executor, or the database building the JSON (as Hasura and PostGraphile compile a selection into
one statement). This prints what each would cost beside the REST route as it is, in one run, on one
catalogue:

  REST route       the real ASGI app in process (compiled plans, auth, middleware, reshaping)
  data layer       the REST page outside the executor: datasources/catalogue's batched reads -> dicts -> orjson
                   (bench/catalogue/direct_page.py, as bench/catalogue/main.py's direct build)
  database JSON    one statement (bench/database_json/sql.py) writes the page's `data`; Python parses it and
                   writes the body as the route does (orjson, ASCII escapes), adding the links. On SQLite a
                   second row takes SQLite's text as written (no parse), where it is byte for byte the same.

Before timing it checks, at both sizes, that each build's body equals the REST route's (parsed, and byte for
byte where a row says so); it exits non-zero otherwise. CPU is the main thread's; SQLite runs every statement
there (the gateway's page reads run on the event loop's thread), PostgreSQL on the server: on PostgreSQL the
server's CPU for the bench database's backends is printed too (from /proc: the server must run on this
machine), since that route moves the work into the one database every gateway process shares.

    python -m bench database-json [--articles N] [--repeat R] [--repeat-1000 R] [--database-url postgresql+asyncpg://...]
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import orjson
from sqlalchemy.engine import make_url

from bench.catalogue.direct_page import BASE_URL, DirectPage, page_links

# Run as a script: bench/ is on the path.
from bench.catalogue.main import (
    _positive,
    _postgresql_url,
    build_catalogue,
    first_difference,
    rest_client,
    rest_page,
    set_collector,
    throwaway_database,
)
from bench.common.processes import asyncpg_dsn, process_cpu
from bench.database_json.sql import JsonSql, numbered, page_data
from datasources.catalogue.view import CatalogueView, resolve_view
from datasources.database import Database
from rest_compat.responses import encode_json

PAGE_SIZES = (100, 1000)
REST = "REST route (compiled plans)"
DATA_LAYER = "data layer -> dicts (no executor)"
DATABASE_JSON = "database JSON, parsed"
AS_WRITTEN = "database JSON, as written"

Build = Callable[[], Awaitable[bytes]]


@dataclass
class DatabasePage:
    """The page of `limit` articles, its `data` written by the database."""

    statement: str
    values: dict[str, Any]
    fetch: Callable[[str, dict[str, Any]], Awaitable[tuple[str, int]]]
    limit: int

    async def _data(self) -> tuple[str, bool]:
        text, rows = await self.fetch(self.statement, {**self.values, "limit": self.limit + 1, "shown": self.limit})
        return text, rows > self.limit

    async def parsed(self) -> bytes:
        text, more = await self._data()
        return encode_json({"data": orjson.loads(text), "links": page_links(BASE_URL, self.limit, 0, more)})

    async def as_written(self) -> bytes:
        """SQLite's compact text as it is, between the envelope's bytes (ASCII escapes only where needed)."""
        text, more = await self._data()
        links = orjson.dumps(page_links(BASE_URL, self.limit, 0, more))
        body = b'{"data":' + text.encode() + b',"links":' + links + b"}"
        return body if body.isascii() else encode_json(orjson.loads(body))


class JsonConnection:
    """The database JSON's own connection: sqlite3 on this thread, or one asyncpg connection."""

    def __init__(self, url: str) -> None:
        self.url = make_url(url)
        self.sqlite: sqlite3.Connection | None = None
        self.postgresql: asyncpg.Connection | None = None

    async def open(self) -> JsonSql:
        if self.url.get_backend_name() == "sqlite":
            self.sqlite = sqlite3.connect(str(self.url.database), isolation_level=None)
            return JsonSql("sqlite")
        # Without JIT: at 1000 articles PostgreSQL's estimate passes jit_above_cost, and compiling the
        # statement's expressions took 200 ms of a 430 ms statement (EXPLAIN ANALYZE), on every execution.
        dsn = asyncpg_dsn(self.url.render_as_string(hide_password=False))
        self.postgresql = await asyncpg.connect(dsn, server_settings={"jit": "off"})
        return JsonSql("postgresql")

    async def fetch(self, statement: str, values: dict[str, Any]) -> tuple[str, int]:
        if self.sqlite is not None:
            text, rows = self.sqlite.execute(statement, values).fetchone()
            return str(text), int(rows)
        assert self.postgresql is not None
        positional, ordered = numbered(statement, values)
        row = await self.postgresql.fetchrow(positional, *ordered)
        assert row is not None
        return str(row[0]), int(row[1])

    async def close(self) -> None:
        if self.sqlite is not None:
            self.sqlite.close()
        if self.postgresql is not None:
            await self.postgresql.close()


@dataclass
class Figures:
    cpu: list[float]
    server: list[float]


class ServerCpu:
    """CPU seconds of the PostgreSQL backends of the bench database; nothing on SQLite."""

    def __init__(self, url: str) -> None:
        self.url = make_url(url)
        self.pids: list[int] = []

    async def find_backends(self) -> None:
        """The backends open now: after a warm-up, every pool's connections (the gateway's, the data layer's)."""
        if self.url.get_backend_name() == "sqlite":
            return
        connection = await asyncpg.connect(asyncpg_dsn(self.url.render_as_string(hide_password=False)))
        try:
            rows = await connection.fetch(
                "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", self.url.database
            )
        finally:
            await connection.close()
        self.pids = [row["pid"] for row in rows]

    def now(self) -> float:
        return process_cpu(self.pids) if self.pids else 0.0


async def timed(builds: dict[str, Build], repeat: int, server: ServerCpu) -> dict[str, Figures]:
    """Round-robin, after a warm-up each: the main thread's CPU and the backends' per run, in ms."""
    for build in builds.values():
        await build()
    await server.find_backends()
    figures = {label: Figures([], []) for label in builds}
    for _ in range(repeat):
        for label, build in builds.items():
            cpu, backends = time.thread_time(), server.now()
            await build()
            figures[label].cpu.append((time.thread_time() - cpu) * 1000)
            figures[label].server.append((server.now() - backends) * 1000)
    return figures


def check(name: str, body: bytes, rest: bytes, *, exact: bool) -> None:
    if body == rest:
        return
    difference = first_difference(orjson.loads(body), orjson.loads(rest), (name, "REST"))
    if difference or exact:
        raise SystemExit(f"{name} and REST bodies differ at {difference or 'their bytes (same values)'}")


def print_figures(limit: int, size: int, figures: dict[str, Figures], postgresql: bool) -> None:
    print(f"{limit}-article full page ({size / 1024:,.0f} KB), {len(next(iter(figures.values())).cpu)} runs")
    header = f"  {'':<38}{'CPU':>10}{'/REST':>8}"
    print(header + (f"{'PostgreSQL':>13}{'together':>11}{'/REST':>8}" if postgresql else ""))
    rest = figures[REST]
    rest_cpu, rest_server = statistics.median(rest.cpu), statistics.mean(rest.server)
    for label, figure in figures.items():
        cpu = statistics.median(figure.cpu)
        line = f"  {label:<38}{cpu:>7.1f} ms{cpu / rest_cpu:>7.2f}x"
        if postgresql:
            server = statistics.mean(figure.server)  # /proc counts in ticks: the mean of many runs
            together = cpu + server
            line += f"{server:>10.1f} ms{together:>8.1f} ms{together / (rest_cpu + rest_server):>7.2f}x"
        print(line)


async def compare(db: Database, url: str, tmp: Path, repeats: dict[int, int]) -> None:
    view: CatalogueView = await resolve_view(db.reads)
    if len(view.price_list_ids) != 1:
        raise SystemExit(f"the default view has the price lists {view.price_list_ids}; the statement knows one")
    connections = JsonConnection(url)
    sql = await connections.open()
    values = {"currency": view.currency, "price_list": view.price_list_ids[0], "base": BASE_URL}
    try:
        async with rest_client(url, tmp / "logs") as client:
            server = ServerCpu(url)
            for limit in PAGE_SIZES:
                page = DatabasePage(page_data(sql), values, connections.fetch, limit)
                builds = _builds(client, db, page, limit, sql.sqlite)
                rest = (await rest_page(client, limit)).content
                check(DATA_LAYER, await builds[DATA_LAYER](), rest, exact=False)
                check(DATABASE_JSON, await page.parsed(), rest, exact=True)
                if AS_WRITTEN in builds:
                    check(AS_WRITTEN, await page.as_written(), rest, exact=True)
                print_figures(limit, len(rest), await timed(builds, repeats[limit], server), not sql.sqlite)
    finally:
        await connections.close()


def _builds(client: httpx.AsyncClient, db: Database, page: DatabasePage, limit: int, sqlite: bool) -> dict[str, Build]:
    async def through_rest() -> bytes:
        return (await rest_page(client, limit)).content

    builds: dict[str, Build] = {
        REST: through_rest,
        DATA_LAYER: DirectPage(db, limit).body,
        DATABASE_JSON: page.parsed,
    }
    if sqlite:
        builds[AS_WRITTEN] = page.as_written
    return builds


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--articles", type=_positive, default=20_000, help="catalogue size (20000)")
    parser.add_argument("--repeat", type=_positive, default=40, help="timed runs per build, 100 articles (40)")
    parser.add_argument("--repeat-1000", type=_positive, default=8, help="timed runs per build, 1000 articles (8)")
    parser.add_argument("--database-url", type=_postgresql_url, default=None, help="a PostgreSQL server")
    return parser.parse_args(argv)


async def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-database-json-") as tmp:
        async with throwaway_database(args.database_url, Path(tmp)) as url:
            db, seconds = await build_catalogue(url, args.articles)
            try:
                print(f"catalogue: {args.articles} articles built in {seconds:.1f} s ({db.engine.dialect.name})")
                print(f"garbage collector: {set_collector(False)}")
                await compare(db, url, Path(tmp), {100: args.repeat, 1000: args.repeat_1000})
            finally:
                await db.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
