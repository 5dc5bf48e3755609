"""Result values converted once per distinct stored value (datasources/reads/memo.py): the same values as
SQLAlchemy's converters, repeated values shared, and the cache bounded."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.types import Integer, String

from datasources.models.base import Money, Quantity, UtcDateTime
from datasources.reads import memo

SQLITE = sqlite.dialect()


def _plain(type_: Any, dialect: Any = SQLITE) -> memo.Processor:
    processor: memo.Processor = type_.dialect_impl(dialect).result_processor(dialect, None)
    return processor


@pytest.mark.parametrize(
    ("type_", "stored"),
    [
        (Money, [56.2, 56.2, 1, 1.0, True, 0, -3.14159, 12345678.12345, 1e-5, 2**53]),
        (Quantity, [10, 10, 50.5, 0.00005, -0.5]),
        (UtcDateTime(), ["2025-01-12 22:25:00.000000", "2025-01-12 22:25:00.000000", "2026-11-27 10:00:00"]),
    ],
)
def test_memoised_values_are_sqlalchemys_own(type_: Any, stored: list[Any]) -> None:
    assert memo.memoisable(type_)
    plain, memoised = _plain(type_), memo.memoised(_plain(type_))
    for value in stored:
        expected, got = plain(value), memoised(value)
        assert (got, str(got), type(got)) == (expected, str(expected), type(expected))
    assert memoised(stored[0]) is memoised(stored[1])  # a repeated value is one object


def test_a_decimal_of_an_int_keeps_the_columns_scale() -> None:
    # 1, 1.0 and True share a cache entry: all three are Decimal("1.0000") as SQLAlchemy makes them.
    memoised = memo.memoised(_plain(Money))
    assert [str(memoised(value)) for value in (1, 1.0, True)] == ["1.0000"] * 3


def test_a_moment_is_utc_aware() -> None:
    memoised = memo.memoised(_plain(UtcDateTime()))
    assert memoised("2026-11-27 10:00:00.000000") == dt.datetime(2026, 11, 27, 10, tzinfo=dt.UTC)


def test_only_numbers_and_times_are_memoised() -> None:
    assert not memo.memoisable(Integer())
    assert not memo.memoisable(String())
    assert memo.memoisable(Money) and memo.memoisable(UtcDateTime())


def test_asyncpgs_naive_times_become_one_utc_moment_per_value() -> None:
    plain = _plain(UtcDateTime(), postgresql.asyncpg.dialect())  # type: ignore[no-untyped-call]
    memoised = memo.memoised(plain)
    first, again = dt.datetime(2026, 11, 27, 10, 0, 1), dt.datetime(2026, 11, 27, 10, 0, 1)
    assert memoised(first) == plain(first) == dt.datetime(2026, 11, 27, 10, 0, 1, tzinfo=dt.UTC)
    assert memoised(again) is memoised(first)


def test_the_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memo, "SIZE", 4)
    calls: list[Any] = []

    def convert(value: Any) -> Decimal:
        calls.append(value)
        return Decimal(value)

    memoised = memo.memoised(convert)
    assert [memoised(v) for v in (1, 2, 3, 4, 1)] == [Decimal(v) for v in (1, 2, 3, 4, 1)]
    assert calls == [1, 2, 3, 4]
    assert memoised(5) == Decimal(5)  # full: starts again
    assert memoised(1) == Decimal(1)
    assert calls == [1, 2, 3, 4, 5, 1]
