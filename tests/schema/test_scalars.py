"""The UtcDateTime scalar's output: ISO 8601 in UTC with Z, four-digit years, whole seconds."""

from __future__ import annotations

import datetime as dt

import pytest

from schema.scalars import _serialize_utc


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (dt.datetime(2026, 11, 27, 10, 0, 0, 999_999, tzinfo=dt.UTC), "2026-11-27T10:00:00Z"),  # as read
        (dt.datetime(1, 1, 1, tzinfo=dt.UTC), "0001-01-01T00:00:00Z"),
        (dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=dt.UTC), "9999-12-31T23:59:59Z"),
        (dt.datetime(2026, 11, 27, 10, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))), "2026-11-27T08:00:00Z"),
        (dt.datetime(2026, 11, 27, 10, 0, tzinfo=dt.timezone(dt.timedelta(0), "Z")), "2026-11-27T10:00:00Z"),
    ],
)
def test_a_moment_is_written_in_utc_with_z(value: dt.datetime, text: str) -> None:
    assert _serialize_utc(value) == text
