"""The hand-written SQL of the direct app (bench/http_catalogue/direct.py) and the three drivers it runs on: the stdlib
sqlite3 module, aiosqlite and asyncpg. No ORM, no SQLAlchemy: statements as text, rows as tuples.

The statements read what datasources/catalogue reads, in the same order where the output depends on it
(attributes by key, packaging units by factor and code, stock by location, warehouse and unit, declarations
by number): the page in `+ArtBez` order from `article_sort_key` with ties in ArtNr order, one row more than
the page (whether a next page follows), the `RESTWEBSHOP` condition as the same EXISTS, stock net of
reservations in released warehouses. `Values` does per database what the gateway's types do to the values
(numbers print as floats, also where SQLite's NUMERIC columns hand out ints; LagerBestand is rounded half
up; times, naive UTC, print as ISO 8601 with Z), so that they print as the gateway prints them.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from typing import Any, Protocol

import aiosqlite
import asyncpg

Row = Sequence[Any]
IN_IDS = "IN_IDS"  # where a statement takes the page's article ids; always its first parameter
SAME_UNIT = "SAME_UNIT"  # NULL-safe equality: IS on SQLite, IS NOT DISTINCT FROM on PostgreSQL

_EXPOSED = "EXISTS (SELECT 1 FROM article_attribute x WHERE x.article_id = a.id AND x.\"key\" = 'RESTWEBSHOP')"
_ARTICLES = (
    "SELECT a.id, a.number, a.stock_managed, a.status, a.unit, a.colour,"
    ' coalesce(t.rate, (SELECT s.rate FROM tax_code s WHERE s.is_standard)), a."group", a.article_class,'
    " a.procurement_type, a.processing_type, a.weight, a.modified_at"
    " FROM article a LEFT JOIN tax_code t ON t.code = a.tax_code"
)
SQL = {
    # The leading currency and the default price list: the view of a request without debinr/adrsprache.
    "view": "SELECT (SELECT code FROM currency WHERE is_leading), (SELECT id FROM price_list WHERE is_default)",
    "page": f"{_ARTICLES} JOIN article_sort_key k ON k.article_id = a.id AND k.language = 'ger'"
    f" WHERE {_EXPOSED} ORDER BY k.designation, k.number LIMIT ? OFFSET ?",
    "article": f"{_ARTICLES} WHERE {_EXPOSED} AND a.number = ?",
    "designations": f"SELECT article_id, text FROM article_designation WHERE article_id {IN_IDS} AND language = 'ger'",
    "attributes": f'SELECT article_id, "key", contents FROM article_attribute WHERE article_id {IN_IDS}'
    ' ORDER BY article_id, "key"',
    "packaging": "SELECT p.article_id, p.code, p.ean, p.designation, p.factor, p.weight_factor, p.weight,"
    " p.content_weight, x.contents FROM packaging_unit p"
    " LEFT JOIN article_attribute x ON x.article_id = p.article_id AND x.\"key\" = 'WEBSHOPVPE'"
    f" WHERE p.article_id {IN_IDS} ORDER BY p.article_id, p.factor, p.code",
    # No ORDER BY, as the gateway's: the tiers are sorted in Python by (range, from quantity).
    "prices": "SELECT p.article_id, p.packaging_unit, p.price_range, p.min_quantity, p.amount, p.modified_at,"
    " l.price_kind FROM price p JOIN price_list l ON l.id = p.price_list_id"
    f" WHERE p.article_id {IN_IDS} AND p.currency = ? AND p.price_list_id = ?",
    "stock": "SELECT s.article_id, w.name, w.location_number, s.packaging_unit, s.stock_range,"
    " s.on_hand - (SELECT coalesce(sum(r.quantity), 0) FROM reservation r WHERE r.article_id = s.article_id"
    f" AND r.warehouse_id = s.warehouse_id AND r.packaging_unit {SAME_UNIT} s.packaging_unit)"
    " FROM stock s JOIN warehouse w ON w.id = s.warehouse_id"
    f" WHERE s.article_id {IN_IDS} AND w.released"
    " ORDER BY s.article_id, w.location_number, w.name, s.packaging_unit",
    "declarations": "SELECT article_id, id, language, designation1, designation2, short_designation, country"
    f" FROM declaration WHERE article_id {IN_IDS} ORDER BY article_id, id",
}


class Values:
    """Values as the gateway prints them. PostgreSQL (asyncpg) hands out Decimal and datetime."""

    no_limit: int | None = None  # LIMIT NULL: every row

    @staticmethod
    def number(value: Any) -> float | None:
        return None if value is None else float(value)

    @staticmethod
    def quantity(value: Any) -> int:
        # LagerBestand is an int in the interface: the gateway rounds half up.
        return int(value.to_integral_value(ROUND_HALF_UP))

    @staticmethod
    def when(value: Any) -> str:
        return str(value.isoformat(timespec="seconds")) + "Z"


class SqliteValues(Values):
    """SQLite's NUMERIC columns hold ints and floats; SQLAlchemy hands them out as Decimal('%.4f' % value),
    rounded to the column's scale. The float of a value written with at most 4 decimals (as the gateway and
    the demo write them) is that value already, so numbers are only made floats (an int prints as 12.0);
    a value with more decimals, written by another hand, would show in the check before timing. Times are
    text 'YYYY-MM-DD HH:MM:SS.ffffff' in UTC."""

    no_limit = -1

    @staticmethod
    def quantity(value: Any) -> int:
        return value if type(value) is int else int(Decimal(f"{value:.4f}").to_integral_value(ROUND_HALF_UP))

    @staticmethod
    def when(value: Any) -> str:
        return f"{value[:10]}T{value[11:19]}Z"


@lru_cache(maxsize=1024)
def sqlite_statement(name: str, ids: int) -> str:
    sql = SQL[name].replace(IN_IDS, f"IN ({','.join('?' * ids)})")
    return sql.replace(SAME_UNIT, "IS")


@lru_cache(maxsize=64)
def postgresql_statement(name: str) -> str:
    sql = SQL[name].replace(IN_IDS, "= ANY(?::int[])").replace(SAME_UNIT, "IS NOT DISTINCT FROM")
    numbers = iter(range(1, 100))
    return re.sub(r"\?", lambda _: f"${next(numbers)}", sql)


class Connection(Protocol):
    values: type[Values]
    statements: int

    async def fetch(self, name: str, args: Sequence[Any] = (), ids: Sequence[int] | None = None) -> list[Row]:
        """The rows of statement `name`; `ids` fill its IN_IDS."""
        ...


class _Counted:
    statements = 0


class Sqlite3Connection(_Counted):
    """The stdlib driver, called on the event loop's thread (each statement blocks it for its microseconds to
    milliseconds), as a small app written on it would call it."""

    values: type[Values] = SqliteValues

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection

    async def fetch(self, name: str, args: Sequence[Any] = (), ids: Sequence[int] | None = None) -> list[Row]:
        self.statements += 1
        if ids is None:
            return self.connection.execute(sqlite_statement(name, 0), args).fetchall()
        return self.connection.execute(sqlite_statement(name, len(ids)), (*ids, *args)).fetchall()


class AiosqliteConnection(_Counted):
    values: type[Values] = SqliteValues

    def __init__(self, connection: aiosqlite.Connection) -> None:
        self.connection = connection

    async def fetch(self, name: str, args: Sequence[Any] = (), ids: Sequence[int] | None = None) -> list[Row]:
        self.statements += 1
        if ids is None:
            return list(await self.connection.execute_fetchall(sqlite_statement(name, 0), args))
        rows = await self.connection.execute_fetchall(sqlite_statement(name, len(ids)), (*ids, *args))
        return list(rows)


class AsyncpgConnection(_Counted):
    values: type[Values] = Values

    def __init__(self, connection: asyncpg.Connection) -> None:
        self.connection = connection

    async def fetch(self, name: str, args: Sequence[Any] = (), ids: Sequence[int] | None = None) -> list[Row]:
        self.statements += 1
        arguments = args if ids is None else (list(ids), *args)
        return list(await self.connection.fetch(postgresql_statement(name), *arguments))


class Store:
    """The connections of one worker process: `connection()` lends one for a request."""

    def __init__(self, driver: str, database: str, pool_size: int) -> None:
        self.driver, self.database, self.pool_size = driver, database, pool_size
        self._shared: sqlite3.Connection | None = None
        self._idle: asyncio.Queue[aiosqlite.Connection] = asyncio.Queue()
        self._opened: list[aiosqlite.Connection] = []
        self._pool: asyncpg.Pool | None = None

    async def open(self) -> None:
        if self.driver == "asyncpg":
            self._pool = await asyncpg.create_pool(self.database, min_size=self.pool_size, max_size=self.pool_size)
        elif self.driver == "sqlite3":
            # One connection serves the whole worker: its calls never leave the event loop's thread.
            self._shared = sqlite3.connect(self.database, isolation_level=None, check_same_thread=False)
        else:
            # Each aiosqlite connection has a thread of its own: concurrent requests get a pool of them, as
            # the gateway's requests do.
            for _ in range(self.pool_size):
                connection = await aiosqlite.connect(self.database, isolation_level=None)
                self._opened.append(connection)
                self._idle.put_nowait(connection)

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.close()
        if self._shared is not None:
            self._shared.close()
        for connection in self._opened:
            await connection.close()

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[Connection]:
        if self._pool is not None:
            async with self._pool.acquire() as raw:
                yield AsyncpgConnection(raw)
        elif self._shared is not None:
            yield Sqlite3Connection(self._shared)
        else:
            raw = await self._idle.get()
            try:
                yield AiosqliteConnection(raw)
            finally:
                self._idle.put_nowait(raw)
