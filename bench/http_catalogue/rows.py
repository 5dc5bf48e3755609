"""The rows of bench/http_catalogue/main.py (the table of issue 15) and the check made before any of them is timed: for
every path of a row, the gateway's body and each other server's body, byte for byte, and the number of SQL
statements the gateway reports in its Server-Timing header (`db;dur=..;desc="N queries"`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import httpx

from bench.http_catalogue.measure import Load

STATEMENTS = re.compile(r'db;(?:dur=[\d.]+;)?desc="(\d+) queries"')
SHOWN = 120  # bytes of each body shown around a difference


@dataclass(frozen=True)
class Row:
    name: str  # as --rows names it
    label: str
    paths: tuple[str, ...]  # empty: the catalogue's sample of ArtNr
    authorized: bool = True
    expected: int = 200

    def load(self, sample: Sequence[str], token: str) -> Load:
        paths = self.paths or tuple(f"/www/artikel/{number}" for number in sample)
        return Load(paths, f"Bearer {token}" if self.authorized else None, self.expected)


ROWS = (
    Row("unauthorized", "401 without token", ("/www/artikel/A-000001",), authorized=False, expected=401),
    Row("single", "GET /www/artikel/{ArtNr}", ()),
    Row("list10", "?limit=10", ("/www/artikel?limit=10",)),
    Row("fields100", "?limit=100&fields=ArtNr,ArtBez", ("/www/artikel?limit=100&fields=ArtNr,ArtBez",)),
    Row("list100", "?limit=100, every field", ("/www/artikel?limit=100",)),
    Row("list1000", "?limit=1000, every field", ("/www/artikel?limit=1000",)),
)
ROW_NAMES = tuple(row.name for row in ROWS)


@dataclass(frozen=True)
class Checked:
    """What the check saw of a row: statements per request (gateway, and each direct app), body size."""

    statements: dict[str, str]  # server label -> count ("8", or "8-9" when the paths differ)
    body_bytes: int  # the gateway's first body


def check(row: Row, load: Load, gateway: str, directs: dict[str, str]) -> Checked:
    """Exits naming the first difference unless every direct app (label -> base URL) answers every path of
    the row with the gateway's status and bytes."""
    headers = {"Authorization": load.authorization} if load.authorization else {}
    counts: dict[str, set[int]] = {label: set() for label in ("gateway", *directs)}
    size = 0
    with httpx.Client(headers=headers, timeout=300) as client:
        for path in load.paths:
            reference = client.get(gateway + path)
            if reference.status_code != load.expected:
                raise SystemExit(f"{row.label}: the gateway answered {path} with {reference.status_code}, not "
                                 f"{load.expected}: {reference.text[:500]}")  # fmt: skip
            size = size or len(reference.content)
            counts["gateway"].add(_statements(reference))
            for label, base in directs.items():
                answer = client.get(base + path)
                if (answer.status_code, answer.content) != (reference.status_code, reference.content):
                    raise SystemExit(f"{row.label}: {path}: {difference(reference, answer, label)}")
                counts[label].add(_statements(answer))
    return Checked({label: _span(found) for label, found in counts.items()}, size)


def _statements(response: httpx.Response) -> int:
    match = STATEMENTS.search(response.headers.get("server-timing", ""))
    return int(match[1]) if match else -1


def _span(counts: set[int]) -> str:
    low, high = min(counts), max(counts)
    return "?" if low < 0 else str(low) if low == high else f"{low}-{high}"


def difference(reference: httpx.Response, answer: httpx.Response, label: str) -> str:
    if answer.status_code != reference.status_code:
        return f"the gateway answered {reference.status_code}, {label} {answer.status_code}: {answer.text[:500]}"
    ours, theirs = reference.content, answer.content
    at = next((i for i, (a, b) in enumerate(zip(ours, theirs, strict=False)) if a != b), min(len(ours), len(theirs)))
    start = max(0, at - SHOWN // 2)
    return (
        f"the bodies differ at byte {at} (gateway {len(ours)} bytes, {label} {len(theirs)})\n"
        f"  gateway: ...{ours[start : at + SHOWN // 2]!r}\n"
        f"  {label}: ...{theirs[start : at + SHOWN // 2]!r}"
    )
