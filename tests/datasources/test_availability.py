"""Telling an outage from a bug, and logging outage episodes once."""

from __future__ import annotations

import logging
import sqlite3

import pytest
from sqlalchemy import exc

from datasources.availability import Availability, is_outage


def raised_in_sqlalchemy(error: BaseException) -> BaseException:
    """The error with a traceback that passes through a module of a database library, as a driver's has."""
    namespace = {"__name__": "sqlalchemy.fake_driver"}
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
        exc.OperationalError("INSERT ...", {}, sqlite3.OperationalError("database is locked")),
        exc.DBAPIError("SELECT 1", {}, Exception("server closed the connection"), connection_invalidated=True),
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
    ],
)
def test_not_outages(error: BaseException) -> None:
    assert not is_outage(error)


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
