"""The checks and figures of bench/whole_catalogue/main.py: what makes the run fail (an incomplete answer, bodies that
differ, a probe not answered 200), the legend, the table with one column per server and run, and the lines
the servers logged at WARNING or above."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Sequence

from bench.flood.report import percentile
from bench.whole_catalogue.results import Result, Run

SHOWN_LOG_LINES = 12
MIB = 1024 * 1024


def failures(results: Sequence[Result]) -> list[str]:
    found = []
    for result in results:
        for number, run in enumerate(result.runs, 1):
            body = run.body
            if body.status != 200 or body.error:
                found.append(f"{result.label} #{number}: status {body.status}, {body.error or 'complete'}")
        probes = result.idle_failures + sum(run.probe_failures for run in result.runs)
        if probes:
            found.append(f"{result.label}: {probes} probes not answered 200")
    # Among the complete answers only: a failed one is named above already.
    answers = [(result.label, run.body) for result in results for run in result.runs]
    digests = {(label, body.sha256) for label, body in answers if body.status == 200 and not body.error}
    if len({digest for _, digest in digests}) > 1:
        named = ", ".join(f"{label} {digest[:16]}" for label, digest in sorted(digests))
        found.append(f"the whole-catalogue bodies differ (sha256): {named}")
    return found


def print_legend(args: argparse.Namespace) -> None:
    print()
    print(f"One worker per server; {args.repeat} whole-catalogue request(s) each, read at full speed by a client on")
    print(f"the same machine. Probe: GET /www/artikel/{{ArtNr}} every {args.probe_interval:g} s on another connection,")
    print("one at a time, while the whole catalogue is on its way (idle: 20 in a row before). Server CPU: utime +")
    print("stime of the server's processes over the request, the probes' included. Peak RSS: VmHWM of the server's")
    print("process whose peak grew most, reset before the request (or since the process started, where marked).")


def print_table(articles: int, results: Sequence[Result]) -> None:
    """One column per server and run, side by side; padded so that it reads in a terminal and as Markdown."""
    columns = [
        f"{result.label} #{number}" if len(result.runs) > 1 else result.label
        for result in results
        for number in range(1, len(result.runs) + 1)
    ]
    lines = [[f"{articles:,} articles", *columns]]
    lines += [[name, *(cell(result, run) for result in results for run in result.runs)] for name, cell in ROWS]
    widths = [max(len(line[index]) for line in lines) for index in range(len(lines[0]))]
    print()
    _print_line(lines[0], widths)
    print("|" + "|".join("-" * (width + 2) for width in widths) + "|")
    for line in lines[1:]:
        _print_line(line, widths)
    print(flush=True)


def _print_line(cells: Sequence[str], widths: Sequence[int]) -> None:
    # The row's name left-aligned, its figures right-aligned.
    padded = [
        cells[0].ljust(widths[0]),
        *(cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True)),
    ]
    print("| " + " | ".join(padded) + " |")


def ms(seconds: float) -> str:
    """Seconds in milliseconds as the table and the run's progress lines show them; `-` for none (NaN)."""
    if math.isnan(seconds):
        return "-"
    # A tenth of a millisecond tells on a probe, not on a whole catalogue's seconds.
    return f"{seconds * 1000:,.0f}" if seconds >= 1 else f"{seconds * 1000:.1f}"


def _latencies(values: Sequence[float]) -> str:
    """p50 / p99 / max in ms, nearest rank (below 100 probes, p99 is the largest)."""
    return " / ".join(ms(percentile(values, share)) for share in (0.5, 0.99, 1.0))


def _peak(result: Result, run: Run) -> str:
    peak = run.peak
    if peak is None:
        return "-"
    if peak.reset:  # the peak of this request, over what the process held before it
        grown = (peak.after.hwm - peak.before.rss) / 1024
        return f"{peak.before.rss / 1024:,.0f} -> {peak.after.hwm / 1024:,.0f} (+{grown:,.0f})"
    return f"since start: {peak.before.hwm / 1024:,.0f} -> {peak.after.hwm / 1024:,.0f}"


def _rss_after(result: Result, run: Run) -> str:
    return "-" if run.peak is None else f"{run.peak.after.rss / 1024:,.0f}"


def _idle(result: Result, run: Run) -> str:
    return f"{ms(percentile(result.idle, 0.5))} / {ms(max(result.idle, default=math.nan))}"


Cell = Callable[[Result, Run], str]
ROWS: list[tuple[str, Cell]] = [
    ("whole catalogue total s", lambda result, run: f"{run.body.total:.2f}"),
    ("time to headers ms", lambda result, run: ms(run.body.headers)),
    ("time to first byte ms", lambda result, run: ms(run.body.first_byte)),
    ("body MiB", lambda result, run: f"{run.body.size / MIB:,.1f}"),
    ("status, transfer", lambda result, run: f"{run.body.status} {run.body.transfer}"),
    ("server CPU s", lambda result, run: f"{run.cpu:.2f}"),
    ("RSS before -> peak MiB", _peak),
    ("RSS after MiB", _rss_after),
    ("probes during catalogue", lambda result, run: str(len(run.probes))),
    ("probe p50 / p99 / max ms", lambda result, run: _latencies(run.probes)),
    ("idle probe p50 / max ms", _idle),
    ("body sha256", lambda result, run: run.body.sha256[:12]),
]


def print_logged(results: Sequence[Result]) -> None:
    for result in results:
        count = f"{len(result.logged)} lines" if result.logged else "nothing"
        print(f"{result.label}: {count} at WARNING or above in serve.out and gateway.log")
        for line in result.logged[:SHOWN_LOG_LINES]:
            print(f"    {line}")
