"""Result values converted once per distinct stored value.

SQLAlchemy converts every value SQLite hands out for a NUMERIC column to a Decimal (`Decimal("%.4f" %
value)`, rounded to the column's scale) and every DATETIME text to a datetime (a regular expression), and
`UtcDateTime` then attaches the zone with `replace` (on PostgreSQL too, to asyncpg's naive datetimes): 0.6
to 1.7 µs a value, some 40,000 values on a 1000-article page. Catalogues repeat such values a great deal
(tier quantities, factors, weights, stock counts, the times of a bulk update), and the results are
immutable, so a column's converter keeps what it made, keyed by the stored value: a repeated value costs
one dict lookup, and its equal values are one object (schema/scalars.py keeps a time's text by object).

Only numbers and times are memoised: their stored values are hashable, and equal values convert to equal
results (NUMERIC: 1, 1.0 and True all format as "1.0000"; times: the stored text, or the naive datetime).
The cache is bounded: when full it starts again, so a column of distinct values costs a lookup and an
insert more per value, nothing unbounded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy.types import Date, DateTime, Numeric, TypeDecorator, TypeEngine

Processor = Callable[[Any], Any]

SIZE = 8192  # distinct values a column's converter keeps
_MISSING = object()


def memoisable(type_: TypeEngine[Any]) -> bool:
    """Whether a converter of `type_`'s values is worth memoising: a number's or a time's."""
    stored = type_.impl_instance if isinstance(type_, TypeDecorator) else type_
    return isinstance(stored, Numeric | DateTime | Date)


def memoised(convert: Processor) -> Processor:
    cache: dict[Any, Any] = {}
    get = cache.get

    def converted(value: Any) -> Any:
        found = get(value, _MISSING)
        if found is _MISSING:
            if len(cache) >= SIZE:
                cache.clear()
            found = cache[value] = convert(value)
        return found

    return converted
