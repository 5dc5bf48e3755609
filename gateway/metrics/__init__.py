"""Prometheus metrics at GET /metrics: requests by route and status, their latency, SQL statements per
request, the GraphQL executor path of each operation, the webhook outbox's backlog. With `--workers N` each
worker keeps its figures in a directory they share, and one scrape sums them all (multiprocess.py)."""

from gateway.metrics import multiprocess
from gateway.metrics.middleware import MetricsMiddleware
from gateway.metrics.registry import Metrics
from gateway.metrics.routes import METRICS_PATH, routes

__all__ = ["METRICS_PATH", "Metrics", "MetricsMiddleware", "multiprocess", "routes"]
