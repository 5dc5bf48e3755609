"""The queries asked for in one turn of the event loop, run together.

The loaders of a request dispatch their batches in the same turn (schema/loaders.py), and requests served
side by side do too: whatever was asked for until the turn ends goes to the database in one hop (one
thread hand-off on SQLite, one pooled connection on PostgreSQL). Each query's answer, or its error, goes
to its own future, and its statement is counted in the statistics of the request that asked for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from datasources.availability import Availability
from datasources.reads.query import Compiled, Row
from datasources.statistics import QueryStats, current_stats


class Pending:
    __slots__ = ("arguments", "compiled", "future", "small", "stats")

    def __init__(
        self, compiled: Compiled, arguments: tuple[Any, ...], small: bool, future: asyncio.Future[list[Row]]
    ) -> None:
        self.compiled = compiled
        self.arguments = arguments
        self.small = small  # a few indexed lookups (Query.small)
        self.future = future
        self.stats: QueryStats | None = current_stats.get()

    def answered(self, raw: Sequence[Row], seconds: float, column_types: Sequence[Any] | None = None) -> None:
        self._count(seconds)
        if not self.future.done():  # not cancelled by its request meanwhile
            try:
                self.future.set_result(self.compiled.rows(raw, column_types))
            except Exception as error:  # a value its converter refused
                self.future.set_exception(error)

    def failed(self, error: BaseException, seconds: float = 0.0) -> None:
        self._count(seconds)
        if not self.future.done():
            self.future.set_exception(error)

    def _count(self, seconds: float) -> None:
        if self.stats is not None:
            self.stats.statements += 1
            self.stats.seconds += seconds


class Batches:
    """Collects what is asked for until the loop's turn ends, then hands it to `run` at once."""

    def __init__(self, run: Callable[[list[Pending]], None], availability: Availability) -> None:
        self._run = run
        self.availability = availability
        self._pending: list[Pending] = []

    def add(self, compiled: Compiled, arguments: tuple[Any, ...], small: bool) -> asyncio.Future[list[Row]]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[list[Row]] = loop.create_future()
        if not self._pending:
            loop.call_soon(self._flush)
        self._pending.append(Pending(compiled, arguments, small, future))
        return future

    def _flush(self) -> None:
        batch, self._pending = self._pending, []
        self._run(batch)
