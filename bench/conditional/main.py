"""Benchmark: a conditional GET answered 304 beside the answer it stands for (issue 34), on the real server.

It builds a demo catalogue (`gateway demo --articles N --customers 500`) in a throwaway database (a temporary
SQLite file, or with --database-url a fresh database on that PostgreSQL server, dropped at the end), starts
`gateway serve --workers W` on it with a shop user (one token, the per-token request budget out of the way)
and times each row with wrk (--warmup, then --seconds, --connections), side by side:

    401            GET /www/artikel?limit=100 without a token: the floor a 304 is measured against
    page           GET /www/artikel?limit=100, every field, ten pages (offset 0, 100, ..., 900) in turn
    page 304       the same with If-None-Match: each page's ETag
    article        GET /www/artikel/{ArtNr}, every field, 100 articles in turn
    article 304    the same with If-None-Match
    graphql        GET /graphql with a persisted query's hash: a page of 100 articles (number, designation,
                   prices, stock, packaging units with their prices), the ten pages in turn
    graphql 304    the same with If-None-Match

Before timing, every path is asked for once: each answer must be 200 with an ETag, and asked again with it a
304 with no body. Printed: requests/s, p50/p99, CPU per request of the server's processes (and on PostgreSQL
of its backends), statements per request (Server-Timing), and each 304 row's requests/s over its answer's
(the issue's goal: a 304 of a 100-article page at least 10x the page's requests/s). Run by hand:

    python -m bench conditional [--database-url postgresql+asyncpg://postgres@127.0.0.1:5432/test]
                                [--articles 20000] [--workers 1] [--connections 8] [--seconds 10] [--warmup 2]

The machine's other work moves the absolute figures; compare the lines of one run.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlencode

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: bench.* and tests.*

from bench.common.options import postgresql_url
from bench.common.processes import Backends
from bench.common.servers import SECRET, USER, catalogue
from bench.common.wrk import write_script
from bench.http_catalogue.measure import Load, Measured, measure
from tests import databases
from tests.server import GatewayServer

WRK_SCRIPT = Path(__file__).with_name("wrk.lua")
PAGE, PAGES = 100, 10
GRAPHQL_PAGE = (
    "query Page($offset: Int!) { articles(limit: 100, offset: $offset) { items { number designation "
    "prices { amount minQuantity } stock { warehouse quantity } packagingUnits { code prices { amount } } } } }"
)


@dataclass(frozen=True)
class Row:
    label: str
    paths: list[str]
    tags: list[str] | None  # If-None-Match per path
    authorized: bool
    expected: int
    answer: str | None = None  # the row a 304 row stands for


@dataclass(frozen=True)
class Line:
    row: Row
    measured: Measured
    statements: str


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--database-url", default=None, help="a PostgreSQL server (default: SQLite)")
    parser.add_argument("--articles", type=int, default=20000, help="catalogue size (20000)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (1)")
    parser.add_argument("--connections", type=int, default=8, help="wrk's concurrent connections (8)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per row (10)")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of load before each row (2)")
    args = parser.parse_args(argv)
    args.database_url = postgresql_url(parser, args.database_url)
    return args


def _statements(response: httpx.Response) -> int:
    match = re.search(r'db;dur=[\d.]+;desc="(\d+) queries"', response.headers.get("server-timing", ""))
    return int(match.group(1)) if match else -1


def _tagged(client: httpx.Client, paths: list[str]) -> tuple[list[str], set[int], set[int]]:
    """Each path's ETag, checked: a 200 with it, then a 304 without a body; and the statements of both."""
    tags, answered, unchanged = [], set(), set()
    for path in paths:
        response = client.get(path)
        if response.status_code != 200 or "etag" not in response.headers:
            raise SystemExit(f"{path}: {response.status_code} without an ETag: {response.text[:200]}")
        again = client.get(path, headers={"If-None-Match": response.headers["etag"]})
        if again.status_code != 304 or again.content:
            raise SystemExit(f"{path} with its ETag: {again.status_code}, {len(again.content)} bytes")
        tags.append(response.headers["etag"])
        answered.add(_statements(response))
        unchanged.add(_statements(again))
    return tags, answered, unchanged


def _graphql_paths(client: httpx.Client) -> list[str]:
    extensions = json.dumps(
        {"persistedQuery": {"version": 1, "sha256Hash": hashlib.sha256(GRAPHQL_PAGE.encode()).hexdigest()}}
    )
    first = client.get(
        "/graphql", params={"query": GRAPHQL_PAGE, "extensions": extensions, "variables": '{"offset": 0}'}
    )
    if first.status_code != 200 or "errors" in first.json():
        raise SystemExit(f"the persisted query: {first.text[:300]}")
    return [
        "/graphql?" + urlencode({"extensions": extensions, "variables": json.dumps({"offset": offset})})
        for offset in range(0, PAGE * PAGES, PAGE)
    ]


def rows(gateway: GatewayServer, sample: list[str], token: str) -> tuple[list[Row], dict[str, str]]:
    """The rows and, per row, its statements per request."""
    pages = [f"/www/artikel?limit={PAGE}&offset={offset}" for offset in range(0, PAGE * PAGES, PAGE)]
    articles = [f"/www/artikel/{number}" for number in sample]
    table: list[Row] = [Row("401", pages[:1], None, authorized=False, expected=401)]
    statements = {"401": "0"}
    # As wrk asks: without Accept or Accept-Encoding (a tag names the ones the answer was made for; an empty one
    # is none).
    headers = {"Authorization": f"Bearer {token}", "Accept": "", "Accept-Encoding": ""}
    with httpx.Client(base_url=gateway.base_url, headers=headers, timeout=120) as client:
        for label, paths in (("page", pages), ("article", articles), ("graphql", _graphql_paths(client))):
            tags, answered, unchanged = _tagged(client, paths)
            table.append(Row(label, paths, None, authorized=True, expected=200))
            table.append(Row(f"{label} 304", paths, tags, authorized=True, expected=304, answer=label))
            statements[label] = "/".join(str(n) for n in sorted(answered))
            statements[f"{label} 304"] = "/".join(str(n) for n in sorted(unchanged))
    return table, statements


def _lua(directory: Path, name: str, row: Row, token: str) -> Path:
    paths = "{" + ",".join(json.dumps(path) for path in row.paths) + "}"
    tags = "nil" if row.tags is None else "{" + ",".join(json.dumps(tag) for tag in row.tags) + "}"
    authorization = json.dumps(f"Bearer {token}") if row.authorized else "nil"
    globals_ = f"PATHS = {paths}\nTAGS = {tags}\nAUTHORIZATION = {authorization}\n"
    return write_script(directory / f"{name}.lua", globals_, WRK_SCRIPT)


def run(args: argparse.Namespace, directory: Path) -> tuple[list[Line], bool]:
    with catalogue(directory / "catalogue", args.articles) as built:
        gateway = built.gateway(args.workers).start()
        assert gateway.process is not None
        try:
            token = gateway.token(USER, SECRET)
            table, statements = rows(gateway, built.sample, token)
            print(f"  {len(table)} rows: every answer has an ETag, and with it a 304", flush=True)
            backends = Backends(built.database.url) if built.postgresql else None
            lines = []
            for index, row in enumerate(table):
                lua = _lua(built.directory, f"conditional-{index}", row, token)
                load = Load(row.paths, f"Bearer {token}" if row.authorized else None, row.expected)
                measured = measure(
                    gateway.base_url, gateway.process.pid, lua, load, args.connections, args.seconds, args.warmup,
                    backends,
                )  # fmt: skip
                lines.append(Line(row, measured, statements[row.label]))
                print(f"  {row.label:<12} {measured.rate:9.1f} req/s", flush=True)
        finally:
            gateway.stop()
    return lines, built.postgresql


def print_lines(args: argparse.Namespace, lines: list[Line], postgresql: bool) -> None:
    database = "PostgreSQL" if postgresql else "SQLite"
    print(
        f"\n{database}, {args.articles:,} articles, {args.workers} worker(s), wrk -t1 -c{args.connections}, "
        f"{args.warmup:g} s warm-up, {args.seconds:g} s measured per row"
    )
    columns = ["request", "req/s", "p50 ms", "p99 ms", "CPU ms/req"]
    columns += ["PostgreSQL CPU ms/req"] if postgresql else []
    columns += ["statements", "304/answer req/s", "other answers"]
    print("| " + " | ".join(columns) + " |")
    print("|---" * len(columns) + "|")
    rates = {line.row.label: line.measured.rate for line in lines}
    for line in lines:
        measured = line.measured
        cells = [line.row.label, f"{measured.rate:,.1f}", f"{measured.p50_ms:.1f}", f"{measured.p99_ms:.1f}"]
        cells.append(_cell(measured.per_request_ms(measured.server_cpu)))
        if postgresql:
            cells.append(_cell(measured.per_request_ms(measured.database_cpu)))
        cells.append(line.statements)
        answer = rates.get(line.row.answer or "")
        cells.append(f"{measured.rate / answer:.1f}x" if answer else "")
        cells.append(str(measured.unexpected) if measured.unexpected else "")
        print("| " + " | ".join(cells) + " |")


def _cell(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.database_url:
        databases.SERVER_URL = args.database_url  # the catalogue's database is created and dropped there
    with tempfile.TemporaryDirectory(prefix="bench-conditional-") as name:
        lines, postgresql = run(args, Path(name))
    print_lines(args, lines, postgresql)
    unexpected = sum(line.measured.unexpected for line in lines)
    if unexpected:
        print(f"{unexpected} answers with another status than the row's (or socket errors): see 'other answers'")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
