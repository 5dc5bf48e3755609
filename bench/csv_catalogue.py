"""The whole catalogue as one CSV answer of /graphql beside the JSON pages a client would read for it.

    python -m bench csv-catalogue [--articles 20000] [--repeat 3] [--database-url postgresql+asyncpg://...]

Builds a demo catalogue (`gateway demo`, bench/common/servers.py) in a throwaway database, starts one
`gateway serve --workers 1` on it and, round-robin --repeat times, once the worker is idle:

  csv      one POST /graphql with `Accept: text/csv` of `articles` without limit (gateway/graphql_csv_pages.py),
           read as a stream: time to the first body byte and to the last, bytes, rows
  json     the same query as JSON pages of GATEWAY_GRAPHQL_PAGE_SIZE (1000) by offset, one after another on
           one connection, until a page is not full: the whole time, bytes, rows

For each: the server's CPU (utime + stime, /proc) and its peak RSS over the request(s) above the RSS before
(the peak reset first where the kernel allows it: bench/common/process_memory.py). Medians of the rounds.
It exits non-zero when the CSV's rows are not the JSON pages' items in number. The client runs on the same
machine: compare the columns of one run.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.common.options import postgresql_url
from bench.common.process_memory import memories, reset_peaks
from bench.common.processes import process_cpu, process_tree
from bench.common.servers import SECRET, USER, catalogue
from bench.http_catalogue.measure import wait_idle
from tests import databases
from tests.server import GatewayServer

ITEMS = "number designation group weight prices { amount minQuantity }"
CSV_QUERY = f"{{ articles(sort: [{{field: NUMBER}}]) {{ items {{ {ITEMS} }} }} }}"
PAGE_QUERY = (
    f"query($offset: Int!) {{ articles(sort: [{{field: NUMBER}}], offset: $offset) {{ items {{ {ITEMS} }} }} }}"
)
PAGE_SIZE = 1000  # GATEWAY_GRAPHQL_PAGE_SIZE's default
MIB = 1024


@dataclass
class Figures:
    first: float  # s to the first body byte (CSV), to the first page (JSON)
    whole: float  # s to the last byte
    rows: int
    size: int  # bytes
    cpu: float  # s of the server's CPU
    peak: float  # MiB of peak RSS above the RSS before


def read_csv(http: httpx.Client) -> tuple[float, int, int]:
    started, first, size, rows = time.monotonic(), 0.0, 0, 0
    with http.stream("POST", "/graphql", json={"query": CSV_QUERY}, headers={"Accept": "text/csv"}) as answer:
        answer.raise_for_status()
        for chunk in answer.iter_raw():
            first = first or time.monotonic() - started
            size += len(chunk)
            rows += chunk.count(b"\r\n")
    return first, size, rows - 1  # the header


def read_pages(http: httpx.Client) -> tuple[float, int, int]:
    started, first, size, rows = time.monotonic(), 0.0, 0, 0
    while True:
        answer = http.post("/graphql", json={"query": PAGE_QUERY, "variables": {"offset": rows}})
        answer.raise_for_status()
        first = first or time.monotonic() - started
        size += len(answer.content)
        items = answer.json()["data"]["articles"]["items"]
        rows += len(items)
        if len(items) < PAGE_SIZE:
            return first, size, rows


def measure(
    server: GatewayServer, http: httpx.Client, read: Callable[[httpx.Client], tuple[float, int, int]]
) -> Figures:
    assert server.process is not None
    pids = process_tree(server.process.pid)
    wait_idle(pids)
    reset_peaks(pids)
    before, cpu, started = memories(pids), process_cpu(pids), time.monotonic()
    first, size, rows = read(http)
    whole, cpu, after = time.monotonic() - started, process_cpu(pids) - cpu, memories(pids)
    peak = max((after[pid].hwm - before[pid].rss for pid in before if pid in after), default=0) / MIB
    return Figures(first, whole, rows, size, cpu, peak)


def median(figures: Sequence[Figures], field: str) -> float:
    return float(statistics.median(getattr(figure, field) for figure in figures))


def report(database: str, articles: int, results: dict[str, list[Figures]]) -> None:
    print(f"\n{database}, {articles:,} demo articles, {ITEMS!r}, medians of {len(results['csv'])} rounds")
    print("| answer | rows | MB | first byte s | whole s | server CPU s | peak RSS above before, MiB |")
    print("|---|---|---|---|---|---|---|")
    for name, figures in results.items():
        cells = [
            f"{int(median(figures, 'rows')):,}",
            f"{median(figures, 'size') / 1e6:.1f}",
            f"{median(figures, 'first'):.2f}",
            f"{median(figures, 'whole'):.2f}",
            f"{median(figures, 'cpu'):.2f}",
            f"{median(figures, 'peak'):.1f}",
        ]
        print(f"| {name} | " + " | ".join(cells) + " |")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench csv-catalogue", description=__doc__.split("\n\n")[0])
    parser.add_argument("--articles", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--database-url", default=None, help="a PostgreSQL server (default: SQLite)")
    args = parser.parse_args(argv)
    url = postgresql_url(parser, args.database_url)
    if url:
        databases.SERVER_URL = url  # the catalogue's database is created and dropped there
    results: dict[str, list[Figures]] = {"csv": [], "json pages": []}
    with tempfile.TemporaryDirectory(prefix="bench-csv-") as name:
        print(f"building a demo catalogue of {args.articles:,} articles", flush=True)
        with catalogue(Path(name) / "catalogue", args.articles) as built:
            server = built.gateway(1).start()
            try:
                token = server.token(USER, SECRET)
                headers = {"Authorization": f"Bearer {token}"}
                with httpx.Client(base_url=server.base_url, headers=headers, timeout=600) as http:
                    read_pages(http)  # warm: plans, caches, the allocator's arenas
                    for round_ in range(args.repeat):
                        results["csv"].append(measure(server, http, read_csv))
                        results["json pages"].append(measure(server, http, read_pages))
                        print(f"  round {round_ + 1}: csv {results['csv'][-1]}", flush=True)
            finally:
                server.stop()
    report("PostgreSQL" if url else "SQLite", args.articles, results)
    if {figure.rows for figures in results.values() for figure in figures} != {results["json pages"][0].rows}:
        print("the CSV's rows are not the JSON pages' items")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
