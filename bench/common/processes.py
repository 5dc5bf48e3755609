"""What bench/orders/main.py measures beside the clients' figures: CPU seconds of a process tree (the gateway's
master and workers) and of PostgreSQL's backends, read from /proc, and what PostgreSQL's backends of the
bench's database are doing (pg_stat_activity sampled while the load runs), so that a serialising lock shows
up by name and statement."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import asyncpg

_TICKS = os.sysconf("SC_CLK_TCK")
SAMPLE_EVERY = 0.02  # seconds between two looks at pg_stat_activity


def _stat(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces: split after its closing one.
    return text[text.rindex(")") + 2 :].split()


def process_cpu(pids: Iterable[int]) -> float:
    """User + system CPU seconds of the processes (gone ones count 0)."""
    total = 0
    for pid in pids:
        fields = _stat(pid)
        if fields is not None:
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / _TICKS


def process_tree(root: int) -> list[int]:
    """`root` and every process below it."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None:
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(parents.get(pid, []))
    return tree


def asyncpg_dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://", 1)


class Backends:
    """PostgreSQL's backends serving one database: their CPU and what they wait on while sampled. Backends
    come and go while the load runs (the pool's overflow), so each one's CPU is read at every sample."""

    def __init__(self, url: str) -> None:
        self.dsn = asyncpg_dsn(url)
        self.database = self.dsn.rsplit("/", 1)[1].split("?")[0]
        self.waits: Counter[str] = Counter()
        self.samples = 0
        self._first: dict[int, float] = {}  # CPU seconds when first seen (0 for one started meanwhile)
        self._last: dict[int, float] = {}

    @property
    def cpu(self) -> float:
        """CPU seconds the backends spent since `sample` started."""
        return sum(self._last[pid] - self._first[pid] for pid in self._last)

    async def sample(self, stop: asyncio.Event) -> None:
        """Tallies, every SAMPLE_EVERY, each backend inside a transaction: waiting on a lock (with the
        statement that waits), on I/O, on the client (idle in transaction: the gateway has not sent the next
        statement yet), or running."""
        self.waits.clear()
        self.samples, self._first, self._last = 0, {}, {}
        connection = await asyncpg.connect(self.dsn)
        try:
            query = (
                "SELECT pid, state, wait_event_type, wait_event, left(regexp_replace(query, '\\s+', ' ', 'g'), 70)"
                " AS query FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()"
            )
            self._read_cpu(await connection.fetch(query, self.database), first=True)
            while not stop.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), SAMPLE_EVERY)
                rows = await connection.fetch(query, self.database)
                self._read_cpu(rows, first=False)
                self.samples += 1
                self.waits.update(_label(row) for row in rows if row["state"] in ("active", "idle in transaction"))
        finally:
            await connection.close()

    def _read_cpu(self, rows: list[asyncpg.Record], *, first: bool) -> None:
        for row in rows:
            pid = row["pid"]
            cpu = process_cpu([pid])
            if cpu == 0:
                continue  # gone already
            self._first.setdefault(pid, cpu if first else 0.0)
            self._last[pid] = cpu

    def report(self, top: int = 6) -> list[str]:
        """The most frequent states as 'average backends in that state: label'."""
        if not self.samples:
            return []
        return [f"{count / self.samples:5.2f}  {label}" for label, count in self.waits.most_common(top)]


def _label(row: asyncpg.Record) -> str:
    if row["state"] == "idle in transaction":
        return "idle in transaction (waiting for the client)"
    if row["wait_event_type"] == "Lock":
        return f"Lock:{row['wait_event']} <- {row['query']}"
    if row["wait_event_type"]:
        return f"{row['wait_event_type']}:{row['wait_event']}"
    return "running (on CPU)"
