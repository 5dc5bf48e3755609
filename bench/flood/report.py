"""What bench/flood/main.py records and how it reads it back: every request as a sample, the shop's ledger of
orders, the reconciliation of that ledger with what the database stored, and the printed tables."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

Json = dict[str, Any]
HEAVY_KINDS = ("order-1000", "oversized-1001", "oversized-50000", "catalogue")
OVERSIZED_KINDS = ("oversized-1001", "oversized-50000")
PHASES = ("before outage", "heavy requests", "outage", "after outage")
QUICK_REFUSAL = 1.0  # seconds: an oversized order is refused before any work, so well within this


@dataclass(frozen=True)
class Sample:
    """One request: its kind, when it was sent (seconds since the flood started), how long it took and
    its status code, or `timeout` / `error` when no answer came."""

    kind: str
    started: float
    seconds: float
    status: str
    reference: str = ""  # AuftBestellNr of an order

    @property
    def ended(self) -> float:
        return self.started + self.seconds


@dataclass
class Order:
    """An order as the shop keeps it: the same key and body on every attempt until it is answered."""

    reference: str  # AuftBestellNr, unique per order
    key: str  # Idempotency-Key
    body: bytes
    positions: int
    kind: str
    attempts: int = 0
    due: float = 0.0  # the next attempt may go at this time (Retry-After)
    busy: bool = False
    number: str | None = None  # AuftNr of the first 2xx answer
    acknowledged_at: float | None = None
    refused: str | None = None  # a 4xx other than a replay: the shop gives up on it


@dataclass
class Run:
    backend: str
    workers: int
    seconds: float
    outage_label: str
    outage: tuple[float, float] = (math.inf, math.inf)
    outage_problem: str | None = None
    samples: list[Sample] = field(default_factory=list)
    orders: dict[str, Order] = field(default_factory=dict)
    final_retry_seconds: float = 0.0
    flood_ended: float = math.inf  # every loop done, nothing in flight: the final retries start
    stored_before_final: set[str] = field(default_factory=set)  # AuftBestellNr stored at flood_ended


@dataclass(frozen=True)
class Stored:
    number: str
    positions: int


# --- percentiles and phases ---------------------------------------------------------------------------


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest rank: the smallest value with at least `share` of the values at or below it."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def phase_of(sample: Sample, outage: tuple[float, float], heavy: Sequence[Sample]) -> str:
    """The outage wins; outside it, a probe that overlapped any heavy request counts as under heavy load."""
    if sample.started < outage[1] and sample.ended > outage[0]:
        return "outage"
    if any(sample.started < other.ended and sample.ended > other.started for other in heavy):
        return "heavy requests"
    return "before outage" if sample.started < outage[0] else "after outage"


def _ms(value: float) -> str:
    return "-" if math.isnan(value) else f"{value * 1000:.1f}"


# --- the orders against the database ------------------------------------------------------------------


@dataclass
class Reconciliation:
    sent: int
    acknowledged: int
    acknowledged_in_flood: int
    stored: int
    stored_unacknowledged_in_flood: list[str]  # the commit went through, the answer was a 503 or never came
    stored_by_final: int
    unresolved: list[str]
    refused: Counter[str]
    lost: list[str]
    duplicated: list[str]
    other_number: list[str]
    positions_expected: int
    positions_stored: int
    positions_wrong: list[str]
    unknown_stored: list[str]  # stored under the run's prefix but no order of the ledger: an oversized one

    @property
    def failures(self) -> list[str]:
        checks = (
            (self.lost, "acknowledged but not stored"),
            (self.duplicated, "stored twice"),
            (self.other_number, "stored under another AuftNr than acknowledged"),
            (self.positions_wrong, "stored with another number of positions than sent"),
            (self.unknown_stored, "stored though never sent as an accepted order (oversized)"),
        )
        return [f"{len(refs)} {what}: {', '.join(refs[:5])}" for refs, what in checks if refs]


def reconcile(run: Run, stored: dict[str, list[Stored]]) -> Reconciliation:
    orders = run.orders.values()
    acknowledged = [o for o in orders if o.number is not None]
    in_flood = {
        o.reference for o in acknowledged if o.acknowledged_at is not None and o.acknowledged_at <= run.flood_ended
    }
    mine = {ref: rows for ref, rows in stored.items() if ref in run.orders}
    return Reconciliation(
        sent=len(run.orders),
        acknowledged=len(acknowledged),
        acknowledged_in_flood=len(in_flood),
        stored=sum(len(rows) for rows in mine.values()),
        stored_unacknowledged_in_flood=sorted(run.stored_before_final & run.orders.keys() - in_flood),
        stored_by_final=len(mine.keys() - run.stored_before_final),
        unresolved=[o.reference for o in orders if o.number is None and o.refused is None],
        refused=Counter(o.refused for o in orders if o.refused is not None),
        lost=[o.reference for o in acknowledged if o.reference not in mine],
        duplicated=[ref for ref, rows in mine.items() if len(rows) > 1],
        other_number=[
            o.reference for o in acknowledged if o.reference in mine and mine[o.reference][0].number != o.number
        ],
        positions_expected=sum(o.positions for o in acknowledged),
        positions_stored=sum(row.positions for o in acknowledged for row in mine.get(o.reference, ())),
        positions_wrong=[
            ref for ref, rows in mine.items() if any(r.positions != run.orders[ref].positions for r in rows)
        ],
        unknown_stored=sorted(ref for ref in stored if ref not in run.orders),
    )


# --- printing -------------------------------------------------------------------------------------------


def print_requests(samples: Sequence[Sample]) -> None:
    kinds = sorted({s.kind for s in samples}, key=_kind_order)
    statuses = sorted({s.status for s in samples}, key=lambda status: (not status.isdigit(), status))
    print("requests by kind and answer (latency of every answer, any status)")
    print(f"  {'':<17}{'n':>6}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}  " + "".join(f"{s:>8}" for s in statuses))
    for kind in kinds:
        mine = [s for s in samples if s.kind == kind]
        times = [s.seconds for s in mine]
        counts = Counter(s.status for s in mine)
        figures = "".join(f"{_ms(percentile(times, q)):>9}" for q in (0.5, 0.95, 1.0))
        print(f"  {kind:<17}{len(mine):>6}{figures}  " + "".join(f"{counts.get(s, ''):>8}" for s in statuses))


def _kind_order(kind: str) -> tuple[int, str]:
    order = ("probe", "read-list", "read-article", "order", "order-retry", *HEAVY_KINDS, "order-final")
    return (order.index(kind) if kind in order else len(order), kind)


def print_probe(run: Run) -> None:
    heavy = [s for s in run.samples if s.kind in HEAVY_KINDS]
    by_phase: dict[str, list[Sample]] = {name: [] for name in PHASES}
    for sample in run.samples:
        if sample.kind == "probe":
            by_phase[phase_of(sample, run.outage, heavy)].append(sample)
    print("probe: GET /www/artikel/A-000001?fields=ArtNr every 100 ms, ms by phase")
    print(f"  {'':<10}" + "".join(f"{name:>16}" for name in PHASES))
    print(f"  {'probes':<10}" + "".join(f"{len(by_phase[name]):>16}" for name in PHASES))
    print(f"  {'200':<10}" + "".join(f"{_count(by_phase[name], '200'):>16}" for name in PHASES))
    print(f"  {'other':<10}" + "".join(f"{_others(by_phase[name]):>16}" for name in PHASES))
    for label, share in (("p50", 0.5), ("p95", 0.95), ("p99", 0.99), ("max", 1.0)):
        cells = [_ms(percentile([s.seconds for s in by_phase[name]], share)) for name in PHASES]
        print(f"  {label:<10}" + "".join(f"{cell:>16}" for cell in cells))


def _count(samples: Iterable[Sample], status: str) -> int:
    return sum(1 for s in samples if s.status == status)


def _others(samples: Sequence[Sample]) -> str:
    counts = Counter(s.status for s in samples if s.status != "200")
    return " ".join(f"{n}x{status}" for status, n in sorted(counts.items())) or "0"


def print_recovery(run: Run) -> None:
    end = run.outage[1]

    def first(kinds: tuple[str, ...]) -> str:
        after = [s.ended - end for s in run.samples if s.kind in kinds and s.started >= end and s.status[0] == "2"]
        return f"+{min(after):.2f} s" if after else "none"

    orders = first(("order", "order-retry", "order-1000"))
    print(f"after the outage ended: first 2xx probe {first(('probe',))}, first 2xx order {orders}")


def print_orders(result: Reconciliation, run: Run) -> None:
    final = result.acknowledged - result.acknowledged_in_flood
    rows = [
        ("orders sent (own AuftBestellNr and Idempotency-Key each)", f"{result.sent}"),
        (
            "acknowledged (2xx)",
            f"{result.acknowledged} ({result.acknowledged_in_flood} during the flood, {final} by the final retries)",
        ),
        ("stored", f"{result.stored}"),
        ("stored during the flood without an acknowledgement", f"{len(result.stored_unacknowledged_in_flood)}"),
        ("first stored by the final retries", f"{result.stored_by_final}"),
        ("never answered (given up after the final retries)", f"{len(result.unresolved)}"),
        ("refused (4xx)", " ".join(f"{n}x{s}" for s, n in result.refused.items()) or "0"),
        ("acknowledged but not stored (must be 0)", f"{len(result.lost)}"),
        ("stored twice (must be 0)", f"{len(result.duplicated)}"),
        ("stored under another AuftNr than answered (must be 0)", f"{len(result.other_number)}"),
        ("positions stored / expected", f"{result.positions_stored} / {result.positions_expected}"),
    ]
    print(f"orders (final retries took {run.final_retry_seconds:.1f} s)")
    for label, value in rows:
        print(f"  {label:<57}{value}")
    if result.stored_unacknowledged_in_flood:
        print("  attempts of orders stored without an acknowledgement (sent at, status, seconds):")
    for reference in result.stored_unacknowledged_in_flood[:5]:
        attempts = [s for s in run.samples if s.reference == reference]
        print(f"    {reference}: " + ", ".join(f"{s.started:.1f}s {s.status} {s.seconds:.2f}s" for s in attempts))


def print_oversized(samples: Sequence[Sample], stored: dict[str, list[Stored]]) -> list[str]:
    """The oversized orders' answers; returns what is wrong with them (must be 400, quickly, not stored)."""
    print(f"oversized orders (must be 400 within {QUICK_REFUSAL:.0f} s and never stored)")
    print(f"  {'kind':<17}{'sent at':>9}{'status':>9}{'seconds':>9}  stored")
    problems = []
    for sample in (s for s in samples if s.kind in OVERSIZED_KINDS):
        kept = stored.get(sample.reference, [])
        print(f"  {sample.kind:<17}{sample.started:>8.1f}s{sample.status:>9}{sample.seconds:>9.2f}  {len(kept)}")
        if sample.status != "400" or sample.seconds > QUICK_REFUSAL or kept:
            problems.append(f"{sample.kind} at {sample.started:.1f} s: {sample.status} after {sample.seconds:.2f} s")
    return problems


# --- the whole report -------------------------------------------------------------------------------------------


def print_report(run: Run, stored: dict[str, list[Stored]], log: str) -> int:
    """Prints everything; 1 when a check failed."""
    print(f"outage {run.outage[0]:.1f}-{run.outage[1]:.1f} s: {run.outage_label}")
    if run.outage_problem:
        print(f"  but {run.outage_problem}")
    print()
    print_requests(run.samples)
    print()
    print_probe(run)
    print_recovery(run)
    print()
    result = reconcile(run, stored)
    print_orders(result, run)
    print()
    oversized = print_oversized(run.samples, stored)
    print()
    lines = (log.count("unavailable:"), log.count("answers again after"), log.count("Traceback"))
    print("gateway.log: {} outage line(s), {} recovery line(s), {} traceback(s)".format(*lines))
    errors = [s for s in run.samples if s.status.startswith("5") and s.status != "503"]
    failures = [run.outage_problem] if run.outage_problem else []
    failures += result.failures + oversized + ([f"{len(errors)} answers 5xx other than 503"] if errors else [])
    if failures:
        print("FAILED")
        for failure in failures:
            print(f"  {failure}")
        return 1
    print("OK: every acknowledged order stored once, with its number and positions; oversized orders refused")
    return 0
