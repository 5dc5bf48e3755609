"""The instruments, in a registry of the app's own: tests build many apps in one process, and a metric
registered twice in prometheus_client's global registry raises."""

from __future__ import annotations

from typing import NamedTuple

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, disable_created_metrics

from datasources.statistics import QueryStats
from schema.execution import COMPILED, FALLBACK, GRAPHQL_CORE

# From a cached REST read (~1 ms) to the request timeout's default (30 s).
SECONDS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
# A read of a few batched queries, up to what only an N+1 reaches.
STATEMENTS = (0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 100)
# A client names its own operations: the names of fallbacks are labels only up to this many, this long.
FALLBACK_NAMES, FALLBACK_NAME_LENGTH = 50, 64
OTHER_OPERATION = "other"


class _Series(NamedTuple):
    """The children of one method, route and status: looking them up costs more than counting."""

    requests: Counter
    duration: Histogram
    statements: Histogram


class Metrics:
    def __init__(self) -> None:
        # No `_created` series: the multiprocess mode has none, so a single process would differ from a
        # server of several workers; and Prometheus reading the text format makes no use of them.
        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "gateway_http_requests",
            "HTTP requests answered, by method, route template and status.",
            ["method", "route", "status"],
            registry=self.registry,
        )
        self.duration = Histogram(
            "gateway_http_request_duration_seconds",
            "Time from a request's arrival to its answer's end (an event stream's: its start), by method and route "
            "template.",
            ["method", "route"],
            buckets=SECONDS,
            registry=self.registry,
        )
        self.statements = Histogram(
            "gateway_sql_statements_per_request",
            "SQL statements a request ran (transaction control not counted), by route template.",
            ["route"],
            buckets=STATEMENTS,
            registry=self.registry,
        )
        self.operations = Counter(
            "gateway_graphql_operations",
            "GraphQL operations executed (REST routes' included), by executor path.",
            ["path"],
            registry=self.registry,
        )
        self.fallbacks = Counter(
            "gateway_graphql_fallbacks",
            "Queries whose compiled run failed and graphql-core ran every resolver again (a bug), by operation name.",
            ["operation"],
            registry=self.registry,
        )
        self.cut_off = Counter(
            "gateway_http_responses_cut_off",
            "Answers cut off after their status went out (a part of a long list failed), by route template.",
            ["route"],
            registry=self.registry,
        )
        self.log_lines_dropped = Counter(
            "gateway_log_lines_dropped",
            "Log lines that could not be written (a full disk, a failing handler, a stalled writer) and were dropped.",
            registry=self.registry,
        )
        # Live subscriptions (gateway/live): summed over the live worker processes.
        self.live_connections = Gauge(
            "gateway_live_connections",
            "WebSocket connections and event streams open at /graphql.",
            multiprocess_mode="livesum",
            registry=self.registry,
        )
        self.live_subscriptions = Gauge(
            "gateway_live_subscriptions",
            "Subscriptions running on WebSocket connections (their other operations too) and event streams.",
            multiprocess_mode="livesum",
            registry=self.registry,
        )
        self.live_events_sent = Counter(
            "gateway_live_events_sent", "Subscription events sent to clients.", registry=self.registry
        )
        self.live_dropped = Counter(
            "gateway_live_connections_dropped",
            "WebSocket connections and event streams the gateway closed, by reason: slow (a consumer's buffer "
            "overflowed, or it took nothing), idle, token (expired or revoked while open), auth (refused at "
            "connection_init).",
            ["reason"],
            registry=self.registry,
        )
        for reason in ("slow", "idle", "token", "auth"):
            self.live_dropped.labels(reason)
        # At 0 from the start, so that rates and ratios have a series.
        self._paths = {path: self.operations.labels(path) for path in (COMPILED, GRAPHQL_CORE, FALLBACK)}
        # Bounded as the labels are (gateway/metrics/labels.py): methods x routes x statuses.
        self._by_labels: dict[tuple[str, str, int], _Series] = {}
        self._fallback_names: set[str] = set()

    def observe(self, method: str, route: str, status: int, seconds: float, stats: QueryStats | None) -> None:
        series = self._by_labels.get((method, route, status)) or self._new_series(method, route, status)
        series.requests.inc()
        series.duration.observe(seconds)
        if stats is not None:
            series.statements.observe(stats.statements)
            for path in stats.graphql_paths:
                (self._paths.get(path) or self.operations.labels(path)).inc()
            for name in stats.graphql_fallbacks:
                self.fallbacks.labels(self._operation_label(name)).inc()

    def _operation_label(self, name: str) -> str:
        if name in self._fallback_names:
            return name
        if len(self._fallback_names) >= FALLBACK_NAMES or len(name) > FALLBACK_NAME_LENGTH:
            return OTHER_OPERATION
        self._fallback_names.add(name)
        return name

    def _new_series(self, method: str, route: str, status: int) -> _Series:
        made = _Series(
            self.requests.labels(method, route, str(status)),
            self.duration.labels(method, route),
            self.statements.labels(route),
        )
        self._by_labels[method, route, status] = made
        return made
