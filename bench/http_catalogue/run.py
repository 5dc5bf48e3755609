"""The run of bench/http_catalogue/main.py (see its docstring): options, then per catalogue size and worker count the
servers started, their bodies checked, every row timed on each server in turn, and the figures printed."""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.common.options import baseline_label, checkout, numbers, postgresql_url
from bench.common.processes import Backends
from bench.common.servers import SECRET, USER, Catalogue, DirectServer, catalogue
from bench.http_catalogue.measure import Measured, measure, script
from bench.http_catalogue.rows import ROW_NAMES, ROWS, Checked, Row, check
from tests import databases
from tests.server import GatewayServer

GATEWAY = "gateway"


@dataclass(frozen=True)
class Line:
    """One server's figures on one row."""

    row: Row
    server: str
    measured: Measured
    statements: str


@dataclass
class Setting:
    """One database, catalogue size and worker count, and what was measured there."""

    database: str
    articles: int
    workers: int
    connections: int
    seconds: float
    load_average: float
    lines: list[Line] = field(default_factory=list)
    checked: dict[str, Checked] = field(default_factory=dict)


# --- options -----------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None, description: str | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--database-url", default=None, help="a PostgreSQL server (default: SQLite)")
    parser.add_argument("--articles", type=numbers, default=[2000, 20000], help="catalogue sizes (2000,20000)")
    parser.add_argument("--workers", type=numbers, default=[1, 2], help="worker processes of every server (1,2)")
    parser.add_argument("--connections", type=int, default=8, help="wrk's concurrent connections (8)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per row and server (10)")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of load before each measurement (2)")
    parser.add_argument("--rows", type=_rows, default=list(ROW_NAMES), help=f"rows to run ({','.join(ROW_NAMES)})")
    parser.add_argument(
        "--baseline",
        type=checkout,
        default=None,
        help="a checkout of an earlier commit (git worktree add DIR COMMIT): its gateway runs beside, same database",
    )
    args = parser.parse_args(argv)
    args.database_url = postgresql_url(parser, args.database_url)
    return args


def _rows(raw: str) -> list[str]:
    names = [part.strip() for part in raw.split(",") if part.strip()]
    if unknown := [name for name in names if name not in ROW_NAMES]:
        raise argparse.ArgumentTypeError(f"unknown rows {unknown}: choose from {','.join(ROW_NAMES)}")
    return names


# --- the run -----------------------------------------------------------------------------------------------


Server = tuple[str, str, int]  # label, base URL, the pid at the root of its process tree


def run_setting(built: Catalogue, workers: int, args: argparse.Namespace, database: str) -> Setting:
    rows = [row for row in ROWS if row.name in args.rows]
    setting = Setting(database, built.articles, workers, args.connections, args.seconds, os.getloadavg()[0])
    drivers = ("asyncpg",) if built.postgresql else ("sqlite3", "aiosqlite")
    gateway = built.gateway(workers)
    baseline = None if args.baseline is None else built.gateway(workers, args.baseline)
    directs = [built.direct(driver, workers, args.connections) for driver in drivers]
    try:
        servers = [_started(GATEWAY, gateway.start())]
        if baseline is not None:
            servers.append(_started(baseline_label(args.baseline), baseline.start()))
        servers += [_started(direct.label, direct.start()) for direct in directs]
        token = gateway.token(USER, SECRET)
        loads = {row.name: row.load(built.sample, token) for row in rows}
        bases = {label: base_url for label, base_url, _ in servers[1:]}
        for row in rows:
            setting.checked[row.name] = check(row, loads[row.name], gateway.base_url, bases)
        print(f"  {len(rows)} rows: every other server's body equals the gateway's", flush=True)
        backends = Backends(built.database.url) if built.postgresql else None
        for row in rows:
            lua = script(built.directory, f"{row.name}-{workers}", loads[row.name])
            for label, base_url, pid in servers:
                timing = (args.connections, args.seconds, args.warmup)
                measured = measure(base_url, pid, lua, loads[row.name], *timing, backends)
                setting.lines.append(Line(row, label, measured, setting.checked[row.name].statements[label]))
                print(f"  {row.label:<32} {label:<17} {measured.rate:9.1f} req/s  {_ms(measured)}", flush=True)
    finally:
        for direct in directs:
            direct.stop()
        if baseline is not None:
            baseline.stop()
        gateway.stop()
    return setting


def _started(label: str, server: GatewayServer | DirectServer) -> Server:
    assert server.process is not None
    return label, server.base_url, server.process.pid


def _ms(measured: Measured) -> str:
    cpu = measured.per_request_ms(measured.server_cpu)
    return f"p50 {measured.p50_ms:.1f} ms, CPU {cpu or 0:.2f} ms/request"


def run(args: argparse.Namespace) -> list[Setting]:
    database = "PostgreSQL" if args.database_url else "SQLite"
    if args.database_url:
        databases.SERVER_URL = args.database_url  # the catalogues' databases are created and dropped there
    settings = []
    with tempfile.TemporaryDirectory(prefix="bench-http-") as name:
        for articles in args.articles:
            print(f"{database}: building a demo catalogue of {articles:,} articles", flush=True)
            with catalogue(Path(name) / f"articles-{articles}", articles) as built:
                for workers in args.workers:
                    print(f"{database}, {articles:,} articles, {workers} worker(s):", flush=True)
                    settings.append(setting := run_setting(built, workers, args, database))
                    print_setting(setting)
    return settings


# --- figures -----------------------------------------------------------------------------------------------


def print_legend(args: argparse.Namespace) -> None:
    print(f"wrk -t1 -c{args.connections}, {args.warmup:g} s warm-up, {args.seconds:g} s measured per row and server")
    print("CPU: utime+stime of the server's processes (master and workers) from the start of the measured seconds")
    print("until the server is idle again, per request sent (those answered in time and the one each connection")
    print("left outstanding); on PostgreSQL also its backends' of the bench's database. statements: per request,")
    print("from each server's Server-Timing header.")
    print("direct: bench/http_catalogue/direct.py, hand-written SQL and orjson, the same bytes (checked first). It")
    print("checks no token: a request without an Authorization header gets the gateway's 401 body, so its 401 row")
    print("is Starlette and uvicorn's floor. gw/this: the gateway's CPU per request and requests/s over the line's")
    print("server's (the direct apps', and with --baseline the earlier commit's gateway). Orders (POST /www/auftrag)")
    print("are bench/orders/main.py's.")


def print_setting(setting: Setting) -> None:
    postgresql = setting.database == "PostgreSQL"
    print()
    print(
        f"{setting.database}, {setting.articles:,} articles, {setting.workers} worker(s), {setting.connections} "
        f"connections, {setting.seconds:g} s per row (load average {setting.load_average:.1f} at the start)"
    )
    columns = ["request", "server", "req/s", "p50 ms", "p99 ms", "CPU ms/req"]
    columns += (
        ["PostgreSQL CPU ms/req", "statements", "gw/this CPU", "gw/this CPU with PostgreSQL's"]
        if postgresql
        else ["statements", "gw/this CPU"]
    )
    columns += ["gw/this req/s", "other answers"]
    print("| " + " | ".join(columns) + " |")
    print("|---" * len(columns) + "|")
    gateway: dict[str, Measured] = {}
    for line in setting.lines:
        measured = line.measured
        if line.server == GATEWAY:
            gateway[line.row.name] = measured
        reference = gateway.get(line.row.name) if line.server != GATEWAY else None
        size = setting.checked[line.row.name].body_bytes
        label = f"{line.row.label} ({_size(size)})" if line.server == GATEWAY else ""
        cells = [label, line.server, f"{measured.rate:,.1f}", f"{measured.p50_ms:.1f}", f"{measured.p99_ms:.1f}"]
        cells.append(_cell(measured.per_request_ms(measured.server_cpu)))
        if postgresql:
            cells.append(_cell(measured.per_request_ms(measured.database_cpu)))
        cells.append(line.statements)
        cells += _ratios(reference, measured, postgresql)
        cells.append(str(measured.unexpected) if measured.unexpected else "")
        print("| " + " | ".join(cells) + " |")
    print(flush=True)


def _ratios(gateway: Measured | None, direct: Measured, postgresql: bool) -> list[str]:
    if gateway is None:
        return ["", "", ""] if postgresql else ["", ""]
    cells = [_ratio(gateway.per_request_ms(gateway.server_cpu), direct.per_request_ms(direct.server_cpu))]
    if postgresql:
        cells.append(_ratio(_total(gateway), _total(direct)))
    cells.append(_ratio(gateway.rate, direct.rate))
    return cells


def _total(measured: Measured) -> float | None:
    return measured.per_request_ms(measured.server_cpu + (measured.database_cpu or 0.0))


def _ratio(ours: float | None, theirs: float | None) -> str:
    return f"{ours / theirs:.2f}x" if ours is not None and theirs else ""


def _cell(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


def _size(size: int) -> str:
    return f"{size:,} B" if size < 10_000 else f"{size / 1024:,.0f} KB"


def main(argv: Sequence[str] | None = None, description: str | None = None) -> int:
    args = parse_args(argv, description)
    started = time.monotonic()
    print_legend(args)
    settings = run(args)
    print("\nAll settings of the run:")
    for setting in settings:
        print_setting(setting)
    print(f"whole run: {time.monotonic() - started:.0f} s")
    unexpected = sum(line.measured.unexpected for setting in settings for line in setting.lines)
    if unexpected:
        print(f"{unexpected} answers with another status than the row's (or socket errors): see 'other answers'")
    return 1 if unexpected else 0
