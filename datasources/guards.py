"""Checks on what is sent to the database, for every statement of every layer.

PostgreSQL cannot hold NUL in text and answers with a driver error (a 500 for the client); SQLite
would store it. One hook refuses such text as invalid input on both, whatever route it came by.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

from datasources.errors import InvalidInput


def install(engine: Engine) -> None:
    event.listen(engine, "before_cursor_execute", _refuse_nul)


def _refuse_nul(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
    check(parameters)


def check(parameters: Any) -> None:
    """For statements run by the driver itself (datasources/reads), which SQLAlchemy's events do not see."""
    if any("\x00" in text for text in _texts(parameters)):
        raise InvalidInput("text cannot contain NUL characters")


def _texts(parameters: Any) -> Iterator[str]:
    """Every string among the parameters, whatever shape the dialect uses (tuples, dicts, lists)."""
    pending = [parameters]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, Mapping):
            pending.extend(item.values())
        elif isinstance(item, list | tuple) and item and not isinstance(item[0], int):
            pending.extend(item)  # (a list of numbers, a page's ids, holds no text)
