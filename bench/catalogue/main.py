"""Benchmark: what the GraphQL layer costs on a full catalogue page, with graphql-core and with compiled plans.

Builds a demo catalogue (20,000 articles by default) in a throwaway database, then times the pages
`GET /www/artikel?limit=100` and `?limit=1000` (every field of the REST article structure) four ways:

  direct        the data layer's batched Core queries -> the REST body as plain dicts -> orjson
  graphql-core  the GraphQL document the REST route runs, on graphql-core's executor alone (+ orjson)
  compiled      the same document on the compiled plans (schema/execution) (+ orjson)
  rest          the whole REST route through the real ASGI app (compiled plans, auth, middleware, reshaping)

It checks first, at both sizes, that the direct body equals the REST body, that graphql-core and the
compiled plans give the same bytes, and that the compiled runs and the REST route did run compiled
(Server-Timing `graphql;desc="compiled"`); after timing, that the REST route issues the same number of
SQL statements at limit 10, 100 and 1000. It exits non-zero when any of these fails. Then it prints the
executor's own share: compiling the document once, and executing it per page. Run it by hand from the
project directory:

    python -m bench catalogue [--articles N] [--repeat R] [--repeat-1000 R] [--default-gc]
                              [--database-url postgresql+asyncpg://...]

The garbage collector is set as `gateway serve` sets it (gateway/collector.py), for every build alike;
--default-gc keeps Python's defaults.

With --database-url (PostgreSQL only) a throwaway database is created on that server and dropped at the
end; the database named in the URL is only used to connect. Without it, a temporary SQLite file is used.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import re
import secrets
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
from asgi_lifespan import LifespanManager
from sqlalchemy import text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import create_async_engine

# Run as a script: bench/ is on the path.
from bench.catalogue.direct_page import BASE_URL, PAGE_PATH, DirectPage
from bench.catalogue.page_timing import PlanTimes, Run, Summary, in_process, plan_times, timed, with_stats
from datasources import demo, migrate, users
from datasources.database import Database, Timeouts, create_database
from gateway.app import create_app
from gateway.auth.tokens import TokenIssuer
from gateway.collector import tune_for_server
from gateway.settings import Settings
from rest_compat.articles import list_operation
from schema import execution
from schema.context import Context
from schema.execution import Executor
from schema.permissions import Principal
from schema.schema import build_schema

PAGE_SIZES = (100, 1000)
STATEMENT_LIMITS = (10, 100, 1000)
PLAN_RUNS = 10  # compilations of the document timed after the first
# The rows of the timing tables.
DIRECT = "direct SQL -> dict -> orjson"
GRAPHQL_CORE = "GraphQL, graphql-core only"
COMPILED = "GraphQL, compiled plans"
REST = "REST route (compiled plans)"
RATIOS = (("compiled", COMPILED), ("REST", REST), ("graphql-core", GRAPHQL_CORE))  # x/direct, wall medians
SERVER_TIMING = re.compile(
    r'db;dur=(?P<sql>[\d.]+);desc="(?P<statements>\d+) queries", graphql;dur=[\d.]+;desc="(?P<paths>[^"]*)"'
)
Json = dict[str, Any]


# --- options and the throwaway database ------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--articles", type=_positive, default=20_000, help="catalogue size (20000)")
    parser.add_argument("--repeat", type=_positive, default=20, help="timed runs per build, 100-article page (20)")
    parser.add_argument(
        "--repeat-1000", type=_positive, default=10, help="timed runs per build, 1000-article page (10)"
    )
    parser.add_argument(
        "--default-gc", action="store_true", help="Python's default collector settings, not the server's"
    )
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


BUILD_STATEMENT = 900.0  # seconds a statement of the build may take


async def build_catalogue(url: str, articles_count: int, timeouts: Timeouts | None = None) -> tuple[Database, float]:
    """A migrated demo catalogue; `timeouts`: the database's, by default a bulk load's (its VACUUM on PostgreSQL
    takes longer than a request's statement: past 10 s at 200,000 articles on a busy machine)."""
    started = time.perf_counter()
    db = create_database(url, timeouts=timeouts or Timeouts(statement=BUILD_STATEMENT))
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


# --- the builds: GraphQL, the REST route, and how each is run -------------------------------------


@dataclass(frozen=True)
class GraphQLPage:
    """The document `GET /www/artikel?limit=N` runs (every field), with the route's variables for page 1."""

    executor: Executor
    db: Database
    log_dir: Path
    limit: int

    async def result(self) -> Json:
        _, document = list_operation(None)  # the REST route's document for all fields
        variables = {
            "limit": self.limit,
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
    # The gateway refuses the tokens of a user that does not exist: the bench signs for a real one.
    db = create_database(url)
    try:
        user = await db.write(lambda session: users.add_user(session, "bench", secrets.token_urlsafe(16), ("shop",)))
    finally:
        await db.dispose()
    token = TokenIssuer(secret, 3600).issue(user.name, user.scopes, user.token_version)
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        headers = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL, headers=headers) as client:
            yield client


async def rest_page(client: httpx.AsyncClient, limit: int) -> httpx.Response:
    response = await client.get(PAGE_PATH, params={"limit": limit})
    if response.status_code != 200:
        raise SystemExit(f"GET {PAGE_PATH}?limit={limit}: {response.status_code} {response.text[:500]}")
    return response


@dataclass(frozen=True)
class ServerTiming:
    """The request statistics a REST response carries in its Server-Timing header."""

    sql_ms: float
    statements: int
    graphql_paths: str  # the executor path of each operation, comma-separated

    @classmethod
    def of(cls, response: httpx.Response) -> ServerTiming:
        header = response.headers.get("server-timing", "")
        match = SERVER_TIMING.fullmatch(header)
        if match is None:
            raise SystemExit(f"unexpected Server-Timing: {header!r}")
        return cls(float(match["sql"]), int(match["statements"]), match["paths"])


def through_rest(client: httpx.AsyncClient, limit: int) -> Run:
    async def run() -> float:
        return ServerTiming.of(await rest_page(client, limit)).sql_ms

    return run


@dataclass(frozen=True)
class Builds:
    """The four builds of the first page of `limit` articles."""

    limit: int
    direct: DirectPage
    graphql_core: GraphQLPage
    compiled: GraphQLPage
    client: httpx.AsyncClient

    def runs(self) -> dict[str, Run]:
        return {
            DIRECT: in_process(self.direct.body),
            GRAPHQL_CORE: in_process(self.graphql_core.body),
            COMPILED: in_process(self.compiled.body),
            REST: through_rest(self.client, self.limit),
        }


# --- checks ----------------------------------------------------------------------------------------


def first_difference(left: Any, right: Any, names: tuple[str, str], path: str = "") -> str | None:
    """Where two parsed JSON values first differ, or None when they are equal."""
    if isinstance(left, dict) and isinstance(right, dict):
        for key in list(left) + [k for k in right if k not in left]:
            if key not in left or key not in right:
                side = names[0] if key in left else names[1]
                return f"{path}.{key}: only in the {side} body"
            found = first_difference(left[key], right[key], names, f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(left, list) and isinstance(right, list):
        if len(left) != len(right):
            return f"{path}: {len(left)} entries ({names[0]}) vs {len(right)} ({names[1]})"
        for index, (a, b) in enumerate(zip(left, right, strict=True)):
            found = first_difference(a, b, names, f"{path}[{index}]")
            if found:
                return found
        return None
    if left != right or type(left) is not type(right):
        return f"{path}: {left!r} ({names[0]}) vs {right!r} ({names[1]})"
    return None


def leaf_count(value: Any) -> int:
    if isinstance(value, dict):
        return sum(leaf_count(v) for v in value.values())
    if isinstance(value, list):
        return sum(leaf_count(v) for v in value)
    return 1


async def check_page(builds: Builds) -> str:
    """Exits unless the four builds give the same page and the compiled ones ran compiled; describes the page."""
    limit = builds.limit
    response = await rest_page(builds.client, limit)
    rest_paths = ServerTiming.of(response).graphql_paths
    if rest_paths != execution.COMPILED:
        raise SystemExit(f"limit {limit}: the REST route's Server-Timing says desc={rest_paths!r}, not compiled")
    rest = orjson.loads(response.content.decode("iso-8859-1"))
    difference = first_difference(orjson.loads(await builds.direct.body()), rest, ("direct", "REST"))
    if difference:
        raise SystemExit(f"limit {limit}: direct and REST bodies differ at {difference}")
    reference = await builds.graphql_core.body()
    compiled, stats = await with_stats(builds.compiled.body)
    if stats.graphql_paths != [execution.COMPILED]:
        raise SystemExit(f"limit {limit}: the compiled schema ran {stats.graphql_paths}")
    if compiled != reference:
        names = ("graphql-core", "compiled")
        difference = first_difference(orjson.loads(reference), orjson.loads(compiled), names)
        raise SystemExit(f"limit {limit}: graphql-core and compiled results differ: {difference or 'key order'}")
    return f"{len(response.content) / 1024:,.0f} KB, {leaf_count(orjson.loads(reference)):,} leaf values"


async def print_statement_counts(client: httpx.AsyncClient) -> bool:
    counts = [ServerTiming.of(await rest_page(client, limit)).statements for limit in STATEMENT_LIMITS]
    constant = len(set(counts)) == 1
    listed = ", ".join(f"limit {limit}: {count}" for limit, count in zip(STATEMENT_LIMITS, counts, strict=True))
    print(f"SQL statements per page: {listed} ({'constant' if constant else 'NOT constant'})")
    return constant


# --- figures -------------------------------------------------------------------------------------


def print_legend() -> None:
    print("wall: perf_counter around one page build (median and p90); CPU: the main thread's CPU time during it")
    print("(time.thread_time; the statements themselves run off that thread: SQLite's in aiosqlite's threads,")
    print("PostgreSQL's on the server); GC: of that CPU, the cyclic garbage collector's runs (gc.callbacks), which")
    print("fall on whichever build allocates past the threshold; SQL: the page's statements' durations summed")
    print("(QueryStats.seconds; REST: Server-Timing db;dur); loaders' statements run concurrently, so SQL can")
    print("exceed the wall time.")


def print_timings(limit: int, page: str, repeat: int, summaries: dict[str, Summary]) -> None:
    print(f"{limit}-article full page ({page}), {repeat} runs")
    print(f"  {'':<31}{'wall':>11}{'wall p90':>11}{'CPU':>11}{'GC':>11}{'SQL':>11}")
    for label, summary in summaries.items():
        figures = (summary.wall, summary.wall_p90, summary.cpu, summary.gc, summary.sql)
        print(f"  {label:<31}" + "".join(f"{figure:>8.1f} ms" for figure in figures))
    direct = summaries[DIRECT].wall
    ratios = (f"{name}/direct {summaries[label].wall / direct:.1f}x" for name, label in RATIOS)
    print("  ratio (wall medians) " + "   ".join(ratios))


def print_executor_share(plans: PlanTimes, timings: dict[int, dict[str, Summary]]) -> None:
    print("the executor's own share")
    print(f"  compile once, the time in PlanCache.plan on an empty plan cache: {plans.summary()}")
    print("  execute, per page: the main thread's CPU time (median) of the GraphQL build minus the direct build's,")
    print("  with and without the garbage collector's part; both builds issue the same statements and read the")
    print("  same rows, and neither has the statements' own work in it")
    print(f"  {'':<31}" + "".join(f"{f'{limit} articles':>15}" for limit in timings))
    for label in (COMPILED, GRAPHQL_CORE):
        with_gc = (summaries[label].cpu - summaries[DIRECT].cpu for summaries in timings.values())
        without = (summaries[label].cpu_outside_gc - summaries[DIRECT].cpu_outside_gc for summaries in timings.values())
        print(f"  {label:<31}" + "".join(f"{cell:>12.1f} ms" for cell in with_gc))
        print(f"  {'  without GC':<31}" + "".join(f"{cell:>12.1f} ms" for cell in without))


# --- the run ---------------------------------------------------------------------------------------


async def compare(db: Database, url: str, tmp: Path, repeats: dict[int, int]) -> int:
    fresh = build_schema()  # first: no schema has planned the document yet
    plans = await plan_times(fresh, GraphQLPage(Executor(fresh), db, tmp, PAGE_SIZES[0]).result, PLAN_RUNS)
    reference, compiled = Executor(build_schema(compiled=False)), Executor(build_schema())
    async with rest_client(url, tmp / "logs") as client:
        sizes = [
            Builds(
                limit,
                DirectPage(db, limit),
                GraphQLPage(reference, db, tmp, limit),
                GraphQLPage(compiled, db, tmp, limit),
                client,
            )
            for limit in PAGE_SIZES
        ]
        pages = [await check_page(builds) for builds in sizes]
        print_legend()
        timings: dict[int, dict[str, Summary]] = {}
        for builds, page in zip(sizes, pages, strict=True):
            repeat = repeats[builds.limit]
            timings[builds.limit] = await timed(builds.runs(), repeat)
            print_timings(builds.limit, page, repeat, timings[builds.limit])
        constant = await print_statement_counts(client)
    print_executor_share(plans, timings)
    return 0 if constant else 1


def set_collector(default: bool) -> str:
    """The server's collector settings (gateway/collector.py) for every build alike, unless `default`."""
    if default:
        return f"Python's default thresholds {gc.get_threshold()}"
    tune_for_server()
    return f"as in gateway serve: startup heap frozen, thresholds {gc.get_threshold()}"


async def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    repeats = dict(zip(PAGE_SIZES, (args.repeat, args.repeat_1000), strict=True))
    with tempfile.TemporaryDirectory(prefix="bench-catalogue-") as tmp:
        async with throwaway_database(args.database_url, Path(tmp)) as url:
            db, seconds = await build_catalogue(url, args.articles)
            try:
                backend = db.engine.dialect.name
                print(f"catalogue: {args.articles} articles built in {seconds:.1f} s ({backend})")
                print(f"garbage collector: {set_collector(args.default_gc)}")
                return await compare(db, url, Path(tmp), repeats)
            finally:
                await db.dispose()


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
