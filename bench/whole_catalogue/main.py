"""Benchmark: the whole catalogue (`GET /www/artikel` without `limit`) on one worker, and a small request beside it.

Measured: the whole catalogue's time, first bytes, CPU and peak memory in the worker, and the latency of the
worker's other requests meanwhile (a single article, sent again and again while the catalogue is on its way).

It builds a demo catalogue of --articles articles (`gateway demo`, progress on stderr) in a throwaway
database, as bench/http_catalogue/main.py does: a temporary SQLite file, or with --database-url a fresh database on
that PostgreSQL server, dropped at the end. On it, one server after the other (with --baseline DIR first
the gateway of that checkout, then this checkout's), each `gateway serve --no-demo --workers 1`:

  idle probe    20 sequential GET /www/artikel/{ArtNr} of one exposed article with every part filled (after
                one that opens the connection), the worker otherwise idle
  whole         --repeat times, once the worker is idle: GET /www/artikel read as a stream at full speed on
                a connection of its own (in a thread): time to the response headers, to the first body
                byte and to the last, bytes and sha256 of the body. Meanwhile the same single-article GET
                every --probe-interval seconds on another connection, one at a time (an answer that comes
                late delays the next), until the whole catalogue has arrived: each one's latency
  server CPU    utime + stime of the server's processes (/proc, as bench/common/processes.py reads them) over
                the whole-catalogue request, the probes' included
  memory        VmRSS and VmHWM (peak RSS) of each of the server's processes from /proc/<pid>/status. The
                peak is reset before each request (`echo 5 > /proc/<pid>/clear_refs`) where the kernel
                allows it, so it is the peak of that request; where it does not, it is the peak since the
                process started and the table says so. The process whose peak grew most is reported.

It exits non-zero when a whole-catalogue answer is not a complete 200, when the bodies of the servers (and
runs) differ (naming the servers), or when a probe is not answered 200. Lines of the servers' serve.out and
gateway.log at WARNING or above are printed after the table. Run it by hand from the project directory:

    python -m bench whole [--articles 20000] [--repeat 2] [--probe-interval 0.05]
                                    [--database-url postgresql+asyncpg://postgres@127.0.0.1:5432/test]
                                    [--baseline DIR]

--baseline DIR runs the gateway of another checkout on the same database first: before and after in one run,

    git worktree add /tmp/before HEAD && python -m bench whole --baseline /tmp/before

200,000 articles work but take minutes to build, and each whole catalogue is some 300 MB. The client runs on
the same machine and reads as fast as it can: the machine's other work moves the absolute figures; compare
the columns of one run.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: bench.* and tests.*

from bench.common.options import checkout, postgresql_url
from bench.whole_catalogue.report import failures, print_legend, print_logged, print_table
from bench.whole_catalogue.run import run

# The options stay here, beside the docstring that describes them and names the first line of --help. The
# run is bench/whole_catalogue/run.py, its client bench/whole_catalogue/client.py, the memory read from /proc
# bench/common/process_memory.py, what it records bench/whole_catalogue/results.py and its figures
# bench/whole_catalogue/report.py.


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0] if __doc__ else None)
    parser.add_argument("--articles", type=_positive, default=20000, help="catalogue size (20000)")
    parser.add_argument("--database-url", default=None, help="a PostgreSQL server (default: SQLite)")
    parser.add_argument(
        "--baseline",
        type=checkout,
        default=None,
        help="a checkout of an earlier commit (git worktree add DIR COMMIT): its gateway runs first, same database",
    )
    parser.add_argument(
        "--probe-interval", type=_seconds, default=0.05, help="seconds between two probes during the request (0.05)"
    )
    parser.add_argument("--repeat", type=_positive, default=2, help="whole-catalogue requests per server (2)")
    args = parser.parse_args(argv)
    args.database_url = postgresql_url(parser, args.database_url)
    return args


def _positive(raw: str) -> int:
    try:
        value = int(raw.replace("_", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError("a positive whole number")
    return value


def _seconds(raw: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError("a positive number of seconds")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    started = time.monotonic()
    print(f"load average {os.getloadavg()[0]:.1f} at the start", flush=True)
    results = run(args)
    print_legend(args)
    print_table(args.articles, results)
    print_logged(results)
    print(f"whole run: {time.monotonic() - started:.0f} s")
    if found := failures(results):
        print("\n".join(["FAILED:", *found]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
