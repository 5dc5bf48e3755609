"""Benchmark: what the GraphQL layer costs on a full 100-article catalogue page.

Builds a demo catalogue (20,000 articles by default) in a throwaway database, then times the page
`GET /www/artikel?limit=100` (every field of the REST article structure) three ways:

  direct   the data layer's batched Core queries -> the REST body as plain dicts -> orjson
  graphql  the GraphQL document the REST route runs, through the schema's executor (+ orjson)
  rest     the whole REST route through the real ASGI app (auth, middleware, reshaping, Latin-1)

It checks first that the direct body equals the REST body, and that the REST route issues the same
number of SQL statements at limit 10, 100 and 1000. Run it by hand from the project directory:

    python bench/catalogue.py [--articles N] [--repeat R] [--database-url postgresql+asyncpg://...]

With --database-url (PostgreSQL only) a throwaway database is created on that server and dropped at the
end; the database named in the URL is only used to connect. Without it, a temporary SQLite file is used.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import re
import secrets
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
from asgi_lifespan import LifespanManager

# Run as a script: bench/ is on the path.
from direct_page import BASE_URL, PAGE_PATH, PAGE_SIZE, DirectPage
from sqlalchemy import text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import create_async_engine

from datasources import demo, migrate
from datasources.database import Database, create_database
from gateway.app import create_app
from gateway.auth.tokens import TokenIssuer
from gateway.settings import Settings
from rest_compat.articles import list_operation
from schema.context import Context
from schema.execution import Executor
from schema.permissions import Principal
from schema.schema import build_schema

STATEMENT_LIMITS = (10, 100, 1000)
Json = dict[str, Any]
# The rows of the timing table.
DIRECT = "direct SQL -> dict -> orjson"
SQL = "  of which the SQL statements"
GRAPHQL = "GraphQL (graphql-core)"
REST = "REST route"
Link = dict[str, str]


# --- options and the throwaway database ------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--articles", type=_positive, default=20_000, help="catalogue size (20000)")
    parser.add_argument("--repeat", type=_positive, default=20, help="timed runs per variant (20)")
    parser.add_argument(
        "--database-url",
        type=_postgresql_url,
        default=None,
        help="a PostgreSQL server to create a throwaway database on (default: temporary SQLite file)",
    )
    return parser.parse_args(argv)


def _positive(raw: str) -> int:
    value = int(raw)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {value}")
    return value


def _postgresql_url(raw: str) -> URL:
    url = make_url(raw)
    if url.get_backend_name() != "postgresql":
        raise argparse.ArgumentTypeError("only PostgreSQL URLs; SQLite runs on a temporary file anyway")
    return url.set(drivername="postgresql+asyncpg")


@asynccontextmanager
async def throwaway_database(server: URL | None, directory: Path) -> AsyncIterator[str]:
    """The URL of a new, empty database, removed afterwards (SQLite: with the temporary directory)."""
    if server is None:
        yield f"sqlite+aiosqlite:///{directory / 'catalogue.db'}"
        return
    name = f"gateway_bench_{uuid.uuid4().hex[:12]}"
    await _on_server(server, f'CREATE DATABASE "{name}"')
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        await _on_server(server, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def _on_server(server: URL, statement: str) -> None:
    admin = create_async_engine(server, isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as conn:
            await conn.execute(text(statement))
    finally:
        await admin.dispose()


async def build_catalogue(url: str, articles_count: int) -> tuple[Database, float]:
    started = time.perf_counter()
    db = create_database(url)
    await migrate.upgrade(db.engine)
    if not await demo.fill_demo(db.engine, articles=articles_count, customers=200, seed=1):
        raise SystemExit("the new database already has articles")
    await settle(db)
    return db, time.perf_counter() - started


async def settle(db: Database) -> None:
    """Bring the freshly filled database to the steady state a running server reads from."""
    async with db.engine.connect() as conn:
        if db.engine.dialect.name == "sqlite":
            await conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")  # fold the fill's WAL in
        else:
            await conn.exec_driver_sql("ANALYZE")  # planner statistics for the new tables
            await conn.commit()


# --- (b) graphql and (c) rest ----------------------------------------------------------------------


@dataclass(frozen=True)
class GraphQLPage:
    executor: Executor
    db: Database
    log_dir: Path

    async def result(self) -> Json:
        _, document = list_operation(None)  # the REST route's document for all fields
        variables = {
            "limit": PAGE_SIZE,
            "offset": 0,
            "sort": None,
            "language": None,
            "currency": None,
            "customerNumber": None,
        }
        user = Principal.from_names("bench", ("shop",))
        context = Context(db=self.db, user=user, request_id="bench", log_dir=self.log_dir, work_dir=self.log_dir)
        result = await self.executor.execute(document, variables, context)
        if result.errors or result.data is None:
            raise SystemExit(f"GraphQL errors: {result.errors}")
        return result.data

    async def body(self) -> bytes:
        return orjson.dumps(await self.result())


@asynccontextmanager
async def rest_client(url: str, log_dir: Path) -> AsyncIterator[httpx.AsyncClient]:
    secret = secrets.token_urlsafe(48)
    app = create_app(Settings(database_url=url, secret_key=secret, log_dir=log_dir))
    token = TokenIssuer(secret, 3600).issue("bench", ("shop",))
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL, headers=headers) as client:
            yield client


async def rest_page(client: httpx.AsyncClient, limit: int = PAGE_SIZE) -> httpx.Response:
    response = await client.get(PAGE_PATH, params={"limit": limit})
    if response.status_code != 200:
        raise SystemExit(f"GET {PAGE_PATH}?limit={limit}: {response.status_code} {response.text[:500]}")
    return response


def statement_count(response: httpx.Response) -> int:
    timing = response.headers.get("server-timing", "")
    match = re.search(r'db;dur=[\d.]+;desc="(\d+) queries"', timing)
    if match is None:
        raise SystemExit(f"no statement count in Server-Timing: {timing!r}")
    return int(match.group(1))


# --- checks, timing and figures --------------------------------------------------------------------


def first_difference(left: Any, right: Any, path: str = "") -> str | None:
    """Where two parsed JSON values first differ, or None when they are equal."""
    if isinstance(left, dict) and isinstance(right, dict):
        for key in list(left) + [k for k in right if k not in left]:
            if key not in left or key not in right:
                side = "direct" if key in left else "REST"
                return f"{path}.{key}: only in the {side} body"
            found = first_difference(left[key], right[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(left, list) and isinstance(right, list):
        if len(left) != len(right):
            return f"{path}: {len(left)} entries (direct) vs {len(right)} (REST)"
        for index, (a, b) in enumerate(zip(left, right, strict=True)):
            found = first_difference(a, b, f"{path}[{index}]")
            if found:
                return found
        return None
    if left != right or type(left) is not type(right):
        return f"{path}: {left!r} (direct) vs {right!r} (REST)"
    return None


def leaf_count(value: Any) -> int:
    if isinstance(value, dict):
        return sum(leaf_count(v) for v in value.values())
    if isinstance(value, list):
        return sum(leaf_count(v) for v in value)
    return 1


async def timed(runs: dict[str, Callable[[], Awaitable[object]]], repeat: int) -> dict[str, list[float]]:
    """Milliseconds per run, after one warm-up each; round-robin, so that load on the machine hits
    every variant alike."""
    for run in runs.values():
        await run()
    samples: dict[str, list[float]] = {label: [] for label in runs}
    for _ in range(repeat):
        for label, run in runs.items():
            started = time.perf_counter()
            await run()
            samples[label].append((time.perf_counter() - started) * 1000)
    return samples


def p90(samples: Sequence[float]) -> float:
    ordered = sorted(samples)
    return ordered[math.ceil(0.9 * len(ordered)) - 1]  # nearest rank


def timing_row(label: str, samples: Sequence[float]) -> str:
    return f"  {label:<31}{statistics.median(samples):>8.1f} ms{p90(samples):>7.1f} ms"


async def check_same_body(db: Database, client: httpx.AsyncClient) -> bytes:
    """The REST body (bytes); exits when the direct body differs from it."""
    rest = (await rest_page(client)).content
    direct = orjson.loads(await DirectPage(db).body())
    difference = first_difference(direct, orjson.loads(rest.decode("iso-8859-1")))
    if difference:
        print(f"direct and REST bodies differ at {difference}")
        raise SystemExit(1)
    return rest


async def print_statement_counts(client: httpx.AsyncClient) -> bool:
    counts = [statement_count(await rest_page(client, limit)) for limit in STATEMENT_LIMITS]
    constant = len(set(counts)) == 1
    listed = ", ".join(f"limit {limit}: {count}" for limit, count in zip(STATEMENT_LIMITS, counts, strict=True))
    print(f"SQL statements per page: {listed} ({'constant' if constant else 'NOT constant'})")
    return constant


async def measure(db: Database, graphql: GraphQLPage, client: httpx.AsyncClient, repeat: int) -> dict[str, list[float]]:
    direct = DirectPage(db)
    timings = await timed(
        {
            DIRECT: direct.body,
            GRAPHQL: graphql.body,
            REST: lambda: rest_page(client),
        },
        repeat,
    )
    return {
        DIRECT: timings[DIRECT],
        SQL: direct.sql_ms[-repeat:],
        GRAPHQL: timings[GRAPHQL],
        REST: timings[REST],
    }


def print_timings(timings: dict[str, list[float]], repeat: int) -> None:
    print(f"{PAGE_SIZE}-article full page, {repeat} runs     median    p90")
    for label, samples in timings.items():
        print(timing_row(label, samples))
    direct, via_graphql, via_rest = (statistics.median(timings[label]) for label in (DIRECT, GRAPHQL, REST))
    print(f"  ratio graphql/direct {via_graphql / direct:.1f}x   rest/direct {via_rest / direct:.1f}x")


async def compare(db: Database, url: str, tmp: Path, repeat: int) -> int:
    graphql = GraphQLPage(Executor(build_schema()), db, tmp)
    async with rest_client(url, tmp / "logs") as client:
        rest_body = await check_same_body(db, client)
        print_timings(await measure(db, graphql, client, repeat), repeat)
        constant = await print_statement_counts(client)
    leaves = leaf_count(await graphql.result())
    print(f"page: {len(rest_body) / 1024:,.0f} KB, {leaves:,} leaf values")
    return 0 if constant else 1


async def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-catalogue-") as tmp:
        async with throwaway_database(args.database_url, Path(tmp)) as url:
            db, seconds = await build_catalogue(url, args.articles)
            try:
                backend = db.engine.dialect.name
                print(f"catalogue: {args.articles} articles built in {seconds:.1f} s ({backend})")
                return await compare(db, url, Path(tmp), args.repeat)
            finally:
                await db.dispose()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
