"""`gateway users list | remove | rotate`, run in-process as an operator runs them."""

from __future__ import annotations

import io
import json
import sqlite3
import sys
from pathlib import Path

import pytest

from datasources import users
from gateway import cli

SECRET = "a-long-secret"


@pytest.fixture
def db_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    path = tmp_path / "cli.db"
    monkeypatch.setenv("GATEWAY_DATABASE_URL", f"sqlite+aiosqlite:///{path}")
    monkeypatch.setenv("GATEWAY_SECRET_KEY", "cli-test-secret-key-that-is-long-enough-0123456789")
    monkeypatch.delenv("GATEWAY_TOKEN_CHECK_SECONDS", raising=False)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["db", "upgrade"]) == 0  # the other commands create no database
    capsys.readouterr()
    return path


def run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str, stdin: str = ""
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = cli.main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


def stored(path: Path, name: str) -> tuple[str, int] | None:
    with sqlite3.connect(path) as conn:
        row = conn.execute("SELECT secret_hash, token_version FROM api_user WHERE name = ?", (name,)).fetchone()
    return None if row is None else (row[0], row[1])


@pytest.fixture
def two_users(db_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    assert (
        run(capsys, monkeypatch, "users", "add", "webshop", "--scope", "shop", "--scope", "admin", stdin=SECRET)[0] == 0
    )
    assert run(capsys, monkeypatch, "users", "add", "katalog", "--scope", "catalogue", stdin=SECRET)[0] == 0


def test_list_shows_every_user_without_secrets(
    two_users: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out, err = run(capsys, monkeypatch, "users", "list")

    assert (status, err) == (0, "")
    header, *rows = [line.split() for line in out.splitlines()]
    assert header == ["NAME", "SCOPES", "CREATED", "ROTATIONS"]
    assert [(row[0], row[1], row[3]) for row in rows] == [("katalog", "catalogue", "0"), ("webshop", "shop,admin", "0")]
    assert all(len(row[2]) == 20 and row[2].endswith("Z") for row in rows)
    assert "argon2" not in out and SECRET not in out


def test_list_as_json(two_users: None, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    status, out, _ = run(capsys, monkeypatch, "users", "list", "--json")

    listed = json.loads(out)
    assert status == 0
    assert [{key: user[key] for key in ("name", "scopes", "rotations")} for user in listed] == [
        {"name": "katalog", "scopes": ["catalogue"], "rotations": 0},
        {"name": "webshop", "scopes": ["shop", "admin"], "rotations": 0},
    ]
    assert all(set(user) == {"name", "scopes", "created", "rotations"} for user in listed)


def test_an_empty_list_is_its_header(
    db_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run(capsys, monkeypatch, "users", "list") == (0, "NAME  SCOPES  CREATED  ROTATIONS\n", "")
    assert run(capsys, monkeypatch, "users", "list", "--json") == (0, "[]\n", "")


def test_rotate_reads_the_new_secret_from_stdin(
    two_users: None, db_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = stored(db_file, "webshop")

    status, out, err = run(capsys, monkeypatch, "users", "rotate", "webshop", stdin="a-new-long-secret\n")

    assert (status, err) == (0, "")
    assert out == "user 'webshop' has a new secret; tokens issued before are refused within 5 s\n"
    after = stored(db_file, "webshop")
    assert before is not None and after is not None
    assert after[1] == before[1] + 1
    assert users.secret_matches(after[0], "a-new-long-secret")
    assert not users.secret_matches(after[0], SECRET)
    untouched = stored(db_file, "katalog")
    assert untouched is not None and untouched[1] == 0
    listed = run(capsys, monkeypatch, "users", "list")[1].splitlines()
    assert [line.split()[3] for line in listed[1:]] == ["0", "1"]


def test_rotate_refuses_a_short_secret_and_an_unknown_user(
    two_users: None, db_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    before = stored(db_file, "webshop")

    short = run(capsys, monkeypatch, "users", "rotate", "webshop", stdin="short\n")
    unknown = run(capsys, monkeypatch, "users", "rotate", "nobody", stdin="a-new-long-secret\n")

    assert short == (1, "", "gateway: a secret has at least 8 characters\n")
    assert unknown == (1, "", "gateway: there is no user 'nobody'\n")
    assert stored(db_file, "webshop") == before


def test_remove_deletes_the_user_once(
    two_users: None, db_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEWAY_TOKEN_CHECK_SECONDS", "2.5")

    assert run(capsys, monkeypatch, "users", "remove", "webshop") == (
        0,
        "user 'webshop' removed; its tokens are refused within 2.5 s\n",
        "",
    )
    assert stored(db_file, "webshop") is None
    assert stored(db_file, "katalog") is not None
    assert run(capsys, monkeypatch, "users", "remove", "webshop") == (1, "", "gateway: there is no user 'webshop'\n")


@pytest.mark.parametrize("action", ["remove", "rotate"])
def test_remove_and_rotate_need_a_name(
    db_file: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, action: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        run(capsys, monkeypatch, "users", action)

    assert exit_info.value.code == 2
    assert "the following arguments are required: name" in capsys.readouterr().err
