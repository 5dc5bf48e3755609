"""A real `gateway serve` process on a free port, for tests that drive it from the outside (real HTTP
clients, raw sockets, browsers) rather than through an in-process ASGI transport.

The server runs in a directory of its own, as an operator would start it there: its database (SQLite in
that directory, or a database of its own on the PostgreSQL server of GATEWAY_TEST_DATABASE_URL), its
signing key and its log files live there. API users are added with the real `gateway users add`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from datasources.database_file import sqlite_file
from tests import databases

SECRET_KEY = "real-server-test-secret-key-that-is-long-enough-0123456789"
START_TIMEOUT = 90.0  # migrating and seeding the demo (500 articles) on a busy 2-core machine


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def gateway_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "gateway", *args]


@dataclass
class ServerDatabase:
    """The database a server test runs on: SQLite in its directory, or a fresh PostgreSQL database."""

    url: str
    server_database: str | None = None  # the PostgreSQL database to drop at the end

    @classmethod
    def create(cls, directory: Path, prefix: str = "gateway_server") -> ServerDatabase:
        """SQLite in `directory`, or a new PostgreSQL database named `prefix` and a random suffix."""
        if not databases.SERVER_URL:
            return cls(f"sqlite+aiosqlite:///{directory / 'gateway.db'}")
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        _admin_execute(f'CREATE DATABASE "{name}"')
        url = make_url(databases.SERVER_URL).set(database=name)
        return cls(url.render_as_string(hide_password=False), name)

    def drop(self) -> None:
        if self.server_database is not None:
            _admin_execute(f'DROP DATABASE IF EXISTS "{self.server_database}" WITH (FORCE)')


def _admin_execute(statement: str) -> None:
    """CREATE or DROP DATABASE on the test server, through asyncpg in a short event loop of its own."""

    async def run() -> None:
        engine = create_async_engine(make_url(databases.SERVER_URL), isolation_level="AUTOCOMMIT")
        try:
            async with engine.connect() as conn:
                await conn.execute(text(statement))
        finally:
            await engine.dispose()

    asyncio.run(run())


def wait_until_answering(
    process: subprocess.Popen[bytes], url: str, output: Callable[[], str], *, what: str, timeout: float
) -> None:
    """Until a GET of `url` gets any answer; RuntimeError with the process's output if it exits first or
    does not answer within `timeout` seconds (then it is stopped)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}:\n{output()}")
        with contextlib.suppress(httpx.TransportError):
            httpx.get(url, timeout=2)
            return
        time.sleep(0.2)
    stop_process_group(process)
    raise RuntimeError(f"{what} did not answer within {timeout} s:\n{output()}")


def stop_process_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to a process started in a session of its own and to its children (workers), SIGKILL if it
    has not ended within 20 s."""
    if process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


@dataclass
class GatewayServer:
    """A `gateway serve` process; `base_url` answers once `start` returns."""

    directory: Path
    database: ServerDatabase
    serve_args: Sequence[str] = ()
    extra_env: dict[str, str] = field(default_factory=dict)
    port: int = field(default_factory=free_port)
    process: subprocess.Popen[bytes] | None = None
    # Run in the child before `gateway serve` starts (tests/faults/test_sqlite_faults.py drops root's right
    # to write any file, so that a file made read-only is read-only to the server too).
    preexec: Callable[[], None] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def env(self) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith("GATEWAY_") and not key.startswith("PYTEST")
        }
        return {
            **env,
            "GATEWAY_DATABASE_URL": self.database.url,
            "GATEWAY_SECRET_KEY": SECRET_KEY,
            "GATEWAY_LOG_DIR": str(self.directory / "logs"),
            "PYTHONUNBUFFERED": "1",
            **self.extra_env,
        }

    def run_cli(self, *args: str, stdin: str = "", check: bool = True) -> subprocess.CompletedProcess[str]:
        """Runs `gateway ARGS` as an operator would, in the server's directory."""
        return subprocess.run(
            gateway_command(*args),
            input=stdin,
            capture_output=True,
            text=True,
            cwd=self.directory,
            env=self.env,
            timeout=120,
            check=check,
        )

    def add_user(self, name: str, secret: str, *scopes: str) -> None:
        file = sqlite_file(self.env["GATEWAY_DATABASE_URL"])
        if file is not None and not file.exists():
            self.run_cli("db", "upgrade")  # as an operator must: `gateway users add` creates no database
        scope_args = [part for scope in scopes or ("shop",) for part in ("--scope", scope)]
        self.run_cli("users", "add", name, *scope_args, stdin=secret + "\n")

    def start(self) -> GatewayServer:
        self.launch()
        self._wait_until_answering()
        return self

    def launch(self) -> subprocess.Popen[bytes]:
        """Starts the process without waiting for it to answer."""
        self.directory.mkdir(parents=True, exist_ok=True)
        command = gateway_command("serve", "--host", "127.0.0.1", "--port", str(self.port), *self.serve_args)
        with (self.directory / "serve.out").open("wb") as out:
            self.process = subprocess.Popen(
                command,
                cwd=self.directory,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: stop() reaches every worker
                preexec_fn=self.preexec,
            )
        return self.process

    def _wait_until_answering(self) -> None:
        assert self.process is not None
        token_url = f"{self.base_url}/www/token"
        wait_until_answering(self.process, token_url, self.output, what="gateway serve", timeout=START_TIMEOUT)

    def output(self) -> str:
        path = self.directory / "serve.out"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        if self.process is not None:
            stop_process_group(self.process)

    def token(self, name: str, secret: str) -> str:
        response = httpx.post(f"{self.base_url}/www/token", auth=(name, secret), timeout=30)
        response.raise_for_status()
        token: str = response.json()["access_token"]
        return token


@contextlib.contextmanager
def running_server(
    directory: Path,
    *,
    users: Sequence[tuple[str, str, Sequence[str]]] = (),
    serve_args: Sequence[str] = (),
    extra_env: dict[str, str] | None = None,
    demo_articles: int | None = None,
) -> Iterator[GatewayServer]:
    """A started server with the given API users (name, secret, scopes); stopped and its database
    dropped at the end. `demo_articles`: a demo catalogue of that size (`gateway demo`) instead of the one
    `gateway serve` seeds."""
    directory.mkdir(parents=True, exist_ok=True)
    database = ServerDatabase.create(directory)
    if demo_articles is not None:
        serve_args = ("--no-demo", *serve_args)
    server = GatewayServer(directory, database, serve_args, dict(extra_env or {}))
    try:
        if demo_articles is not None:
            server.run_cli("demo", "--articles", str(demo_articles), "--customers", "5")
        for name, secret, scopes in users:
            server.add_user(name, secret, *scopes)
        yield server.start()
    finally:
        server.stop()
        database.drop()
