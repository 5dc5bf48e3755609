"""Logging that cannot take a request down: failing writes are dropped and counted, deleted files are
let go at once, and the error path still sends its JSON body when every log write fails."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy.engine import make_url

from datasources.database import Timeouts
from datasources.einvoice import EInvoiceError, extract
from gateway.app import create_app
from gateway.logs import LogFiles, current_request_id
from gateway.logs.formats import lean_records
from gateway.settings import Settings
from schema.execution import Executor
from tests import databases
from tests.datasources.einvoice.samples import EXTRACT, sample
from tests.factories import Factory
from tests.http import body
from tests.logs import logged

sqlite_only = pytest.mark.skipif(databases.backend() != "sqlite", reason="holds SQLite's write lock")


class BrokenHandler(logging.Handler):
    """A handler whose every write fails outside its own error handling (like a full disk's reopen)."""

    def handle(self, record: logging.LogRecord) -> bool:
        raise OSError(28, "No space left on device")

    def emit(self, record: logging.LogRecord) -> None:
        raise OSError(28, "No space left on device")


@pytest.fixture
def broken_logging() -> Iterator[None]:
    handler = BrokenHandler()
    loggers = [logging.getLogger("gateway"), logging.getLogger("gateway.access")]
    for logger in loggers:
        logger.addHandler(handler)
    yield
    for logger in loggers:
        logger.removeHandler(handler)


@pytest.mark.usefixtures("broken_logging")
async def test_requests_are_answered_when_every_log_write_fails(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    for _ in range(5):  # keep-alive or not, every request gets its answer
        response = await client.get("/www/artikel/NOPE", headers=auth)
        assert response.status_code == 404


@pytest.mark.usefixtures("broken_logging")
async def test_the_500_is_json_when_logging_fails(
    client: httpx.AsyncClient, auth: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(Executor, "execute", broken)
    response = await client.get("/www/artikel", headers=auth)

    assert response.status_code == 500
    assert body(response)["error"] == "internal"


def test_lines_that_cannot_be_written_are_dropped_and_counted(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the log directory should be")
    files = LogFiles(blocked / "logs")
    files.open()
    try:
        logging.getLogger("gateway.access").info("a request")
        logging.getLogger("gateway").warning("an event")
        assert files.flush()
        assert files.dropped == 2
        # The directory becomes possible again: logging resumes by itself.
        blocked.unlink()
        logging.getLogger("gateway.access").info("another request")
        assert files.flush()
        assert (blocked / "logs" / "access.log").read_text().endswith("another request\n")
        assert files.dropped == 2
    finally:
        files.close()


async def test_deleting_the_logs_lets_go_of_their_space_at_once(
    client: httpx.AsyncClient, settings: Settings, token_for: Callable[..., dict[str, str]]
) -> None:
    admin = token_for("admin")
    await client.get("/www/nirgends", headers=admin)
    logging.getLogger("gateway").warning("a line in gateway.log")
    assert _deleted_files_held_open(settings.log_dir) == []

    response = await client.delete("/www/log", headers=admin)

    assert response.status_code == 204
    # Its own line is written after the files were let go of.
    logged(settings.log_dir / "access.log", response.headers["X-Request-Id"])
    assert _deleted_files_held_open(settings.log_dir) == []


def test_an_idle_process_reopens_deleted_files_on_its_periodic_check(tmp_path: Path) -> None:
    files = LogFiles(tmp_path)
    files.open()
    try:
        logging.getLogger("gateway").warning("before")
        assert files.flush()
        (tmp_path / "gateway.log").unlink()
        assert _deleted_files_held_open(tmp_path) != []

        files.check()

        assert files.flush()
        assert _deleted_files_held_open(tmp_path) == []
    finally:
        files.close()


def _deleted_files_held_open(directory: Path) -> list[str]:
    targets = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(directory.resolve())) and target.endswith("(deleted)"):
            targets.append(target)
    return targets


@sqlite_only
@pytest.mark.usefixtures("broken_logging")
async def test_a_database_outage_is_503_when_logging_fails(
    settings: Settings, database_url: str, factory: Factory, auth: dict[str, str]
) -> None:
    # The outage's log line meets the broken handler: the answer is still the outage's.
    await factory.reference_data()
    quick = dataclasses.replace(settings, database_timeouts=Timeouts(connect=1, statement=0.3, pool=1))
    path = make_url(database_url).database
    assert path is not None
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        async with LifespanManager(create_app(quick)) as manager:
            transport = httpx.ASGITransport(app=manager.app)
            async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
                order = {"GrundDaten": {"KundNr": "100001"}, "Positionen": [{"ArtNr": "A-100", "Menge": 1}]}
                response = await http.post("/www/auftrag", json=order, headers=auth)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert response.status_code == 503, response.text
    assert body(response)["error"] == "unavailable"


@pytest.mark.usefixtures("broken_logging")
async def test_a_request_timeout_is_503_when_logging_fails(
    settings: Settings, auth: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    async def never(*args: object, **kwargs: object) -> None:
        await asyncio.sleep(3600)

    monkeypatch.setattr(Executor, "execute", never)
    async with LifespanManager(create_app(dataclasses.replace(settings, request_timeout=0.2))) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test") as http:
            response = await http.get("/www/artikel", headers=auth)
    assert response.status_code == 503
    assert body(response)["error_description"] == "the request took longer than 0.2 s"


async def test_dropped_lines_are_counted_in_the_metrics(
    client: httpx.AsyncClient, token_for: Callable[..., dict[str, str]]
) -> None:
    handler = BrokenHandler()
    logger = logging.getLogger("gateway.database")
    logger.addHandler(handler)
    try:
        logger.warning("a line the handler cannot write")
        logger.warning("another")
    finally:
        logger.removeHandler(handler)
    # The other handlers still got the lines: only the broken one lost them.
    response = await client.get("/metrics", headers=token_for("admin"))
    assert "gateway_log_lines_dropped_total 2.0" in response.text.splitlines()


def test_a_json_line_has_the_request_id_and_the_traceback(tmp_path: Path) -> None:
    files = LogFiles(tmp_path, log_format="json")
    files.open()
    token = current_request_id.set("json-traceback-1")
    try:
        try:
            raise RuntimeError("a bug\nin two lines")
        except RuntimeError:
            logging.getLogger("gateway.graphql").exception("unexpected error")
        assert files.flush()
    finally:
        current_request_id.reset(token)
        files.close()

    [line] = (tmp_path / "gateway.log").read_text().splitlines()
    entry = json.loads(line)
    assert (entry["logger"], entry["level"], entry["message"]) == ("gateway.graphql", "ERROR", "unexpected error")
    assert entry["request_id"] == "json-traceback-1"
    assert entry["exception"].startswith("Traceback (most recent call last):")
    assert entry["exception"].endswith("RuntimeError: a bug\nin two lines")


def test_lean_records_keep_the_thread_the_einvoice_extraction_collects_by() -> None:
    # Once a worker's logs are open (gateway/logs/formats.py lean_records), the extraction still hears
    # pypdf's warnings of its own thread (datasources/einvoice/pdf.py).
    lean_records()
    with pytest.raises(EInvoiceError) as raised:
        extract(sample(EXTRACT / "truncated-15-bytes.pdf"), [])
    assert any(line.startswith("pypdf: ") for line in raised.value.log)
