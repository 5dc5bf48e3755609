"""Reads on PostgreSQL: every batch of queries (batch.py) run one after the other on one connection, by
asyncpg itself.

The connections are the reads' own, a small asyncpg pool beside SQLAlchemy's: they only ever run single
statements outside a transaction (each sees what was committed when it began, as the short read sessions'
did), so nothing is left on them to reset, and a batch takes one and gives it back for a few microseconds
(SQLAlchemy's checkout, with its events and the liveness check, cost ~120 µs, and asyncpg's own pool resets
a connection with a round trip on every release). A connection the server closed (a restart, a terminated
backend) is replaced when it is next taken; one idle for a minute is closed, so that a silently dropped
network leaves none behind. The engine's timeouts apply: connecting, each statement, and the wait for a
free connection. asyncpg prepares each statement once per connection and keeps it; a query's column
types, which SQLAlchemy's converters for asyncpg need, are learnt from its first preparation.

Lookups by keys and pages walked along an index (Query.planned_once: no scan) run on connections of their
own that keep one generic plan per statement (`plan_cache_mode`): PostgreSQL planned them anew on every run
(a list parameter's or a `LIMIT $n`'s generic estimate is worse than a run's own, though the plan is the
same), some 40 % of its CPU for a single article, a 100-article page's statement planned in ~1 ms and run
in ~0.6. Scans (searches, conditions no index of the order serves), whose best plan depends on the values,
are left to PostgreSQL (`auto`: planned per run until a generic plan looks no costlier, after the fifth run).
Ranges whose width the values decide (the changes after a snapshot) are planned for every run, on connections
of their own: under `auto` the facets' check of the changes took a generic plan that walked every article's
position (0.3 ms -> 47 at 200,000 articles), and forcing every scan to plan each run cost a search's page
1.3 ms more (1.2-1.5 ms -> 2.5-2.9).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import asyncpg
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncEngine

from datasources import guards
from datasources.availability import Availability, ConnectionLost, is_outage
from datasources.reads.batch import Batches, Pending
from datasources.reads.query import Query, Row

if TYPE_CHECKING:  # datasources.database makes the reads
    from datasources.database import Timeouts

CONNECTIONS = 10  # batches read at once per process, of each kind of plan
PLAN_MODES = ("force_generic_plan", "auto", "force_custom_plan")  # Query.plan_mode's
# The reads' connections never compile a plan to machine code. PostgreSQL's JIT starts above a planned cost
# (jit_above_cost, 100,000 by default) that a count over some ten thousand articles passes (facets.py,
# aggregates.py): compiling took 0.5-1.1 s of the 0.7-1.9 s such a count ran at 20,000 articles, and saved
# less than it cost.
JIT = "off"
IDLE_SECONDS = 60.0  # a connection not used this long is closed


async def _no_reset(connection: asyncpg.Connection) -> None:
    """Nothing to reset: a read connection runs single statements outside a transaction, and nothing else."""


def _closed(driver: asyncpg.Connection) -> bool:
    try:
        return bool(driver.is_closed())
    except asyncpg.InterfaceError:  # its pool took it back: it was lost under the statement
        return True


class PostgresReads:
    def __init__(self, engine: AsyncEngine, availability: Availability, *, timeouts: Timeouts) -> None:
        self.dialect: Dialect = engine.dialect
        _, self._connect = engine.dialect.create_connect_args(engine.url)
        self.timeouts = timeouts
        self._availability = availability
        # By the statements' plan_cache_mode (Query.plan_mode): each has connections of its own.
        self._batches = {mode: Batches(partial(self._run, mode), availability) for mode in PLAN_MODES}
        self._pools: dict[str, asyncpg.Pool] = {}
        self._opening = asyncio.Lock()
        self._column_types: dict[str, tuple[Any, ...]] = {}  # by statement text
        self._running: set[asyncio.Task[None]] = set()  # kept from the collector until they end

    def rows(self, query: Query, /, **params: Any) -> asyncio.Future[list[Row]]:
        guards.check(params)
        compiled = query.compiled(self.dialect)
        batches = self._batches[query.plan_mode]
        return batches.add(compiled, compiled.arguments(params), query.small(params))

    def _run(self, mode: str, batch: list[Pending]) -> None:
        task = asyncio.get_running_loop().create_task(self._fetch(batch, mode))
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _fetch(self, batch: list[Pending], mode: str) -> None:
        done = 0
        try:
            pool = self._pools.get(mode) or await self._open(mode)
            async with pool.acquire(timeout=self.timeouts.pool) as driver:
                for pending in batch:
                    done += 1  # settled by _one, whatever happens
                    await self._one(driver, pending)
        except BaseException as error:  # no connection (an outage), a lost one, or the task was cancelled
            for pending in batch[done:]:
                pending.failed(error)
            if not isinstance(error, Exception):
                raise
        else:
            self._availability.answered()

    async def _one(self, driver: asyncpg.Connection, pending: Pending) -> None:
        sql, started = pending.compiled.sql, time.perf_counter()
        try:
            types = self._column_types.get(sql)
            if types is None:
                prepared = await driver.prepare(sql)
                types = self._column_types[sql] = tuple(a.type.oid for a in prepared.get_attributes())
                records: Sequence[Row] = await prepared.fetch(*pending.arguments)
            else:
                records = await driver.fetch(sql, *pending.arguments)
        except BaseException as error:
            closed = isinstance(error, Exception) and _closed(driver)
            if closed and not is_outage(error):
                # Found closed by the statement: asyncpg's InterfaceError says so in words only.
                lost = ConnectionLost("the connection was closed")
                pending.failed(lost, time.perf_counter() - started)
                raise lost from error  # the others cannot run on this connection either
            pending.failed(error, time.perf_counter() - started)
            if closed or not isinstance(error, Exception):
                raise  # cancelled, or the others cannot run on this connection either
        else:
            pending.answered(records, time.perf_counter() - started, types)

    async def _open(self, mode: str) -> asyncpg.Pool:
        async with self._opening:
            pool = self._pools.get(mode)
            if pool is None:
                settings = dict(self._connect.get("server_settings") or {})
                settings["jit"] = JIT
                settings["plan_cache_mode"] = mode
                pool = self._pools[mode] = await asyncpg.create_pool(
                    **{**self._connect, "server_settings": settings},
                    min_size=0,
                    max_size=CONNECTIONS,
                    max_inactive_connection_lifetime=IDLE_SECONDS,
                    reset=_no_reset,
                    timeout=self.timeouts.connect,
                    command_timeout=self.timeouts.statement,
                )
            return pool

    async def close(self) -> None:
        for task in list(self._running):
            task.cancel()
        await asyncio.gather(*self._running, return_exceptions=True)
        for pool in self._pools.values():
            await pool.close()
