"""The `gateway` command, run in-process (it calls asyncio.run itself, so these tests are synchronous)."""

from __future__ import annotations

import io
import os
import socket
import sqlite3
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from datasources import users
from gateway import cli
from gateway.cli import parsers
from gateway.cli.serve import banner
from gateway.server import run
from gateway.settings import Settings
from tests import databases
from tests.server import free_port

SECRET = "a-long-secret"


@pytest.fixture
def db_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cli.db"
    monkeypatch.setenv("GATEWAY_DATABASE_URL", f"sqlite+aiosqlite:///{path}")
    monkeypatch.setenv("GATEWAY_SECRET_KEY", "cli-test-secret-key-that-is-long-enough-0123456789")
    monkeypatch.chdir(tmp_path)
    return path


@pytest.fixture
def migrated(db_file: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """The database `gateway db upgrade` made: the commands but serve, demo and db create none."""
    assert cli.main(["db", "upgrade"]) == 0
    capsys.readouterr()
    return db_file


def query(path: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql).fetchall()


def add_user(monkeypatch: pytest.MonkeyPatch, stdin: str, *args: str) -> int:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    return cli.main(["users", "add", *args])


def test_db_upgrade_creates_the_tables(db_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert not db_file.exists()

    assert cli.main(["db", "upgrade"]) == 0

    tables = {name for (name,) in query(db_file, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"alembic_version", "api_user", "article", "customer", "price", "media"} <= tables
    assert query(db_file, "SELECT count(*) FROM alembic_version") == [(1,)]
    assert capsys.readouterr().out == "database is at the newest revision\n"
    # Upgrading again is harmless.
    assert cli.main(["db", "upgrade"]) == 0


def test_users_add_reads_the_secret_from_stdin(
    migrated: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert add_user(monkeypatch, SECRET + "\n", "webshop", "--scope", "catalogue", "--scope", "admin") == 0

    [(scopes, secret_hash)] = query(migrated, "SELECT scopes, secret_hash FROM api_user WHERE name = 'webshop'")
    assert scopes == "catalogue admin"
    assert isinstance(secret_hash, str)
    assert secret_hash.startswith("$argon2")
    assert SECRET not in secret_hash
    assert users.secret_matches(secret_hash, SECRET)
    assert not users.secret_matches(secret_hash, SECRET + "\n")
    assert capsys.readouterr().out == "user 'webshop' created with scopes: catalogue admin\n"

    # The same name again: refused, nothing changes.
    assert add_user(monkeypatch, "another-long-secret\n", "webshop") == 1
    captured = capsys.readouterr()
    assert captured.err == "gateway: user 'webshop' already exists\n"
    assert captured.out == ""
    assert query(migrated, "SELECT secret_hash FROM api_user") == [(secret_hash,)]


def test_users_add_refuses_a_short_secret(
    migrated: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert add_user(monkeypatch, "short\n", "webshop") == 1

    assert capsys.readouterr().err == "gateway: a secret has at least 8 characters\n"
    assert query(migrated, "SELECT count(*) FROM api_user") == [(0,)]


def test_users_add_refuses_an_unknown_scope(
    db_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        add_user(monkeypatch, SECRET + "\n", "webshop", "--scope", "root")

    assert exit_info.value.code == 2
    assert "invalid choice: 'root'" in capsys.readouterr().err
    assert not db_file.exists()


def test_demo_fills_an_empty_database_once(db_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # tqdm is a declared dependency (pyproject.toml) that the shared virtualenv may still lack.
    pytest.importorskip("tqdm", reason="tqdm (a dependency of `gateway demo`) is not installed")
    assert cli.main(["demo", "--articles", "30", "--customers", "5", "--seed", "3"]) == 0

    assert capsys.readouterr().out == "demo data written\n"
    assert query(db_file, "SELECT count(*) FROM article") == [(30,)]
    assert query(db_file, "SELECT count(*) FROM customer") == [(5,)]
    snapshot = query(db_file, "SELECT id, number FROM article ORDER BY id")

    assert cli.main(["demo", "--articles", "40", "--customers", "5", "--seed", "4"]) == 0

    assert capsys.readouterr().out == "the database already has articles; nothing was written\n"
    assert query(db_file, "SELECT id, number FROM article ORDER BY id") == snapshot


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--articles", "0"], "argument --articles: 0 is out of range: must be at least 1"),
        (["--customers", "-1"], "argument --customers: -1 is out of range: must be at least 0"),
    ],
)
def test_demo_refuses_impossible_counts(
    db_file: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["demo", *args])

    assert exit_info.value.code == 2
    assert capsys.readouterr().err.endswith(f"gateway demo: error: {message}\n")
    assert not db_file.exists()


def test_a_command_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main([])

    assert exit_info.value.code == 2
    assert "usage: gateway" in capsys.readouterr().err


class FakeServer:
    """Stands in for gateway.server.run.serve: records the socket and workers serve would run on."""

    def __init__(self) -> None:
        self.calls: list[tuple[tuple[str, int], int]] = []

    def serve(self, sock: socket.socket, *, workers: int, settings: Settings) -> None:
        self.calls.append((sock.getsockname()[:2], workers))


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    fake = FakeServer()
    monkeypatch.setattr(run, "serve", fake.serve)
    return fake


def test_serve_migrates_seeds_binds_and_serves(
    db_file: Path, server: FakeServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GATEWAY_SECRET_KEY")
    port = free_port()
    assert cli.main(["serve", "--host", "127.0.0.1", "--port", str(port), "--workers", "2"]) == 0
    assert query(db_file, "SELECT count(*) FROM article") == [(parsers.DEFAULT_ARTICLES,)]
    assert server.calls == [(("127.0.0.1", port), 2)]
    # The workers are separate processes: they must all sign with the key kept beside the database.
    key_file = db_file.with_name("cli.db.secret")
    assert os.environ["GATEWAY_SECRET_KEY"] == key_file.read_text().strip()
    assert key_file.stat().st_mode & 0o777 == 0o600
    captured = capsys.readouterr()
    assert f"listening on http://127.0.0.1:{port}\n" in captured.out
    assert f"GraphiQL:  http://127.0.0.1:{port}/graphql" in captured.out
    assert f"directory: {db_file.parent}" in captured.out
    assert "gateway users add" in captured.out
    assert "demo data: 100%" in captured.err

    # A restart finds the demo in place: no progress bar at all (it used to show 0/500).
    assert cli.main(["serve", "--port", str(port)]) == 0
    assert "demo data" not in capsys.readouterr().err


def test_serve_without_demo_only_migrates(db_file: Path, server: FakeServer) -> None:
    assert cli.main(["serve", "--no-demo", "--port", str(free_port())]) == 0
    assert query(db_file, "SELECT count(*) FROM article") == [(0,)]
    assert len(server.calls) == 1


def test_serve_refuses_a_taken_port_before_claiming_to_listen(
    db_file: Path, server: FakeServer, capsys: pytest.CaptureFixture[str]
) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert cli.main(["serve", "--port", str(port)]) == 1
    captured = capsys.readouterr()
    assert captured.err == f"gateway: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    assert "listening" not in captured.out
    assert server.calls == []
    assert not db_file.exists()  # refused before migrating or seeding anything


def test_serve_on_every_interface_prints_a_url_a_browser_can_open(
    db_file: Path, server: FakeServer, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    assert cli.main(["serve", "--host", "0.0.0.0", "--port", str(port), "--no-demo"]) == 0  # noqa: S104
    first_line = capsys.readouterr().out.splitlines()[0]
    assert (
        first_line == f"ERP shop gateway listening on 0.0.0.0 port {port}, from this machine: http://127.0.0.1:{port}"
    )


def test_the_banner_never_prints_a_database_password(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)
    settings = Settings(database_url="postgresql+asyncpg://shop:hunter2@db.example/erp", log_dir=tmp_path)
    text = banner(settings, "127.0.0.1", 8000)
    assert "hunter2" not in text
    assert "database:  postgresql+asyncpg://shop:***@db.example/erp" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--port", "0"], "argument --port: 0 is out of range: must be from 1 to 65535"),
        (["--port", "65536"], "argument --port: 65536 is out of range: must be from 1 to 65535"),
        (["--port", "http"], "argument --port: 'http' is not a whole number"),
        (["--workers", "0"], "argument --workers: 0 is out of range: must be at least 1"),
    ],
)
def test_serve_refuses_impossible_ports_and_workers(
    db_file: Path, server: FakeServer, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["serve", *args])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.endswith(f"gateway serve: error: {message}\n")
    assert server.calls == []


def test_an_unreachable_database_is_one_clear_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GATEWAY_SECRET_KEY", "cli-test-secret-key-that-is-long-enough-0123456789")
    port = free_port()  # nothing listens there
    monkeypatch.setenv("GATEWAY_DATABASE_URL", f"postgresql+asyncpg://shop:hunter2@127.0.0.1:{port}/erp")

    assert cli.main(["db", "upgrade"]) == 1

    captured = capsys.readouterr()
    assert captured.err.startswith(
        f"gateway: cannot reach the database postgresql+asyncpg://shop:***@127.0.0.1:{port}/erp: "
    )
    assert captured.err.count("\n") == 1
    assert "Traceback" not in captured.err and "hunter2" not in captured.err


@pytest.mark.skipif(not databases.SERVER_URL, reason="needs PostgreSQL (GATEWAY_TEST_DATABASE_URL)")
@pytest.mark.parametrize("command", [["db", "upgrade"], ["users", "list"], ["serve", "--port", str(free_port())]])
def test_a_postgresql_database_that_does_not_exist_is_one_clear_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    # The server answers; the database named is not there (a typo, or not created yet).
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GATEWAY_SECRET_KEY", "cli-test-secret-key-that-is-long-enough-0123456789")
    url = make_url(databases.SERVER_URL).set(database="gateway_no_such_database", password="hunter2")
    monkeypatch.setenv("GATEWAY_DATABASE_URL", url.render_as_string(hide_password=False))

    assert cli.main(command) == 1

    err = capsys.readouterr().err
    assert err.startswith("gateway: cannot reach the database "), err
    assert err.rstrip().endswith('database "gateway_no_such_database" does not exist'), err
    assert err.count("\n") == 1
    assert "Traceback" not in err and "hunter2" not in err


def test_version_and_help_with_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"gateway {version('erp-shop-gateway')}\n"

    with pytest.raises(SystemExit):
        cli.main(["serve", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "(default: 127.0.0.1)" in help_text
    assert "(default: 8000)" in help_text
    assert "(default: 1)" in help_text


def test_the_banner_suggests_creating_a_user_only_when_there_is_none(
    migrated: Path, server: FakeServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    serve = ["serve", "--port", str(free_port()), "--no-demo"]
    assert cli.main(serve) == 0
    first = capsys.readouterr().out
    assert "No API user yet. Create one with:  echo 'a-long-secret' | gateway users add shop --scope shop" in first

    assert add_user(monkeypatch, "a-long-secret\n", "webshop") == 0
    capsys.readouterr()
    assert cli.main(serve) == 0
    second = capsys.readouterr().out
    assert "users add" not in second and "No API user" not in second
    assert "Get a token with:  curl -X POST -u NAME:SECRET http://127.0.0.1:" in second
