"""What the listing commands print: aligned columns under a header, times in UTC."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence


def print_table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> None:
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())


def utc_time(moment: dt.datetime | None) -> str:
    return "-" if moment is None else moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
