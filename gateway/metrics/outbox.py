"""The webhook outbox's backlog, read from the database at scrape time: one figure for the whole
database, the same whichever worker is scraped (so not kept per process like the other metrics)."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass

from prometheus_client.metrics_core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy.exc import SQLAlchemyError

from datasources.database import Database
from datasources.webhooks.backlog import Backlog, backlog


@dataclass(frozen=True, slots=True)
class BacklogReader:
    timeout: float  # a scrape is not held up longer than this by a slow database

    async def read(self, db: Database) -> Backlog | None:
        """None when the database does not answer in time: the scrape still serves the process's figures."""
        try:
            async with asyncio.timeout(self.timeout), db.reader() as session:
                return await backlog(session)
        except (SQLAlchemyError, OSError, TimeoutError) as error:
            db.availability.failed(error)  # one log line per outage episode
            return None


class OutboxCollector(Collector):
    def __init__(self, found: Backlog, now: dt.datetime) -> None:
        self.found = found
        self.now = now

    def collect(self) -> Iterator[Metric]:
        yield GaugeMetricFamily(
            "gateway_outbox_backlog",
            "Webhook deliveries not delivered yet: due, being sent or waiting for a retry.",
            value=self.found.pending,
        )
        yield GaugeMetricFamily(
            "gateway_outbox_backlog_oldest_seconds",
            "Seconds the oldest undelivered webhook delivery has waited since its event; 0 when none waits.",
            value=self.found.oldest_pending_age(self.now),
        )
        yield GaugeMetricFamily(
            "gateway_outbox_failed",
            "Webhook deliveries out of attempts: sent again only when an operator retries them.",
            value=self.found.failed,
        )
