"""Benchmark: the real `gateway serve` beside a direct app on the same database, the rows of issue 15.

For each catalogue size (--articles) it builds a demo catalogue (`gateway demo --articles N --customers 500`,
progress on stderr) in a throwaway database: a temporary SQLite file, or with --database-url a fresh
database on that PostgreSQL server, dropped at the end. For each --workers it starts on that database the
real server (`gateway serve --no-demo --workers W`, as tests/server.py does, with a shop user, one token and
GATEWAY_RATE_REQUESTS_PER_TOKEN out of the way) and the direct app (bench/http_catalogue/direct.py: a Starlette app
under uvicorn with uvloop, httptools, the same workers and no access log, hand-written SQL and orjson): on
SQLite once over the stdlib sqlite3 driver and once over aiosqlite, on PostgreSQL over asyncpg. Both build
their links from the same configured base (GATEWAY_PUBLIC_URL), so their bodies compare byte for byte.

The rows (--rows, all by default):

    unauthorized  GET /www/artikel/A-000001 without a token: 401, the server's floor (the direct app checks
                  no token: it answers the gateway's 401 body to a request without an Authorization header)
    single        GET /www/artikel/{ArtNr}, every field, through 100 exposed articles with packaging units,
                  prices, stock and declarations in turn
    list10        GET /www/artikel?limit=10
    fields100     GET /www/artikel?limit=100&fields=ArtNr,ArtBez
    list100       GET /www/artikel?limit=100, every field
    list1000      GET /www/artikel?limit=1000, every field

Before timing anything it fetches every path of every row from the gateway and from each direct app and
exits non-zero naming the first byte that differs. Then each row is timed on each server in turn with wrk
(bench/http_catalogue/wrk.lua; `apt-get install wrk`): --warmup seconds, then --seconds measured, --connections
connections. Printed per database, size and worker count: requests/s, p50/p99 latency, CPU per request of
the server's processes (and of PostgreSQL's backends), the statements per request each server reports in its
Server-Timing header, and gateway/direct ratios of CPU per request and of requests/s. Orders (POST
/www/auftrag) are bench/orders/main.py's. Run it by hand from the project directory:

    python -m bench http [--database-url postgresql+asyncpg://postgres@127.0.0.1:5432/test]
                         [--articles 2000,20000] [--workers 1,2] [--connections 8] [--seconds 10] [--warmup 2]
                         [--rows unauthorized,single,list10,fields100,list100,list1000] [--baseline DIR]

--baseline DIR runs the gateway of another checkout beside this one, on the same database, as one more
server (its bodies checked against this gateway's, byte for byte): before and after in one run, e.g.

    git worktree add /tmp/before 987f11a && python -m bench http --baseline /tmp/before

200,000 articles work (--articles 2000,20000,200000) but take minutes to build. The machine's other work
moves the absolute figures; compare the lines of one run.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository: bench.* and tests.*

from bench.http_catalogue.run import main

if __name__ == "__main__":
    sys.exit(main(description=__doc__.split("\n", 1)[0] if __doc__ else None))
