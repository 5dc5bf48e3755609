"""The dispatcher: claims due deliveries, sends them beside the requests with bounded concurrency, and
records how each attempt went. `gateway serve` runs one in every process (app lifespan), `gateway
dispatch` runs one alone; any number of them share the work through their claims. Each also records the
REST_Artikel events of the catalogue's changes (article_events.py), which it then delivers as any other.

It wakes when this process commits deliveries, on PostgreSQL when any process does (LISTEN/NOTIFY), when
an attempt finishes (a slot is free), and otherwise every poll interval (retries that came due,
deliveries of another process on SQLite, a notification lost). Time comes from an injected clock, so
tests drive the retry schedule and claim expiry without sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import itertools
import logging
import os
import random
import secrets
import socket
from collections.abc import Callable

import httpx
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.availability import is_outage
from datasources.catalogue import wakeup as catalogue_wakeup
from datasources.catalogue.changes import DEFAULT_RETENTION
from datasources.clock import utcnow
from datasources.database import Database
from datasources.models import DeliveryStatus
from datasources.webhooks import claims, outcomes, wakeup
from datasources.webhooks.claims import Claim
from datasources.webhooks.listener import NotificationListener
from datasources.webhooks.targets import shown_url
from gateway.dispatch.article_events import ArticleEvents
from gateway.dispatch.sender import Sender
from gateway.dispatch.settings import WebhookSettings

log = logging.getLogger("gateway.webhooks")

# At shutdown, attempts under way get this long to finish; the rest are abandoned, and their claims run
# out and make them due again (for another process, or this one after its restart).
SHUTDOWN_GRACE = 3.0


class Dispatcher:
    def __init__(
        self,
        db: Database,
        settings: WebhookSettings,
        *,
        clock: Callable[[], dt.datetime] = utcnow,
        rng: random.Random | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        connect_timeout: float = 5.0,
        grace: float = SHUTDOWN_GRACE,
        article_interval: float = 1.0,
        changes_retention: float = DEFAULT_RETENTION,
    ) -> None:
        self._db = db
        self._settings = settings
        self._clock = clock
        self._rng = rng or random.Random()  # jitter, not a secret
        self._transport = transport
        self._connect_timeout = connect_timeout
        self._grace = grace
        self.name = f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(3)}"
        self._claims = itertools.count(1)
        self._inflight: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self._database_down = False
        # GATEWAY_CATALOGUE_EVENT_SECONDS and GATEWAY_CHANGES_RETENTION, for the REST_Artikel events.
        self._article_interval = article_interval
        self._changes_retention = changes_retention

    async def run(self) -> None:
        """Delivers until cancelled; then gives the attempts under way the grace time to finish."""
        loop = asyncio.get_running_loop()

        def committed() -> None:  # in the committing thread: only hands the news to this loop
            loop.call_soon_threadsafe(self._wake.set)

        stop_listening = wakeup.listen(committed)
        articles = ArticleEvents(
            self._db,
            interval=self._article_interval,
            poll=self._settings.poll_interval,
            retention=self._changes_retention,
            clock=self._clock,
        )
        helpers = [asyncio.create_task(articles.run(), name="REST_Artikel events")]
        notifications = self._notifications(articles.wake)
        if notifications is not None:
            helpers.append(notifications)
        try:
            async with self._sender() as sender:
                try:
                    await self._loop(sender)
                finally:
                    await self._settle(self._grace)
        finally:
            stop_listening()
            for task in helpers:
                task.cancel()
            await asyncio.gather(*helpers, return_exceptions=True)

    async def run_once(self) -> int:
        """Claims what is due now (as much as the concurrency allows), sends it and records the outcomes;
        how many were claimed. For tests and for draining by hand."""
        async with self._sender() as sender:
            claimed = await self._claim(self._settings.concurrency)
            await asyncio.gather(*(self._deliver(sender, claim) for claim in claimed))
        return len(claimed)

    def wake(self) -> None:
        self._wake.set()

    def _sender(self) -> Sender:
        settings = self._settings
        return Sender(
            timeout=settings.timeout,
            concurrency=settings.concurrency,
            allow_private=settings.allow_private,
            transport=self._transport,
        )

    def _notifications(self, catalogue_changed: Callable[[], None]) -> asyncio.Task[None] | None:
        if self._db.engine.dialect.name != "postgresql":
            return None
        listener = NotificationListener(
            self._db.engine.url.render_as_string(hide_password=False),
            self.wake,
            connect_timeout=self._connect_timeout,
            retry=self._settings.poll_interval,
            more={catalogue_wakeup.CHANNEL: catalogue_changed},  # on the same connection
        )
        return asyncio.create_task(listener.run(), name="webhook notifications")

    async def _loop(self, sender: Sender) -> None:
        while True:
            self._wake.clear()  # before looking: a wake-up while claiming is not lost
            try:
                if await self._claim_and_start(sender):
                    continue  # more may be due: claim again when a slot frees (or at once)
            except Exception:
                # The dispatcher outlives anything, a log handler that raises included (a full disk): its
                # task ending would stop delivery until the restart, and fail the app's shutdown.
                with contextlib.suppress(Exception):
                    log.exception("webhook dispatcher: unexpected error")
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self._settings.poll_interval):
                    await self._wake.wait()

    async def _claim_and_start(self, sender: Sender) -> bool:
        """Claims what is due as far as slots are free and starts sending it; True when every free slot
        was filled."""
        free = self._settings.concurrency - len(self._inflight)
        if free <= 0:
            return False
        claimed = await self._claim(free)
        for claim in claimed:
            self._start(sender, claim)
        return bool(claimed) and len(claimed) == free

    def _start(self, sender: Sender, claim: Claim) -> None:
        task = asyncio.create_task(self._deliver(sender, claim), name=f"webhook delivery {claim.delivery_id}")
        self._inflight.add(task)
        task.add_done_callback(self._finished)

    def _finished(self, task: asyncio.Task[None]) -> None:
        self._inflight.discard(task)
        self._wake.set()  # a slot is free
        if not task.cancelled() and task.exception() is not None:
            # Only a log handler that raises gets here (_deliver catches the rest): the outcome is lost and
            # the claim runs out, so the delivery is sent again.
            with contextlib.suppress(Exception):
                log.error("webhook delivery: unexpected error", exc_info=task.exception())

    async def _settle(self, grace: float) -> None:
        if not self._inflight:
            return
        _, pending = await asyncio.wait(set(self._inflight), timeout=grace)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    async def _claim(self, limit: int) -> list[Claim]:
        now = self._clock()
        until = now + dt.timedelta(seconds=self._settings.claim_time)
        claimant = f"{self.name}:{next(self._claims)}"

        async def take(session: AsyncSession) -> list[Claim]:
            return await claims.claim(session, now=now, until=until, claimant=claimant, limit=limit)

        try:
            async with self._db.reader() as session:
                if not await claims.any_due(session, now):
                    self._database_answered()
                    return []
            claimed = await self._db.write(take)
        except Exception as error:
            self._database_failed(error)
            return []
        self._database_answered()
        return claimed

    async def _deliver(self, sender: Sender, claim: Claim) -> None:
        outcome = await sender.send(claim)
        now = self._clock()
        settings = self._settings

        async def record(session: AsyncSession) -> DeliveryStatus | None:
            return await outcomes.record_outcome(
                session, claim, outcome, now=now, schedule=settings.retry, rng=self._rng
            )

        try:
            status = await self._db.write(record)
        except Exception as error:
            # Not recorded: the claim runs out and the delivery is sent again (at least once).
            self._database_failed(error)
            return
        if status is DeliveryStatus.FAILED:
            log.warning(
                "webhook delivery %d (%s) to %s failed after %d attempts: %s",
                claim.delivery_id,
                claim.event,
                shown_url(claim.url),
                claim.attempts + 1,
                _described(outcome),
            )
        elif status is DeliveryStatus.PENDING:
            # A warning, not information: a receiver that refuses or fails is an operator's problem to see.
            log.warning(
                "webhook delivery %d (%s) to %s: attempt %d %s; tried again later",
                claim.delivery_id,
                claim.event,
                shown_url(claim.url),
                claim.attempts + 1,
                _described(outcome),
            )

    def _database_failed(self, error: Exception) -> None:
        if not is_outage(error):
            log.error("webhook dispatcher: unexpected error", exc_info=error)
        elif not self._database_down:
            log.warning("webhook dispatcher: the database is unavailable, trying again: %s", error)
        self._database_down = self._database_down or is_outage(error)

    def _database_answered(self) -> None:
        if self._database_down:
            log.warning("webhook dispatcher: the database answers again")
        self._database_down = False


def _described(outcome: outcomes.Outcome) -> str:
    if outcome.status_code is not None:
        return f"answered {outcome.status_code}"
    return outcome.error or "no answer"
