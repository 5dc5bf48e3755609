"""Benchmark: orders per second through a real `gateway serve` (POST /www/auftrag), beside a direct baseline.

Starts the server as the tests do (tests/server.py: SQLite in a temporary directory, or with
--database-url a fresh database on that PostgreSQL server, dropped at the end; `gateway serve` seeds the
demo: 500 articles, 50 customers), adds a shop user, and for each --workers and each --connections drives
it with wrk (bench/orders/wrk.lua; `apt-get install wrk`): every request a new order of a random demo
customer with --positions priced articles, its own AuftBestellNr and Idempotency-Key. A warm-up of --warmup
seconds, then --seconds measured. Then the direct baseline (bench/orders/direct.py) writes the same rows by
hand over the same driver at the same concurrency. Printed per row: orders/s, p50/p99 latency, CPU per order of
the gateway's processes and of PostgreSQL's backends, non-2xx answers, the ratio to the direct path, and
whether the bench's AuftNr are gap-free at the end; on PostgreSQL also what its backends spent the run doing
(pg_stat_activity, sampled every 20 ms: average backends per state; a lock names the statement waiting).

    python -m bench orders [--database-url postgresql+asyncpg://postgres@127.0.0.1:5432/test]
                           [--workers 1,2] [--connections 8,16] [--seconds 10] [--warmup 3]
                           [--positions 3] [--events] [--no-direct]

--events turns on REST_Auft (RESTEVENTS *) with one webhook endpoint, so every order also writes its
outbox event and delivery (and NOTIFYs on PostgreSQL); delivery itself is off (GATEWAY_WEBHOOK_DISPATCH 0).
The machine's other work moves the absolute figures; compare the rows of one run.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: bench.* and tests.*
# Run as a script: bench/ is on the path.
from bench.common import wrk
from bench.common.options import numbers, postgresql_url
from bench.common.processes import Backends, process_cpu, process_tree
from bench.orders import direct as orders_direct
from tests import databases
from tests.server import GatewayServer, ServerDatabase

USER, SECRET = "bench", "a-long-bench-secret"
CUSTOMERS = [str(number) for number in range(100001, 100051)]  # the demo's
WRK_SCRIPT = Path(__file__).with_name("wrk.lua")
SERVER_ENV = {
    "GATEWAY_RATE_REQUESTS_PER_TOKEN": "1000000000/minute",  # one token on purpose
    "GATEWAY_WEBHOOK_ALLOW_PRIVATE": "1",  # the events' endpoint is on 127.0.0.1
}


@dataclass
class Row:
    label: str
    connections: int
    orders: int
    seconds: float
    p50_ms: float
    p99_ms: float
    gateway_cpu: float | None  # seconds
    database_cpu: float | None
    failed: int
    waits: list[str]

    @property
    def rate(self) -> float:
        return self.orders / self.seconds if self.seconds else 0.0


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--database-url", default=None, help="a PostgreSQL server (default: SQLite)")
    parser.add_argument("--workers", type=numbers, default=[1, 2], help="`gateway serve --workers` (1,2)")
    parser.add_argument("--connections", type=numbers, default=[8, 16], help="concurrent clients (8,16)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per row (10)")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds before each measurement (3)")
    parser.add_argument("--positions", type=int, default=3, help="positions per order (3)")
    parser.add_argument("--events", action="store_true", help="record REST_Auft with one webhook endpoint")
    parser.add_argument("--no-direct", action="store_true", help="leave out the direct baseline")
    args = parser.parse_args(argv)
    args.database_url = postgresql_url(parser, args.database_url)
    return args


# --- the gateway under wrk --------------------------------------------------------------------------------


def wrk_script(directory: Path, token: str, prefix: str, articles: Sequence[str], positions: int) -> Path:
    def lua_list(values: Sequence[str]) -> str:
        return "{" + ",".join(json.dumps(value) for value in values) + "}"

    globals_ = (
        f"TOKEN = {json.dumps(token)}\nPREFIX = {json.dumps(prefix)}\nPOSITIONS = {positions}\n"
        f"CUSTOMERS = {lua_list(CUSTOMERS)}\nARTICLES = {lua_list(articles)}\n"
    )
    return wrk.write_script(directory / f"{prefix}.lua", globals_, WRK_SCRIPT)


def priced_articles(server: GatewayServer, token: str) -> list[str]:
    """Articles sold in the base unit (HatVPE N) with a price, so no position asks for a unit or a price."""
    response = httpx.get(
        f"{server.base_url}/www/artikel?fields=ArtNr,HatVPE,Preis&limit=0&debinr={CUSTOMERS[0]}",
        headers={"Authorization": f"Bearer {token}"},
        timeout=60,
    )
    response.raise_for_status()
    return [a["ArtNr"] for a in response.json()["data"] if a["HatVPE"] == "N" and a.get("Preis")]


def measure_gateway(
    server: GatewayServer, backends: Backends | None, workers: int, connections: int, args: argparse.Namespace
) -> Row:
    token = server.token(USER, SECRET)
    articles = priced_articles(server, token)
    directory = server.directory
    warm = wrk_script(directory, token, f"W{uuid.uuid4().hex[:6]}-", articles, args.positions)
    wrk.run(server.base_url, warm, connections, args.warmup)
    prefix = f"B{uuid.uuid4().hex[:6]}-"
    script = wrk_script(directory, token, prefix, articles, args.positions)
    assert server.process is not None
    pids = process_tree(server.process.pid)
    cpu = process_cpu(pids)
    result, waits = asyncio.run(_load(server.base_url, script, connections, args.seconds, backends))
    cpu = process_cpu(pids) - cpu
    statuses = result["statuses"]
    assert isinstance(statuses, dict)
    created = sum(n for status, n in statuses.items() if status.startswith("2"))
    failed = sum(statuses.values()) - created + int(str(result["socket_errors"]))
    return Row(
        f"gateway, {workers} worker{'s' if workers > 1 else ''}",
        connections,
        created,
        float(str(result["seconds"])),
        float(str(result["p50_ms"])),
        float(str(result["p99_ms"])),
        cpu,
        backends.cpu if backends else None,
        failed,
        waits,
    )


async def _load(
    base_url: str, script: Path, connections: int, seconds: float, backends: Backends | None
) -> tuple[dict[str, object], list[str]]:
    stop = asyncio.Event()
    sampler = asyncio.create_task(backends.sample(stop)) if backends else None
    try:
        result = await asyncio.to_thread(wrk.run, base_url, script, connections, seconds)
    finally:
        stop.set()
        if sampler is not None:
            await sampler
    return result, backends.report() if backends else []


async def gap_free(url: str) -> tuple[int, bool]:
    """The bench's orders (warm-ups, the gateway's and the direct ones) and whether their AuftNr follow each
    other without a gap. Per row it cannot be told: a warm-up's last orders commit during the next row."""
    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            row = (
                await connection.execute(
                    text(
                        "SELECT count(*), min(CAST(number AS INTEGER)), max(CAST(number AS INTEGER))"
                        " FROM sales_document WHERE kind = 'order' AND created_by = :user"
                    ),
                    {"user": USER},
                )
            ).one()
    finally:
        await engine.dispose()
    count, first, last = row
    return count, bool(count) and last - first + 1 == count


def enable_events(server: GatewayServer) -> None:
    server.run_cli("attributes", "set", "RESTEVENTS", "*")
    server.run_cli("webhooks", "add", "http://127.0.0.1:9/orders")


# --- the run ----------------------------------------------------------------------------------------------


def run_gateway(directory: Path, database: ServerDatabase, args: argparse.Namespace) -> list[Row]:
    rows: list[Row] = []
    env = {**SERVER_ENV, **({"GATEWAY_WEBHOOK_DISPATCH": "0"} if args.events else {})}
    backends = Backends(database.url) if args.database_url else None
    for index, workers in enumerate(args.workers):
        server = GatewayServer(directory, database, ("--workers", str(workers)), env)
        if index == 0:
            server.add_user(USER, SECRET, "shop")
            if args.events:
                enable_events(server)
        server.start()
        try:
            for connections in args.connections:
                rows.append(row := measure_gateway(server, backends, workers, connections, args))
                print_row(row, flush=True)
        finally:
            server.stop()
    return rows


def run_direct(database: ServerDatabase, args: argparse.Namespace, articles: list[str]) -> list[Row]:
    rows = []
    backends = Backends(database.url) if args.database_url else None
    for connections in args.connections:
        prefix = f"D{uuid.uuid4().hex[:6]}-"
        new_order = orders_direct.orders(prefix, CUSTOMERS, articles, args.positions)
        result = asyncio.run(_direct(database.url, connections, args.seconds, new_order, backends))
        row = Row(
            "direct (hand-written SQL)",
            connections,
            result.orders,
            result.seconds,
            result.percentile(0.5) * 1000,
            result.percentile(0.99) * 1000,
            result.cpu,
            backends.cpu if backends else None,
            0,
            backends.report() if backends else [],
        )
        rows.append(row)
        print_row(row, flush=True)
    return rows


async def _direct(
    url: str,
    connections: int,
    seconds: float,
    new_order: Callable[[], orders_direct.Order],
    backends: Backends | None,
) -> orders_direct.DirectResult:
    stop = asyncio.Event()
    sampler = asyncio.create_task(backends.sample(stop)) if backends else None
    try:
        return await orders_direct.run(url, connections, seconds, new_order)
    finally:
        stop.set()
        if sampler is not None:
            await sampler


def print_row(row: Row, *, flush: bool = False) -> None:
    print(f"  {row.label}, {row.connections} connections: {row.rate:.1f} orders/s", flush=flush)
    for wait in row.waits:
        print(f"      {wait}", flush=flush)


def print_table(rows: list[Row], direct: list[Row]) -> None:
    base = {row.connections: row.rate for row in direct}
    print()
    print("| | connections | orders/s | p50 ms | p99 ms | CPU ms/order | PostgreSQL CPU ms/order | x direct | failed |")
    print("|---|---|---|---|---|---|---|---|---|")
    for row in [*rows, *direct]:
        ratio = f"{row.rate / base[row.connections]:.2f}" if base.get(row.connections) else ""
        print(
            f"| {row.label} | {row.connections} | {row.rate:.1f} | {row.p50_ms:.0f} | {row.p99_ms:.0f} | "
            f"{_per_order(row.gateway_cpu, row)} | {_per_order(row.database_cpu, row)} | {ratio} | "
            f"{row.failed} |"
        )


def _per_order(cpu: float | None, row: Row) -> str:
    return f"{cpu * 1000 / row.orders:.1f}" if cpu is not None and row.orders else ""


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    backend = "PostgreSQL" if args.database_url else "SQLite"
    if args.database_url:
        databases.SERVER_URL = args.database_url  # ServerDatabase creates and drops its database there
    with tempfile.TemporaryDirectory(prefix="gateway-orders-") as name:
        directory = Path(name)
        database = ServerDatabase.create(directory)
        started = time.monotonic()
        try:
            print(f"orders: {backend}, {args.positions} positions, {args.seconds:g} s per row", flush=True)
            rows = run_gateway(directory, database, args)
            articles = _stored_articles(database)
            direct = [] if args.no_direct else run_direct(database, args, articles)
            stored, gapless = asyncio.run(gap_free(database.url))
        finally:
            database.drop()
    print_table(rows, direct)
    print(f"\n{stored} orders stored, AuftNr {'gap-free' if gapless else 'WITH GAPS'}")
    print(f"whole run: {time.monotonic() - started:.0f} s")
    return 0 if gapless and all(row.failed == 0 for row in rows) else 1


def _stored_articles(database: ServerDatabase) -> list[str]:
    async def read() -> list[str]:
        engine = create_async_engine(database.url)
        try:
            async with engine.connect() as connection:
                result = await connection.execute(text("SELECT DISTINCT article_number FROM document_position"))
                return sorted(result.scalars())
        finally:
            await engine.dispose()

    return asyncio.run(read())


if __name__ == "__main__":
    sys.exit(main())
