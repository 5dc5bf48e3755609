"""What bench/whole_catalogue/main.py records: per server its idle probes, its whole-catalogue runs and the notable
lines it logged. Apart from the run that fills them, so that the report reads them without importing it."""

from __future__ import annotations

from dataclasses import dataclass, field

from bench.common.process_memory import Peak
from bench.whole_catalogue.client import Body


@dataclass(frozen=True)
class Run:
    body: Body
    probes: list[float]  # seconds, each probe sent while the whole catalogue was on its way
    probe_failures: int
    cpu: float  # seconds, the server's processes
    peak: Peak | None


@dataclass
class Result:
    """One server: its idle probes and whole-catalogue runs, and the notable lines it logged."""

    label: str
    idle: list[float] = field(default_factory=list)
    idle_failures: int = 0
    runs: list[Run] = field(default_factory=list)
    logged: list[str] = field(default_factory=list)
