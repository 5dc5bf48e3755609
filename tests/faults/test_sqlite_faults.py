"""A real `gateway serve` on SQLite whose files fail it while it runs: the disk fills up (SQLITE_FULL, on a
small tmpfs of its own), the files are made read-only (SQLITE_READONLY, chmod). The process stays up, reads
go on, writes are answered 503 `unavailable` (never 500), /readyz says not ready, an order is stored whole
or not at all, and writes work again, without a restart, once the disk has room or the files are writable."""

from __future__ import annotations

import contextlib
import ctypes
import os
import sqlite3
import subprocess
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests import databases
from tests.logs import logged
from tests.server import GatewayServer, ServerDatabase

pytestmark = pytest.mark.skipif(databases.backend() != "sqlite", reason="SQLite's files")

USER, SECRET = "shop", "a-long-secret"
PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 24, 1, 2


class Shop:
    def __init__(self, server: GatewayServer) -> None:
        self.server = server
        self.headers = {"Authorization": f"Bearer {server.token(USER, SECRET)}"}

    def read(self) -> httpx.Response:
        return httpx.get(f"{self.server.base_url}/www/artikel?limit=3&fields=ArtNr", headers=self.headers, timeout=30)

    def order(self, external: str) -> httpx.Response:
        body = {
            "GrundDaten": {"KundNr": "100001", "AuftBestellNr": external},
            "Positionen": [{"ArtNr": "A-000001", "Menge": 1}, {"ArtNr": "A-000003", "Menge": 2}],
        }
        headers = self.headers | {"Idempotency-Key": external}
        return httpx.post(f"{self.server.base_url}/www/auftrag", json=body, headers=headers, timeout=30)

    def order_number(self, external: str) -> str:
        """Placed now (201), or found again by its key (a 201 replayed): the order's number."""
        response = self.order(external)
        assert response.status_code == 201, response.text
        number: str = response.json()["data"]["AuftNr"]
        return number

    def ready(self) -> httpx.Response:
        return httpx.get(f"{self.server.base_url}/readyz", timeout=30)

    def tokens_at_once(self, count: int) -> list[int]:
        """Token requests side by side: each reads the users on a pooled connection, so the pool opens more."""
        with ThreadPoolExecutor(count) as pool:
            answers = pool.map(
                lambda _: httpx.post(f"{self.server.base_url}/www/token", auth=(USER, SECRET), timeout=30).status_code,
                range(count),
            )
            return list(answers)

    def log(self) -> str:
        return logged(self.server.directory / "logs" / "gateway.log", "", timeout=1)


def assert_unavailable(response: httpx.Response) -> None:
    assert response.status_code == 503, response.text
    assert response.headers["retry-after"] == "5"
    assert response.json()["error"] == "unavailable"


def without_root_file_override() -> None:
    # Root may write any file whatever its mode: without these capabilities a read-only file is one to root too.
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0)


@contextlib.contextmanager
def serving(directory: Path, database: Path, *, as_owner: bool = False) -> Iterator[Shop]:
    directory.mkdir(parents=True, exist_ok=True)
    # The tests take tokens eight at a time to make the pool open connections side by side, up to some 120 a
    # minute: more than a user's token budget (GATEWAY_RATE_TOKENS_PER_USER, 60/minute), which is not what
    # they test.
    limits = {"GATEWAY_RATE_TOKENS_PER_USER": "100000/minute"}
    server = GatewayServer(directory, ServerDatabase(f"sqlite+aiosqlite:///{database}"), extra_env=limits)
    if as_owner and os.geteuid() == 0:
        server.preexec = without_root_file_override
    try:
        server.add_user(USER, SECRET, "shop")
        server.start()
        yield Shop(server)
        assert server.process is not None and server.process.poll() is None, server.output()
    finally:
        server.stop()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 24 MB tmpfs of its own: a disk that can be filled up."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(mount)], capture_output=True, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path) -> Path:
    filler = disk / "filler"
    with filler.open("wb") as out, contextlib.suppress(OSError):  # ENOSPC: full
        while True:
            out.write(b"\0" * 65536)
            out.flush()
    return filler


def test_a_full_disk_is_503_for_writes_reads_go_on_nothing_is_lost_and_it_recovers(
    tmp_path: Path, small_disk: Path
) -> None:
    database = small_disk / "gateway.db"
    with serving(tmp_path / "server", database) as shop:
        before = shop.order_number("BEFORE")

        filler = fill(small_disk)
        refused = [shop.order(f"FULL-{index}") for index in range(5)]
        for response in refused:
            assert_unavailable(response)
        assert shop.read().status_code == 200  # reads go on
        assert_unavailable(shop.ready())

        filler.unlink()
        # The same orders again (their keys): placed now, each once; nothing half-stored was in the way.
        numbers = [shop.order_number(f"FULL-{index}") for index in range(5)]
        assert len(set(numbers)) == 5
        assert [shop.order_number(f"FULL-{index}") for index in range(5)] == numbers  # replays
        assert shop.order_number("BEFORE") == before
        _until_ready(shop)
        log = shop.log()
    assert log.count(" unavailable: ") == 1, log
    assert "OperationalError: database or disk is full" in log
    assert "Traceback" not in log and "unhandled error" not in log, log
    assert _integrity(database) == "ok"


def test_files_made_read_only_while_serving_are_503_for_writes_and_it_recovers(tmp_path: Path) -> None:
    directory = tmp_path / "server"
    database = directory / "gateway.db"
    files = [database, database.with_name("gateway.db-wal"), database.with_name("gateway.db-shm")]
    with serving(directory, database, as_owner=True) as shop:
        placed = {"BEFORE": shop.order_number("BEFORE")}

        for file in files:
            file.chmod(0o400)
        refused: list[str] = []
        try:
            # Connections the pool opens now are read-only: some side by side (token requests) make it open
            # several, and the writes that meet them are refused.
            for index in range(10):
                assert set(shop.tokens_at_once(8)) == {200}
                external = f"RO-{index}"
                response = shop.order(external)
                assert response.status_code in (201, 503), response.text
                if response.status_code == 201:
                    placed[external] = response.json()["data"]["AuftNr"]
                else:
                    assert_unavailable(response)
                    refused.append(external)
                assert shop.read().status_code == 200  # reads go on
                if len(refused) >= 2:
                    break
            assert refused, "no write met a read-only connection"
            assert_unavailable(shop.ready())
        finally:
            for file in files:
                file.chmod(0o600)

        # Writable again, without a restart. The connections the pool opened while the files were read-only
        # stay read-only: each is replaced when it is next taken, before a write can meet it, so no request is
        # refused once the files are writable (the tokens taken side by side take most of them).
        answers: list[int] = []
        for round_ in range(4):
            assert set(shop.tokens_at_once(8)) == {200}
            for external in [*refused, f"AFTER-{round_}-{uuid.uuid4().hex[:6]}"]:
                response = shop.order(external)
                answers.append(response.status_code)
                if response.status_code == 201:
                    placed.setdefault(external, response.json()["data"]["AuftNr"])
        assert set(answers) == {201}, f"{answers}\n{shop.log()}"
        assert all(shop.order_number(external) == number for external, number in placed.items())  # none lost
        _until_ready(shop)
        log = shop.log()
    assert "attempt to write a readonly database" in log
    assert "Traceback" not in log and "unhandled error" not in log, log
    assert _integrity(database) == "ok"


def _until_ready(shop: Shop) -> None:
    # Ready once requests have been answered for a few quiet seconds (the outage episode's end).
    deadline = time.monotonic() + 30
    while (ready := shop.ready()).status_code != 200:
        assert_unavailable(ready)
        assert time.monotonic() < deadline, ready.text
        assert shop.read().status_code == 200
        time.sleep(0.5)


def _integrity(database: Path) -> str:
    connection = sqlite3.connect(database)
    try:
        result: str = connection.execute("PRAGMA integrity_check").fetchone()[0]
        return result
    finally:
        connection.close()
