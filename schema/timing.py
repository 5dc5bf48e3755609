"""Adds the GraphQL execution time of an operation to the request's statistics (Server-Timing)."""

from __future__ import annotations

import time
from collections.abc import Iterator

from strawberry.extensions import SchemaExtension

from datasources.statistics import current_stats


class ExecutionTiming(SchemaExtension):
    # Hooks the operation, never `resolve`: a resolve hook costs ~8 % even when it does nothing.
    def on_operation(self) -> Iterator[None]:
        started = time.perf_counter()
        yield
        stats = current_stats.get()
        if stats is not None:
            stats.graphql_seconds += time.perf_counter() - started
