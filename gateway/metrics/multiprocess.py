"""Metrics across worker processes: with `gateway serve --workers N` every worker writes its figures to
files in one directory (prometheus_client's multiprocess mode, chosen by PROMETHEUS_MULTIPROC_DIR when the
library is first imported), and a scrape of any worker reads and sums them all.

The directory must be empty when the workers start (files of an earlier run would be summed in), so
`gateway serve` makes a fresh one and removes it at exit, or empties the one an operator names. Files of a
worker that ended stay: its counts are part of the totals, which must never go down."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from prometheus_client.registry import Collector

DIRECTORY = "PROMETHEUS_MULTIPROC_DIR"


def directory() -> str | None:
    return os.environ.get(DIRECTORY) or None


@contextlib.contextmanager
def shared_directory(workers: int) -> Iterator[None]:
    """Around the server's run in the supervising process, before any worker starts."""
    given = directory()
    if given is not None:
        _empty(Path(given))
        yield
        return
    if workers == 1:  # one process: its figures stay in memory
        yield
        return
    made = tempfile.mkdtemp(prefix="gateway-metrics-")
    os.environ[DIRECTORY] = made  # inherited by the workers
    try:
        yield
    finally:
        del os.environ[DIRECTORY]
        shutil.rmtree(made, ignore_errors=True)


def _empty(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    for stale in path.glob("*.db"):  # only the library's files: the operator may keep others there
        stale.unlink(missing_ok=True)


def all_processes() -> Collector | None:
    """Every worker's figures, read at each scrape; None in a single process."""
    path = directory()
    return None if path is None else MultiProcessCollector(None, path)  # type: ignore[no-untyped-call]


def process_ended() -> None:
    """At a worker's exit: its live gauges leave the directory (prometheus_client keeps the rest)."""
    path = directory()
    if path is not None:
        mark_process_dead(os.getpid(), path)  # type: ignore[no-untyped-call]
