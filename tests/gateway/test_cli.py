"""The `gateway` command, run in-process (it calls asyncio.run itself, so these tests are synchronous)."""

from __future__ import annotations

import io
import os
import sqlite3
import sys
from pathlib import Path

import pytest

from datasources import users
from gateway import cli

SECRET = "a-long-secret"


@pytest.fixture
def db_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "cli.db"
    monkeypatch.setenv("GATEWAY_DATABASE_URL", f"sqlite+aiosqlite:///{path}")
    monkeypatch.setenv("GATEWAY_SECRET_KEY", "cli-test-secret-key-that-is-long-enough-0123456789")
    monkeypatch.chdir(tmp_path)
    return path


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
    db_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert add_user(monkeypatch, SECRET + "\n", "webshop", "--scope", "catalogue", "--scope", "admin") == 0

    [(scopes, secret_hash)] = query(db_file, "SELECT scopes, secret_hash FROM api_user WHERE name = 'webshop'")
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
    assert query(db_file, "SELECT secret_hash FROM api_user") == [(secret_hash,)]


def test_users_add_refuses_a_short_secret(
    db_file: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert add_user(monkeypatch, "short\n", "webshop") == 1

    assert capsys.readouterr().err == "gateway: a secret has at least 8 characters\n"
    assert query(db_file, "SELECT count(*) FROM api_user") == [(0,)]


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


@pytest.mark.parametrize("args", [["--articles", "0"], ["--customers", "-1"]])
def test_demo_refuses_impossible_counts(db_file: Path, capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    assert cli.main(["demo", *args]) == 2

    assert capsys.readouterr().err == "--articles must be at least 1 and --customers at least 0\n"
    assert not db_file.exists()


def test_a_command_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main([])

    assert exit_info.value.code == 2
    assert "usage: gateway" in capsys.readouterr().err


class FakeUvicorn:
    """Stands in for uvicorn.run: records how serve would start the server."""

    def __init__(self) -> None:
        self.calls: list[tuple[tuple[object, ...], dict[str, object]]] = []

    def run(self, *args: object, **kwargs: object) -> None:
        self.calls.append((args, kwargs))


@pytest.fixture
def uvicorn(monkeypatch: pytest.MonkeyPatch) -> FakeUvicorn:
    import uvicorn as real

    fake = FakeUvicorn()
    monkeypatch.setattr(real, "run", fake.run)
    return fake


def test_serve_migrates_seeds_and_starts_the_app_factory(
    db_file: Path, uvicorn: FakeUvicorn, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GATEWAY_SECRET_KEY")
    assert cli.main(["serve", "--host", "127.0.0.2", "--port", "8123", "--workers", "2"]) == 0
    assert query(db_file, "SELECT count(*) FROM article") == [(cli.DEFAULT_DEMO_ARTICLES,)]
    assert uvicorn.calls == [
        (
            ("gateway.app:create_server_app",),
            {"factory": True, "host": "127.0.0.2", "port": 8123, "workers": 2, "log_level": "info"},
        )
    ]
    # The workers are separate processes: they must all sign with the key kept beside the database.
    key_file = db_file.with_name("cli.db.secret")
    assert os.environ["GATEWAY_SECRET_KEY"] == key_file.read_text().strip()
    assert key_file.stat().st_mode & 0o777 == 0o600
    printed = capsys.readouterr().out
    assert "listening on http://127.0.0.2:8123" in printed
    assert "GraphiQL: http://127.0.0.2:8123/graphql" in printed
    assert "gateway users add" in printed


def test_serve_without_demo_only_migrates(db_file: Path, uvicorn: FakeUvicorn) -> None:
    assert cli.main(["serve", "--no-demo"]) == 0
    assert query(db_file, "SELECT count(*) FROM article") == [(0,)]
    assert len(uvicorn.calls) == 1
