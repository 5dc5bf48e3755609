"""PostgreSQL LISTEN on a connection of its own: every NOTIFY on wakeup.CHANNEL, which a transaction that
added deliveries sends at its commit in any process, wakes this process's dispatcher at once. The same
connection may listen on other channels for others (`more`: the catalogue's changes, for instance).

The connection is not one of the pool's: it stays open for the process's life and only listens. It is
checked now and then (a frozen server closes nothing), and opened again after it is lost; meanwhile the
dispatcher's polling finds the deliveries, and after every (re)connection it is woken once for what it
may have missed.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping
from typing import Any

import asyncpg
from sqlalchemy.engine import make_url

from datasources.availability import is_outage, one_line
from datasources.webhooks.wakeup import CHANNEL

log = logging.getLogger("gateway.webhooks")

CHECK_SECONDS = 30.0  # how often a quiet connection is asked whether it still answers


class NotificationListener:
    def __init__(
        self,
        database_url: str,
        wake: Callable[[], None],
        *,
        connect_timeout: float,
        retry: float,
        channel: str = CHANNEL,
        name: str = "webhook notifications",
        more: Mapping[str, Callable[[], None]] | None = None,
    ) -> None:
        # asyncpg takes libpq's URL form; SQLAlchemy's differs in its scheme only.
        self._dsn = make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)
        self._wakes = {channel: wake, **(more or {})}  # each channel's
        self._connect_timeout = connect_timeout
        self._retry = retry  # seconds between attempts to connect again
        self._failing = False
        self._name = name  # in its log lines

    async def run(self) -> None:
        """Listens until cancelled."""
        while True:
            try:
                await self._listen_once()
                reason = "the connection was closed"
            except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
                reason = one_line(error)
                if not (is_outage(error) or isinstance(error, OSError | TimeoutError)):
                    log.error("%s: unexpected %s", self._name, reason)
            if not self._failing:  # one line per episode, not one per attempt to connect again
                log.warning("%s lost, polling goes on: %s", self._name, reason)
            self._failing = True
            await asyncio.sleep(self._retry)

    async def _listen_once(self) -> None:
        """One connection's life: listen until it is lost or stops answering."""
        connection = await asyncpg.connect(self._dsn, timeout=self._connect_timeout)
        lost = asyncio.Event()
        try:
            connection.add_termination_listener(lambda _connection: lost.set())
            for channel in self._wakes:
                await connection.add_listener(channel, self._notified)
            for wake in self._wakes.values():
                wake()  # anything committed while no connection listened
            if self._failing:
                log.warning("%s are received again", self._name)
            self._failing = False
            while not lost.is_set():
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(CHECK_SECONDS):
                        await lost.wait()
                        break
                await connection.fetchval("SELECT 1", timeout=self._connect_timeout)
        finally:
            connection.terminate()  # closing politely could wait on a server that is gone

    def _notified(self, _connection: Any, _pid: int, channel: str, _payload: str) -> None:
        self._wakes[channel]()
