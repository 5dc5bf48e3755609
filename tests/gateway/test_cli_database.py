"""Where the real `gateway` command finds its database: the commands but serve, demo and db create none,
and a database they create (with its WAL files and the signing key beside it) is its owner's alone."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.server import free_port, gateway_command, stop_process_group, wait_until_answering

NO_DATABASE = [
    ["users", "list"],
    ["users", "add", "shop"],
    ["users", "remove", "shop"],
    ["users", "rotate", "shop"],
    ["webhooks", "list"],
    ["webhooks", "add", "https://shop.example/hooks"],
    ["webhooks", "deliveries"],
    ["attributes", "list"],
    ["attributes", "set", "RESTEVENTS", "*"],
    ["dispatch"],
]


def operator_env() -> dict[str, str]:
    """The environment of an operator who set nothing: the database is ./gateway.db, the key generated."""
    return {key: value for key, value in os.environ.items() if not key.startswith(("GATEWAY_", "PYTEST"))}


def gateway(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        gateway_command(*args),
        input="a-long-secret\n",
        capture_output=True,
        text=True,
        cwd=directory,
        env=operator_env(),
        timeout=120,
        umask=0o022,  # the usual one, which would give a new file mode 0644
    )


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("args", NO_DATABASE, ids=" ".join)
def test_a_command_where_there_is_no_database_says_where_it_looked(tmp_path: Path, args: list[str]) -> None:
    done = gateway(tmp_path, *args)

    assert done.returncode == 1, done
    assert done.stdout == ""
    assert done.stderr == (
        f"gateway: no database at {tmp_path / 'gateway.db'}: run `gateway serve` or `gateway db upgrade` to "
        "create one there, or set GATEWAY_DATABASE_URL to the gateway's database\n"
    )
    assert list(tmp_path.iterdir()) == []  # no empty database, no signing key, no log directory


def test_the_database_its_wal_files_and_the_key_are_the_owners_alone(tmp_path: Path) -> None:
    upgraded = gateway(tmp_path, "db", "upgrade")
    assert upgraded.returncode == 0, upgraded
    assert mode(tmp_path / "gateway.db") == 0o600
    assert mode(tmp_path / "gateway.db.secret") == 0o600
    assert gateway(tmp_path, "users", "list").returncode == 0  # it is found now

    # A server holds the database open in WAL mode: its -wal and -shm files exist while it serves.
    port = free_port()
    with (tmp_path / "serve.out").open("wb") as out:
        process = subprocess.Popen(
            gateway_command("serve", "--no-demo", "--port", str(port)),
            cwd=tmp_path,
            env={**operator_env(), "GATEWAY_WEBHOOK_DISPATCH": "0"},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            umask=0o022,
        )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_until_answering(process, f"{url}/readyz", (tmp_path / "serve.out").read_text, what="serve", timeout=90)
        assert httpx.get(f"{url}/readyz", timeout=30).status_code == 200
        modes = {name: mode(tmp_path / name) for name in ("gateway.db", "gateway.db-wal", "gateway.db-shm")}
    finally:
        stop_process_group(process)
    assert modes == {"gateway.db": 0o600, "gateway.db-wal": 0o600, "gateway.db-shm": 0o600}


def test_serve_and_demo_create_the_database_owner_only(tmp_path: Path) -> None:
    demo = gateway(tmp_path, "demo", "--articles", "2", "--customers", "0")

    assert demo.returncode == 0, demo
    assert mode(tmp_path / "gateway.db") == 0o600
    assert mode(tmp_path / "gateway.db.secret") == 0o600
