"""The servers `python -m bench http` compares, on one demo catalogue: the real `gateway serve` (tests/server.py)
and the direct app (bench/http_catalogue/direct.py) served by uvicorn, each in a process group of its own.

A catalogue is built once per size with the real `gateway demo` (its progress bar on stderr) in a
throwaway database: SQLite in the size's temporary directory, or a fresh PostgreSQL database
(gateway_bench_http_*) dropped at the end. Every server of that size then runs on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from tests.server import GatewayServer, ServerDatabase, free_port, stop_process_group, wait_until_answering

ROOT = Path(__file__).resolve().parents[2]
USER, SECRET = "bench", "a-long-bench-secret"
CUSTOMERS = 500
# Links are built from a configured base on both sides, so that the bodies compare equal byte for byte.
PUBLIC_URL = "http://shop.bench.example"
GATEWAY_ENV = {
    "GATEWAY_RATE_REQUESTS_PER_TOKEN": "1000000000/minute",  # one token for every request, on purpose
    "GATEWAY_PUBLIC_URL": PUBLIC_URL,
}
START_TIMEOUT = 60.0
SAMPLE_ARTICLES = 100  # the single-article row goes through these in turn
# Exposed articles with packaging units, prices (leading currency, default list) under them, stock in a
# released warehouse and declarations: the single article with every part of the structure filled.
_RICH_ARTICLES = """
SELECT a.number FROM article a
WHERE EXISTS (SELECT 1 FROM article_attribute x WHERE x.article_id = a.id AND x."key" = 'RESTWEBSHOP')
  AND EXISTS (SELECT 1 FROM price p JOIN price_list l ON l.id = p.price_list_id
              JOIN currency c ON c.code = p.currency AND c.is_leading
              WHERE p.article_id = a.id AND l.is_default AND p.packaging_unit IS NOT NULL)
  AND EXISTS (SELECT 1 FROM stock s JOIN warehouse w ON w.id = s.warehouse_id WHERE s.article_id = a.id AND w.released)
  AND EXISTS (SELECT 1 FROM declaration d WHERE d.article_id = a.id)
ORDER BY a.id
"""


@dataclass
class Catalogue:
    """A demo catalogue of `articles` articles with the bench's shop user."""

    directory: Path
    articles: int
    database: ServerDatabase
    sample: list[str] = field(default_factory=list)  # ArtNr of the single-article row

    @property
    def postgresql(self) -> bool:
        return self.database.server_database is not None

    def gateway(self, workers: int, source: Path | None = None) -> GatewayServer:
        """The real server; with `source`, the gateway's code of that checkout (an earlier commit, for a
        before-and-after in one run), on the same database."""
        env = GATEWAY_ENV if source is None else {**GATEWAY_ENV, "PYTHONPATH": str(source)}
        return GatewayServer(self.directory, self.database, ("--no-demo", "--workers", str(workers)), env)

    def direct(self, driver: str, workers: int, pool: int) -> DirectServer:
        url = make_url(self.database.url)
        if self.postgresql:
            where = url.set(drivername="postgresql").render_as_string(hide_password=False)
        else:
            where = str(url.database)
        return DirectServer(self.directory, driver, where, workers, pool)


@contextlib.contextmanager
def catalogue(directory: Path, articles: int) -> Iterator[Catalogue]:
    """A built catalogue; its PostgreSQL database is dropped at the end (SQLite's file goes with `directory`)."""
    directory.mkdir(parents=True)
    database = ServerDatabase.create(directory, prefix="gateway_bench_http")  # its drop() drops it
    try:
        built = Catalogue(directory, articles, database)
        _fill(built)
        built.sample = asyncio.run(_rich_articles(database.url))
        if not built.sample:
            raise SystemExit("the demo catalogue has no article with packaging units, prices, stock and declarations")
        yield built
    finally:
        database.drop()


def _fill(built: Catalogue) -> None:
    server = built.gateway(1)  # not started: its environment and directory, as an operator runs the commands
    started = time.monotonic()
    arguments = ["demo", "--articles", str(built.articles), "--customers", str(CUSTOMERS)]
    subprocess.run(  # noqa: S603 - our own command; the progress bar goes to the terminal
        [sys.executable, "-m", "gateway", *arguments], cwd=built.directory, env=server.env, check=True
    )
    server.add_user(USER, SECRET, "shop")
    print(f"  built in {time.monotonic() - started:.0f} s", flush=True)


async def _rich_articles(url: str) -> list[str]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            numbers = list((await connection.execute(text(_RICH_ARTICLES))).scalars())
    finally:
        await engine.dispose()
    step = max(1, len(numbers) // SAMPLE_ARTICLES)
    return numbers[::step][:SAMPLE_ARTICLES]  # spread over the catalogue, not its first corner


@dataclass
class DirectServer:
    """bench/http_catalogue/direct.py under uvicorn, with the loop, HTTP parser and workers of `gateway serve`."""

    directory: Path
    driver: str  # sqlite3, aiosqlite or asyncpg
    database: str  # the SQLite file or a postgresql:// DSN
    workers: int
    pool: int  # connections per worker (aiosqlite, asyncpg)
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def label(self) -> str:
        return f"direct {self.driver}"

    def start(self) -> DirectServer:
        command = [sys.executable, "-m", "uvicorn", "bench.http_catalogue.direct:create_app", "--factory"]
        command += ["--host", "127.0.0.1", "--port", str(self.port), "--workers", str(self.workers)]
        command += ["--loop", "uvloop", "--http", "httptools", "--no-access-log", "--log-level", "warning"]
        env = {
            **os.environ,
            "BENCH_DIRECT_DRIVER": self.driver,
            "BENCH_DIRECT_DATABASE": self.database,
            "BENCH_DIRECT_PUBLIC_URL": PUBLIC_URL,
            "BENCH_DIRECT_POOL": str(self.pool),
        }
        with self._output_path.open("wb") as out:
            self.process = subprocess.Popen(  # noqa: S603 - our own command
                command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        self._wait_until_answering()
        return self

    def _wait_until_answering(self) -> None:
        assert self.process is not None
        url = f"{self.base_url}/www/artikel?limit=1"
        wait_until_answering(self.process, url, self.output, what="the direct app", timeout=START_TIMEOUT)

    @property
    def _output_path(self) -> Path:
        return self.directory / f"direct-{self.driver}.out"

    def output(self) -> str:
        return self._output_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.process is not None:
            stop_process_group(self.process)
