"""Database connections that nobody closed, as the drivers report them when the garbage collector takes one:
aiosqlite's "Connection ... was deleted before being closed", asyncpg's "unclosed connection", SQLAlchemy's
"non-checked-in connection". Each is a ResourceWarning (a SAWarning for SQLAlchemy) raised in a finaliser,
so it surfaces whenever the collector happens to run: under pytest's warnings-as-errors, in whichever later
test that is. Collecting on purpose names the code that left it."""

from __future__ import annotations

import contextlib
import gc
import warnings
from collections.abc import Iterator

from sqlalchemy.exc import SAWarning

_SIGNS = ("was deleted before being closed", "unclosed connection", "non-checked-in connection")


def collected() -> list[str]:
    """Collects garbage now; what the drivers said about connections that went with it unclosed."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gc.collect()
    return [
        str(warning.message)
        for warning in caught
        if issubclass(warning.category, ResourceWarning | SAWarning) and any(s in str(warning.message) for s in _SIGNS)
    ]


@contextlib.contextmanager
def none_left_unclosed() -> Iterator[None]:
    """Fails when the block leaves a connection unclosed (the garbage of what ran before is collected first)."""
    collected()
    yield
    left = collected()
    assert not left, f"{len(left)} connections were left unclosed: {left}"
