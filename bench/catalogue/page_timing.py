"""How bench/catalogue/main.py measures: per run of a page build the wall time, the main thread's CPU time, the
garbage collector's part of it and the SQL statements' time, round-robin over the builds, in medians; and
the time the compiled executor takes to plan a document, with an empty plan cache and with a warm one."""

from __future__ import annotations

import gc
import math
import statistics
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from datasources.statistics import QueryStats, current_stats
from schema.execution import PlanCache
from schema.schema import PLAN_CACHE_BYTES, Schema

if TYPE_CHECKING:
    from graphql.execution import Executor as GraphQLCoreExecutor
    from strawberry.schema import Schema as StrawberrySchema

    from schema.execution.plan import ObjectPlan

T = TypeVar("T")


async def with_stats(build: Callable[[], Awaitable[T]]) -> tuple[T, QueryStats]:
    """The build's result and the statistics of its statements and GraphQL operations."""
    stats = QueryStats()
    token = current_stats.set(stats)
    try:
        return await build(), stats
    finally:
        current_stats.reset(token)


# A timed build of one page; returns the milliseconds its SQL statements took, summed.
Run = Callable[[], Awaitable[float]]


def in_process(build: Callable[[], Awaitable[object]]) -> Run:
    async def run() -> float:
        _, stats = await with_stats(build)
        return stats.seconds * 1000

    return run


@dataclass(frozen=True)
class Sample:
    """One timed build of a page, in milliseconds."""

    wall: float  # time.perf_counter around the build
    cpu: float  # time.thread_time of the main thread during the build
    gc: float  # of which the cyclic garbage collector (gc.callbacks)
    sql: float  # the build's statements, summed: QueryStats.seconds (REST: Server-Timing db;dur)


@dataclass(frozen=True)
class Summary:
    """A build's samples in figures, milliseconds: medians, and the wall time's 90th percentile."""

    wall: float
    wall_p90: float
    cpu: float
    gc: float
    cpu_outside_gc: float
    sql: float

    @classmethod
    def of(cls, samples: Sequence[Sample]) -> Summary:
        walls = [sample.wall for sample in samples]
        return cls(
            wall=statistics.median(walls),
            wall_p90=p90(walls),
            cpu=statistics.median(sample.cpu for sample in samples),
            gc=statistics.median(sample.gc for sample in samples),
            cpu_outside_gc=statistics.median(sample.cpu - sample.gc for sample in samples),
            sql=statistics.median(sample.sql for sample in samples),
        )


class CollectorClock:
    """The milliseconds the cyclic garbage collector has run on the main thread, while installed."""

    def __init__(self) -> None:
        self.ms = 0.0
        self._started = 0.0

    def __enter__(self) -> CollectorClock:
        gc.callbacks.append(self._tick)
        return self

    def __exit__(self, *exc_info: object) -> None:
        gc.callbacks.remove(self._tick)

    def _tick(self, phase: str, info: dict[str, int]) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.ms += (time.perf_counter() - self._started) * 1000


async def timed(runs: dict[str, Run], repeat: int) -> dict[str, Summary]:
    """Samples per build, after one warm-up each; round-robin, so that load on the machine hits every
    build alike."""
    for run in runs.values():
        await run()
    samples: dict[str, list[Sample]] = {label: [] for label in runs}
    with CollectorClock() as collector:
        for _ in range(repeat):
            for label, run in runs.items():
                wall, cpu, collected = time.perf_counter(), time.thread_time(), collector.ms
                sql = await run()
                wall, cpu = (time.perf_counter() - wall) * 1000, (time.thread_time() - cpu) * 1000
                samples[label].append(Sample(wall, cpu, collector.ms - collected, sql))
    return {label: Summary.of(runs) for label, runs in samples.items()}


def p90(samples: Sequence[float]) -> float:
    ordered = sorted(samples)
    return ordered[math.ceil(0.9 * len(ordered)) - 1]  # nearest rank


class TimedPlanCache(PlanCache):
    """A plan cache that records how long each `plan` call takes: a compilation on a miss, a look-up on a hit."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(max_bytes)
        self.ms: list[float] = []

    def plan(self, executor: GraphQLCoreExecutor[Any], schema: StrawberrySchema) -> ObjectPlan | None:
        started = time.perf_counter()
        try:
            return super().plan(executor, schema)
        finally:
            self.ms.append((time.perf_counter() - started) * 1000)


@dataclass(frozen=True)
class PlanTimes:
    """Milliseconds in `PlanCache.plan` for one document."""

    first: float  # the first compilation, on a schema that has planned nothing yet
    compile: list[float]  # compilations after emptying the plan cache
    cached: list[float]  # look-ups of the compiled plan

    def summary(self) -> str:
        return (
            f"{statistics.median(self.compile):.2f} ms (median of {len(self.compile)}; the first on a fresh schema"
            f" {self.first:.2f} ms); a cached plan {statistics.median(self.cached) * 1000:.0f} µs"
        )


async def plan_times(schema: Schema, execute: Callable[[], Awaitable[object]], runs: int) -> PlanTimes:
    """Executes a document twice on an empty plan cache of the schema, `runs` + 1 times: a compilation,
    then a look-up."""
    compiled: list[float] = []
    cached: list[float] = []
    for _ in range(runs + 1):
        schema.plans = plans = TimedPlanCache(PLAN_CACHE_BYTES)
        await execute()
        await execute()
        if len(plans.ms) != 2:
            raise SystemExit(f"expected one plan per run, the compiled executor asked {len(plans.ms)} times")
        compiled.append(plans.ms[0])
        cached.append(plans.ms[1])
    return PlanTimes(compiled[0], compiled[1:], cached)
