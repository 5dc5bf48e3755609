"""Telling an outage from a bug, and logging outage episodes once."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy import exc

from datasources.availability import Availability, ConnectionLost, is_outage


def raised_in_sqlalchemy(error: BaseException, module: str = "sqlalchemy.fake_driver") -> BaseException:
    """The error with a traceback that passes through a module of a database library, as a driver's has."""
    namespace = {"__name__": module}
    exec("def fail(error):\n    raise error\n", namespace)  # noqa: S102 (a frame that belongs to a driver module)
    try:
        namespace["fail"](error)  # type: ignore[operator]
    except BaseException as raised:
        return raised
    raise AssertionError("unreachable")


@pytest.mark.parametrize(
    "error",
    [
        exc.TimeoutError("QueuePool limit of size 10 overflow 10 reached"),
        raised_in_sqlalchemy(ConnectionRefusedError(111, "Connect call failed")),
        raised_in_sqlalchemy(TimeoutError()),
        exc.DBAPIError("SELECT 1", {}, Exception("server closed the connection"), connection_invalidated=True),
        exc.InvalidatePoolError("the server closed the connection"),
        asyncpg.exceptions.AdminShutdownError("terminating connection due to administrator command"),  # 57P01
        asyncpg.exceptions.CrashShutdownError("crash"),  # 57P02
        asyncpg.exceptions.CannotConnectNowError("the database system is starting up"),  # 57P03
        asyncpg.exceptions.ConnectionDoesNotExistError("closed in the middle of operation"),  # 08003
        asyncpg.exceptions.ConnectionFailureError("failure"),  # 08006
        asyncpg.exceptions.InvalidPasswordError("password authentication failed"),  # 28P01
        asyncpg.exceptions.InvalidAuthorizationSpecificationError("no pg_hba.conf entry"),  # 28000
        asyncpg.exceptions.InvalidCatalogNameError('database "erp" does not exist'),  # 3D000
        asyncpg.exceptions.TooManyConnectionsError("too many clients"),  # 53300
        asyncpg.exceptions.QueryCanceledError("canceling statement due to statement timeout"),  # 57014
        # ALLOW_CONNECTIONS false: 55000 while connecting
        raised_in_sqlalchemy(
            asyncpg.exceptions.ObjectNotInPrerequisiteStateError("not accepting"), "asyncpg.connect_utils"
        ),
        ConnectionLost("the connection was closed"),
    ],
)
def test_outages(error: BaseException) -> None:
    assert is_outage(error)


@pytest.mark.parametrize(
    "error",
    [
        ValueError("a bug"),
        FileNotFoundError(2, "No such file"),  # a file error of our own, not the database's
        TimeoutError(),  # raised by our own code, not a driver
        exc.IntegrityError("INSERT ...", {}, Exception("duplicate key value violates unique constraint")),
        exc.OperationalError("SELECT ...", {}, sqlite3.OperationalError("no such table: nope")),
        # the words of an outage without its code: never told by the message
        exc.OperationalError("INSERT ...", {}, sqlite3.OperationalError("database is locked")),
        asyncpg.exceptions.InterfaceError("connection is closed"),
        # 55000 raised by a statement is the statement's mistake
        raised_in_sqlalchemy(asyncpg.exceptions.ObjectNotInPrerequisiteStateError("currval is not yet defined")),
        asyncpg.exceptions.UniqueViolationError("duplicate key"),
    ],
)
def test_not_outages(error: BaseException) -> None:
    assert not is_outage(error)


def sqlite_error(tmp_path: Path, fault: str) -> sqlite3.Error:
    """What SQLite itself raises for the fault, with its result code."""
    path = tmp_path / "faulty.db"
    setup = sqlite3.connect(path, isolation_level=None)
    setup.execute("PRAGMA journal_mode=WAL")
    setup.execute("CREATE TABLE IF NOT EXISTS t (x BLOB)")
    connection = sqlite3.connect(f"file:{path}?mode=ro" if fault == "readonly" else path, uri=True, timeout=0)
    try:
        if fault == "busy":
            setup.execute("BEGIN EXCLUSIVE")
        elif fault == "full":
            connection.execute("PRAGMA max_page_count = 3")  # the disk is full at three pages
        connection.executemany("INSERT INTO t VALUES (?)", [(b"x" * 4000,)] * 10)
        connection.execute("SELECT * FROM nope" if fault == "mistake" else "SELECT 1")
    except sqlite3.Error as error:
        return error
    finally:
        connection.close()
        setup.close()
    raise AssertionError(f"no error for {fault}")


@pytest.mark.parametrize(("fault", "outage"), [("busy", True), ("full", True), ("readonly", True), ("mistake", False)])
def test_sqlite_errors_are_told_by_their_result_code(tmp_path: Path, fault: str, outage: bool) -> None:
    error = sqlite_error(tmp_path, fault)
    assert is_outage(error) is outage
    assert is_outage(exc.OperationalError("INSERT ...", {}, error)) is outage


def test_an_outage_wrapped_in_another_error_is_found() -> None:
    try:
        try:
            raise exc.TimeoutError("pool")
        except exc.TimeoutError as inner:
            raise RuntimeError("while resolving a field") from inner
    except RuntimeError as outer:
        assert is_outage(outer)


def test_an_episode_is_logged_once_at_each_end(caplog: pytest.LogCaptureFixture) -> None:
    availability = Availability("postgresql+asyncpg://shop:***@db/erp", quiet=0)
    with caplog.at_level(logging.WARNING, logger="gateway.database"):
        availability.answered()  # nothing to end
        for _ in range(3):
            availability.failed(exc.TimeoutError("pool"))
        assert availability.down
        availability.answered()
        availability.answered()

    messages = [record.getMessage() for record in caplog.records]
    assert messages[0] == "database postgresql+asyncpg://shop:***@db/erp unavailable: TimeoutError: pool"
    assert messages[1].startswith("database postgresql+asyncpg://shop:***@db/erp answers again after ")
    assert messages[1].endswith("; 3 requests were refused")
    assert len(messages) == 2
    assert not availability.down


def test_answers_between_failures_do_not_end_an_episode(caplog: pytest.LogCaptureFixture) -> None:
    # SQLite: reads are answered while a held write lock refuses every write.
    availability = Availability("sqlite+aiosqlite:///gateway.db", quiet=60)
    with caplog.at_level(logging.WARNING, logger="gateway.database"):
        for _ in range(5):
            availability.failed(exc.TimeoutError("locked"))
            availability.answered()

    assert [record.getMessage() for record in caplog.records] == [
        "database sqlite+aiosqlite:///gateway.db unavailable: TimeoutError: locked"
    ]
    assert availability.down
