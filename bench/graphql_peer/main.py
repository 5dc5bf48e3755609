"""Benchmark: the gateway's /graphql beside PostGraphile 4 on one PostgreSQL catalogue (issue 40).

It builds a demo catalogue (`gateway demo --articles N`, ANALYZEd) in a fresh database on the PostgreSQL server
of --database-url, dropped at the end. Then, one server at a time on that database, with one worker each:
`gateway serve` (a shop token, every rule and limit on; the per-token request budget out of the way) and
PostGraphile 4 (npm, pinned by package-lock.json beside this file; bare, as a superuser). Before timing it
asks both for every body of every row and exits non-zero when they name different articles, designations,
groups or prices. Each row is then timed with wrk (--connections, --warmup, --seconds):

    trivial   { __typename }, with the token on our side
    single    one article by number: designation, group, prices (100 articles in turn)
    page      100 articles ordered by number, the same fields

Printed: requests/s, p50/p99, CPU per request of each server and of PostgreSQL's backends, and ours/peer
ratios. The issue's goals: single >= 0.8x, page >= 1.0x, trivial >= 0.3x the peer's requests/s, PostgreSQL CPU
per request no higher than the peer's. Run by hand from the project directory:

    python -m bench graphql-peer [--database-url postgresql+asyncpg://postgres@127.0.0.1:5432/test]
                                 [--articles 20000] [--connections 8] [--seconds 10] [--warmup 2]
                                 [--rows trivial,single,page]

The machine's other work moves the absolute figures; compare the ratios of one run.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from bench.common.processes import Backends
from bench.common.servers import SECRET, USER, catalogue
from bench.common.wrk import write_script
from bench.graphql_peer.peer import HERE, PostGraphile
from bench.graphql_peer.queries import SAMPLE_ARTICLES, VIEW, Row, compare, rows
from bench.http_catalogue.measure import Load, Measured, measure
from tests import databases

DEFAULT_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
SAMPLE = 100
PAGE = 100
WRK_SCRIPT = HERE / "graphql_wrk.lua"


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--database-url", default=DEFAULT_URL, help="a PostgreSQL server (SQLAlchemy URL)")
    parser.add_argument("--articles", type=int, default=20000)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--warmup", type=float, default=2.0)
    parser.add_argument("--rows", default="trivial,single,page")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    names = [name for name in args.rows.split(",") if name]
    databases.SERVER_URL = args.database_url  # the catalogue's database is created and dropped there
    with (
        tempfile.TemporaryDirectory(prefix="bench-graphql-peer-") as temporary,
        catalogue(Path(temporary) / "catalogue", args.articles) as built,
    ):
        sample, price_list, currency = asyncio.run(_view(built.database.url))
        table = rows(sample, price_list, currency, PAGE)
        chosen = {name: table[name] for name in names}
        gateway = built.gateway(1)
        gateway.start()
        assert gateway.process is not None
        pid = gateway.process.pid
        try:
            authorization = f"Bearer {gateway.token(USER, SECRET)}"
            ours_answers = _answers(gateway.base_url, chosen, authorization, ours=True)
            ours = _measure_all(gateway.base_url, pid, chosen, authorization, args, built.database.url, True)
        finally:
            gateway.stop()
        peer_server = PostGraphile(Path(temporary), built.database.url).start()
        try:
            peer_answers = _answers(peer_server.base_url, chosen, None, ours=False)
            for name, row in chosen.items():
                for mine, theirs in zip(ours_answers[name], peer_answers[name], strict=True):
                    if (difference := compare(row, mine, theirs)) is not None:
                        print(f"{name}: the servers answer differently: {difference}", file=sys.stderr)
                        return 1
            assert peer_server.process is not None
            peer = _measure_all(
                peer_server.base_url, peer_server.process.pid, chosen, None, args, built.database.url, False
            )
        finally:
            peer_server.stop()
    _print(chosen, ours, peer, args)
    return 0


async def _view(url: str) -> tuple[list[str], int, str]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            numbers = list((await connection.execute(text(SAMPLE_ARTICLES))).scalars())
            price_list, currency = (await connection.execute(text(VIEW))).one()
    finally:
        await engine.dispose()
    step = max(1, len(numbers) // SAMPLE)
    return numbers[::step][:SAMPLE], int(price_list), str(currency)


def _answers(base_url: str, table: dict[str, Row], authorization: str | None, *, ours: bool) -> dict[str, list[object]]:
    headers = {"Content-Type": "application/json", **({"Authorization": authorization} if authorization else {})}
    answers: dict[str, list[object]] = {}
    with httpx.Client(base_url=base_url, headers=headers, timeout=60) as client:
        for name, row in table.items():
            answers[name] = []
            for body in row.ours if ours else row.peer:
                response = client.post("/graphql", content=body)
                payload = response.json()
                if response.status_code != 200 or payload.get("errors"):
                    raise SystemExit(f"{name}: {base_url} answered {response.status_code}: {response.text[:500]}")
                answers[name].append(payload)
    return answers


def _measure_all(
    base_url: str,
    pid: int,
    table: dict[str, Row],
    authorization: str | None,
    args: argparse.Namespace,
    url: str,
    ours: bool,
) -> dict[str, Measured]:
    measured: dict[str, Measured] = {}
    directory = Path(tempfile.mkdtemp(prefix="bench-graphql-peer-wrk-"))
    for name, row in table.items():
        bodies = row.ours if ours else row.peer
        lua = _script(directory, name, bodies, authorization)
        load = Load(paths=(), authorization=authorization, expected=200)
        backends = Backends(url)
        measured[name] = measure(base_url, pid, lua, load, args.connections, args.seconds, args.warmup, backends)
    return measured


def _script(directory: Path, name: str, bodies: list[bytes], authorization: str | None) -> Path:
    lua_bodies = "{" + ",".join(_lua_string(body.decode()) for body in bodies) + "}"
    auth = _lua_string(authorization) if authorization else "nil"
    return write_script(directory / f"{name}.lua", f"BODIES = {lua_bodies}\nAUTHORIZATION = {auth}\n", WRK_SCRIPT)


def _lua_string(value: str) -> str:
    return "[==[" + value + "]==]"  # a long bracket: no escapes needed for JSON


HEADER = ("row", "ours req/s", "peer req/s", "ours/peer", "p50/p99 ours", "p50/p99 peer")
HEADER += ("CPU/req ours", "CPU/req peer", "PG CPU/req ours", "PG CPU/req peer")


def _print(
    table: dict[str, Row], ours: dict[str, Measured], peer: dict[str, Measured], args: argparse.Namespace
) -> None:
    print(
        f"\n{args.articles} articles, PostgreSQL, 1 worker each, wrk {args.connections} connections, {args.seconds} s"
    )
    print(" | ".join(HEADER))
    for name, row in table.items():
        a, b = ours[name], peer[name]
        cells = (
            row.name,
            f"{a.rate:,.0f}",
            f"{b.rate:,.0f}",
            f"{a.rate / b.rate:.2f}x" if b.rate else "-",
            f"{a.p50_ms:.1f}/{a.p99_ms:.1f} ms",
            f"{b.p50_ms:.1f}/{b.p99_ms:.1f} ms",
            _ms(a.per_request_ms(a.server_cpu)),
            _ms(b.per_request_ms(b.server_cpu)),
            _ms(a.per_request_ms(a.database_cpu)),
            _ms(b.per_request_ms(b.database_cpu)),
        )
        print(" | ".join(cells))
        if a.unexpected or b.unexpected:
            print(f"  ({a.unexpected} unexpected answers ours, {b.unexpected} peer)")


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f} ms"


if __name__ == "__main__":
    sys.exit(main())
