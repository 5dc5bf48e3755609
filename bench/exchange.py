"""`gateway import` of N articles against `gateway demo --articles N`, on the same database (issue 37: at
most 2x the time, under 300 MB peak RSS).

    python -m bench exchange [--articles 20000,200000] [--database-url postgresql+asyncpg://...]

Per size: `gateway demo --articles N` into an empty database (A); `gateway export` of A into a JSON Lines file;
`gateway import` of the file into a second database holding the same reference data and customers but no
articles (B); the import of the same file into B again (every record unchanged: nothing written). Each command
runs as its own process (what an operator runs); wall-clock seconds and the process's peak RSS (wait4's
ru_maxrss) side by side, and the import's time against the demo's. It exits non-zero when the import takes
more than 2x the demo's time or 300 MB.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench.catalogue.main import _postgresql_url, throwaway_database
from bench.common.options import numbers
from datasources.database import create_database
from datasources.demo import fill_demo
from datasources.migrate import upgrade

SECRET = "bench-exchange-secret-key-that-is-long-enough-0123456789"  # noqa: S105 - a throwaway database's
CUSTOMERS = 50
MAX_RATIO, MAX_RSS_MB = 2.0, 300


@dataclass(frozen=True)
class Run:
    seconds: float
    peak_mb: float
    output: str


def gateway(url: str, *args: str) -> Run:
    """One `gateway` command in a process of its own: its time and peak RSS."""
    env = {**os.environ, "GATEWAY_DATABASE_URL": url, "GATEWAY_SECRET_KEY": SECRET}
    started = time.perf_counter()
    process = subprocess.Popen(  # noqa: S603 - our own command
        [sys.executable, "-m", "gateway", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    assert process.stdout is not None
    output = process.stdout.read().decode()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"gateway {' '.join(args)} failed:\n{output}")
    return Run(seconds, usage.ru_maxrss / 1024, output.strip().splitlines()[-1] if output.strip() else "")


async def reference_only(url: str) -> None:
    """The demo's reference data and customers, no articles: what a database an import fills has."""
    db = create_database(url)
    try:
        await upgrade(db.engine)
        await fill_demo(db.engine, articles=0, customers=CUSTOMERS)
    finally:
        await db.dispose()


async def measure(articles: int, server: str | None, directory: Path) -> bool:
    postgresql = None if server is None else _postgresql_url(server)
    (directory / "a").mkdir()
    (directory / "b").mkdir()
    file = directory / "catalogue.jsonl"
    async with (
        throwaway_database(postgresql, directory / "a") as a,
        throwaway_database(postgresql, directory / "b") as b,
    ):
        demo = await asyncio.to_thread(gateway, a, "demo", "--articles", str(articles), "--customers", str(CUSTOMERS))
        export = await asyncio.to_thread(gateway, a, "export", "-o", str(file))
        await reference_only(b)
        load = await asyncio.to_thread(gateway, b, "import", str(file))
        again = await asyncio.to_thread(gateway, b, "import", str(file))
    size_mb = file.stat().st_size / 1e6
    print(f"\n{articles:,} articles on {'PostgreSQL' if server else 'SQLite'} (file {size_mb:,.0f} MB)")
    print(f"{'command':<34}{'seconds':>10}{'peak RSS MB':>14}{'vs demo':>10}")
    for name, run in (
        (f"gateway demo --articles {articles}", demo),
        ("gateway export", export),
        ("gateway import (empty database)", load),
        ("gateway import (again, unchanged)", again),
    ):
        print(f"{name:<34}{run.seconds:>10.1f}{run.peak_mb:>14.0f}{run.seconds / demo.seconds:>9.2f}x")
    print(f"  import: {load.output}\n  again:  {again.output}")
    return load.seconds <= MAX_RATIO * demo.seconds and max(load.peak_mb, export.peak_mb) < MAX_RSS_MB


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--articles", type=numbers, default=[20_000], help="sizes, comma-separated")
    parser.add_argument("--database-url", help="a PostgreSQL server to create throwaway databases on")
    args = parser.parse_args()
    good = True
    for articles in args.articles:
        with tempfile.TemporaryDirectory() as directory:
            good &= asyncio.run(measure(articles, args.database_url, Path(directory)))
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
