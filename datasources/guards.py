"""Checks on what is sent to the database, for every statement of every layer.

PostgreSQL cannot hold NUL in text and answers with a driver error (a 500 for the client); SQLite
would store it. One hook refuses such text as invalid input on both, whatever route it came by.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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
    if _has_nul(parameters):
        raise InvalidInput("text cannot contain NUL characters")


def _has_nul(item: Any) -> bool:
    """Whether a string among the parameters holds NUL, whatever shape the dialect uses: a dict of named ones, a
    tuple of positional ones, a list of either for an executemany (its rows), a list value of an IN."""
    if isinstance(item, str):
        return "\x00" in item
    if isinstance(item, Mapping):
        values: Iterable[Any] = item.values()
    elif isinstance(item, list | tuple):
        values = item
    else:
        return False
    # Numbers, the most common value (ids, a page's ids by the thousand), are passed over without a call; a loop,
    # not any() over a generator, which takes twice as long for a page's ids.
    for value in values:  # noqa: SIM110
        if value.__class__ is not int and value is not None and _has_nul(value):
            return True
    return False
