"""GET /metrics in the Prometheus text format.

It needs a token with the metrics scope (or admin; the figures show how the shop is used), unless
GATEWAY_METRICS_PUBLIC=1 opens it for a Prometheus on a private network that scrapes without one
(gateway/middleware/auth.py then asks for no token)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from functools import partial

from prometheus_client.exposition import CONTENT_TYPE_PLAIN_0_0_4, generate_latest
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from gateway.errors import error_response
from gateway.metrics import multiprocess
from gateway.metrics.outbox import BacklogReader, OutboxCollector
from gateway.metrics.registry import Metrics
from rest_compat.errors import ApiError
from schema.permissions import Principal, Scope

METRICS_PATH = "/metrics"


class _Scrape(Collector):
    """The collectors of one scrape, read in turn."""

    def __init__(self, *parts: Collector) -> None:
        self.parts = parts

    def collect(self) -> Iterator[Metric]:
        for part in self.parts:
            yield from part.collect()


async def metrics_page(request: Request, *, metrics: Metrics, public: bool, outbox: BacklogReader) -> Response:
    user: Principal | None = request.scope.get("user")
    if not public and (user is None or not user.has(Scope.METRICS)):
        return error_response(ApiError("insufficient_scope", "the metrics scope is required"))
    parts: list[Collector] = [multiprocess.all_processes() or metrics.registry]
    found = await outbox.read(request.state.db)
    if found is not None:  # None: the database did not answer in time; the rest is still worth scraping
        parts.append(OutboxCollector(found, dt.datetime.now(dt.UTC)))
    return Response(generate_latest(_Scrape(*parts)), media_type=CONTENT_TYPE_PLAIN_0_0_4)


def routes(metrics: Metrics, *, public: bool, timeout: float) -> list[BaseRoute]:
    page = partial(metrics_page, metrics=metrics, public=public, outbox=BacklogReader(timeout))
    return [Route(METRICS_PATH, page, methods=["GET"])]
