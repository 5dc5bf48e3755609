"""The UtcDateTime scalar's output: ISO 8601 in UTC with Z, four-digit years, whole seconds."""

from __future__ import annotations

import datetime as dt

import pytest

from schema.scalars import _SERIALIZED, _SERIALIZED_SIZE, _serialize_utc


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


def test_a_moment_serialised_again_gives_its_own_text_not_another_objects() -> None:
    # The texts are kept by object: a moment serialised once comes back from the cache, and an object made
    # after another was freed (its id possibly reused) gets its own text.
    first = dt.datetime(2026, 11, 27, 10, 0, tzinfo=dt.UTC)
    assert _serialize_utc(first) == _serialize_utc(first) == "2026-11-27T10:00:00Z"
    for hour in range(24):
        assert _serialize_utc(dt.datetime(2026, 11, 27, hour, 30, tzinfo=dt.UTC)) == f"2026-11-27T{hour:02d}:30:00Z"


def test_the_kept_texts_are_bounded() -> None:
    kept = [dt.datetime(2026, 1, 1, tzinfo=dt.UTC) + dt.timedelta(seconds=n) for n in range(_SERIALIZED_SIZE + 10)]
    texts = [_serialize_utc(value) for value in kept]
    assert len(_SERIALIZED) <= _SERIALIZED_SIZE
    assert texts[-1] == "2026-01-01T02:16:41Z"
    assert [_serialize_utc(value) for value in kept] == texts
