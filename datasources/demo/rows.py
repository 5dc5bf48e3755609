"""What every demo generator shares: rows keyed by table, explicit id counters and fixed timestamps."""

from __future__ import annotations

import datetime as dt
import random
from collections import defaultdict
from typing import Any

from datasources.models import Base

Row = dict[str, Any]

# Every timestamp is an offset from here, so that the same seed gives the same data on every run.
BASE_TIME = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
_MINUTES_PER_YEAR = 365 * 24 * 60


def timestamp(rng: random.Random) -> dt.datetime:
    return BASE_TIME + dt.timedelta(minutes=rng.randrange(_MINUTES_PER_YEAR))


class Ids:
    """Hands out primary keys 1, 2, 3, ... per table, so child rows can name their parents up front."""

    def __init__(self) -> None:
        self._last: dict[str, int] = defaultdict(int)

    def next(self, model: type[Base]) -> int:
        self._last[model.__tablename__] += 1
        return self._last[model.__tablename__]


class Batch:
    """Rows waiting to be inserted, by table name."""

    def __init__(self) -> None:
        self.rows: dict[str, list[Row]] = {}

    def add(self, model: type[Base], row: Row) -> None:
        self.rows.setdefault(model.__tablename__, []).append(row)

    def extend(self, model: type[Base], rows: list[Row]) -> None:
        self.rows.setdefault(model.__tablename__, []).extend(rows)
