"""Statements of a write transaction, compiled once and run by the driver on the transaction's connection.

Through a session SQLAlchemy looks every statement up in its cache, builds an execution context, binds the
parameters and wraps the result, and the ORM adds its own steps: 150-300 µs of CPU a statement here, against
40-70 µs for the DBAPI cursor. An order runs the same fifteen or so statements every time, so each is a
`Statement` compiled once per dialect (datasources/reads/query.py's `Compiled`, as a read's `Query`), and
running it costs what the cursor costs (on aiosqlite, one call in the connection's thread rather than the
adapter's three or four). What the session would do around a statement is kept:

- the session's connection and transaction are the statement's (`session.connection()`: SQLite's BEGIN
  IMMEDIATE on the first one), and pending ORM objects are flushed first, as the session's autoflush does;
- the engine's cursor events fire as for any statement (the request's statement count and time, the NUL
  guard, the database's availability, and whatever a test listens for);
- an error is handled by SQLAlchemy's own handler: a driver error is wrapped as SQLAlchemy wraps it, and a
  lost connection is invalidated;
- rows come back converted by the result processors SQLAlchemy would apply (Decimal scales, UTC datetimes),
  parameters bound by its bind processors (datasources/reads/query.py does the same for reads).

Columns with a Python-side default must be given: a compiled statement has no execution to fill them in.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NoReturn, cast

from sqlalchemy import ColumnDefault, Table, bindparam, insert
from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.visitors import iterate
from sqlalchemy.util import await_, greenlet_spawn

from datasources.reads import Query, Row
from datasources.reads.query import Compiled, ValuesIn


class Statement:
    """A SELECT, INSERT, UPDATE or DELETE (with or without RETURNING) to be run in a write transaction.
    Named parameters are `bindparam(name)`s and `values_in` lists (one parameter whatever their length).
    `defaults`: the value of a parameter not given (a column's Python-side default, insert_row)."""

    def __init__(self, statement: ClauseElement, defaults: Mapping[str, ColumnDefault] | None = None) -> None:
        self.statement = statement
        self.lists = frozenset(element.name for element in iterate(statement) if isinstance(element, ValuesIn))
        self.defaults = dict(defaults or {})
        self._compiled: dict[str, Compiled] = {}

    def filled(self, given: Mapping[str, Any]) -> Mapping[str, Any]:
        """`given` with the default of each parameter it leaves out: a value, or a function's result per row."""
        missing = [name for name in self.defaults if name not in given]
        if not missing:
            return given
        return {**{name: _default_value(self.defaults[name]) for name in missing}, **given}

    def compiled(self, dialect: Dialect) -> Compiled:
        found = self._compiled.get(dialect.name)
        if found is None:
            found = self._compiled[dialect.name] = Compiled(self.statement, dialect, self.lists)
        return found


def insert_row(table: Table, *, returning: bool = False) -> Statement:
    """An INSERT of every column but the id, each a parameter of its name: compiled once, so every column is
    written, None or not. A column a row leaves out takes the model's Python-side default (`default=`), as
    SQLAlchemy's own INSERT gives it; one without a default must be given. With `returning`, the new row's
    id comes back."""
    columns = [c for c in table.columns if c.key != "id"]
    stmt = insert(table).values({c.key: bindparam(c.key, type_=c.type) for c in columns})
    defaults = {c.key: c.default for c in columns if isinstance(c.default, ColumnDefault)}
    for name, default in defaults.items():
        if not (default.is_scalar or default.is_callable):
            raise ValueError(f"{table.name}.{name}: a default insert_row cannot give (a SQL expression)")
    # inline(): no id fetched back (PostgreSQL's implicit RETURNING) unless asked for.
    return Statement(stmt.returning(table.c.id) if returning else stmt.inline(), defaults)


def _default_value(default: ColumnDefault) -> Any:
    # SQLAlchemy wraps a default function into one that takes the execution context; these take none.
    return default.arg(None) if default.is_callable else default.arg


class Outcome:
    """What a statement came back with: its rows, converted, and how many rows it changed."""

    __slots__ = ("rowcount", "rows")

    def __init__(self, rows: list[Row], rowcount: int) -> None:
        self.rows = rows
        self.rowcount = rowcount

    def scalar(self) -> Any:
        """The first column of the first row, None without a row."""
        return self.rows[0][0] if self.rows else None


async def run(session: AsyncSession, statement: Statement | Query, /, **params: Any) -> Outcome:
    """Runs the statement in the session's transaction."""
    connection = await _connection(session)
    compiled = statement.compiled(connection.dialect)
    given = statement.filled(params) if isinstance(statement, Statement) else params
    return await _execute(connection, compiled.sql, compiled.arguments(given), False, compiled.rows)


async def run_many(session: AsyncSession, statement: Statement, rows: Sequence[Mapping[str, Any]]) -> None:
    """Runs the statement once per parameter set, as one executemany (one statement for the counts)."""
    if rows:
        connection = await _connection(session)
        compiled = statement.compiled(connection.dialect)
        arguments = [compiled.arguments(statement.filled(values)) for values in rows]
        await _execute(connection, compiled.sql, arguments, True, compiled.rows)


async def rows(session: AsyncSession, statement: Statement | Query, /, **params: Any) -> list[Row]:
    return (await run(session, statement, **params)).rows


async def scalar(session: AsyncSession, statement: Statement | Query, /, **params: Any) -> Any:
    return (await run(session, statement, **params)).scalar()


class TransactionReads:
    """`Reads` (datasources/reads) inside a write transaction: the catalogue's queries a write prices and
    checks with, run by the driver on the transaction's connection. Reads asked for together take turns."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session
        self._turn = asyncio.Lock()

    async def rows(self, query: Query, /, **params: Any) -> list[Row]:
        async with self._turn:
            return (await run(self.session, query, **params)).rows


_CONNECTION = "transaction_connection"  # a session.info key: (its root transaction, that one's connection)


async def _connection(session: AsyncSession) -> Connection:
    """The connection of the session's transaction, begun if it is not (SQLite: BEGIN IMMEDIATE), after the
    flush of pending ORM objects that the session's autoflush would make. Kept for the transaction."""
    sync = session.sync_session
    if sync.autoflush and (sync.new or sync.deleted or sync.dirty):
        await greenlet_spawn(sync.flush)
    kept = sync.info.get(_CONNECTION)
    if kept is not None and kept[0] is sync.get_transaction() and not kept[1].invalidated:
        return cast(Connection, kept[1])
    begun = (await session.connection()).sync_connection
    assert begun is not None
    sync.info[_CONNECTION] = (sync.get_transaction(), begun)
    return begun


Convert = Callable[[Iterable[Row], Sequence[Any] | None], list[Row]]


async def _execute(connection: Connection, sql: str, arguments: Any, many: bool, convert: Convert) -> Outcome:
    """What SQLAlchemy's Connection does for one cursor execution (`_exec_single_context`), without the
    execution context: the cursor events, the DBAPI call, its error handling."""
    driver = connection.dialect.driver
    if driver == "asyncpg":
        return await _execute_asyncpg(connection, sql, arguments, many, convert)
    if driver == "aiosqlite":
        return await _execute_aiosqlite(connection, sql, arguments, many, convert)
    return await greenlet_spawn(_execute_dbapi, connection, sql, arguments, many, convert)


async def _execute_asyncpg(connection: Connection, sql: str, arguments: Any, many: bool, convert: Convert) -> Outcome:
    """On asyncpg the call is the coroutine that SQLAlchemy's DBAPI adapter itself awaits (which begins the
    transaction with its first statement, prepares each statement once per connection and translates the
    driver's errors), without the detour through a greenlet that the adapter's synchronous cursor takes:
    about 30 µs a statement."""
    cursor = None
    try:
        cursor = connection.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        sql, arguments = _before(connection, cursor, sql, arguments, many)
        if many:
            await cursor._executemany(sql, arguments)
        else:
            await cursor._prepare_and_execute(sql, arguments)
        return _outcome(connection, cursor, sql, arguments, many, convert)
    except BaseException as error:
        await greenlet_spawn(_handle, connection, error, sql, arguments, cursor)  # raises
        raise


async def _execute_aiosqlite(connection: Connection, sql: str, arguments: Any, many: bool, convert: Convert) -> Outcome:
    """On aiosqlite the whole statement (execute, fetch, row count, close) is one call in the connection's
    thread, where the sqlite3 connection lives: SQLAlchemy's adapter takes a trip there and back for each
    step, 3-4 a statement, and each costs two thread switches (some 60 µs of CPU; an order ran 54 of them).
    The call goes through aiosqlite's queue of the connection (`_execute`), as the adapter's own isolation
    level setter does; no cursor exists before it, so the engine's listeners get None for one."""
    try:
        sql, arguments = _before(connection, None, sql, arguments, many)
        driver = connection.connection.dbapi_connection._connection  # type: ignore[union-attr]
        fetched, rowcount = await driver._execute(_run_sqlite, driver._conn, sql, arguments, many)
        connection.dispatch.after_cursor_execute(connection, None, sql, arguments, None, many)
        return Outcome(convert(fetched, None) if fetched else [], rowcount)
    except BaseException as error:
        await greenlet_spawn(_handle, connection, error, sql, arguments, None)  # raises
        raise


def run_in_greenlet(connection: Connection, sql: str) -> None:
    """`sql`, without parameters or rows (a BEGIN), from synchronous code SQLAlchemy runs in its greenlet, such
    as an engine's `begin` event. On aiosqlite one call in the driver's thread, with the engine's listeners,
    rather than `exec_driver_sql`: its execution context and three trips to the thread cost every SQLite
    transaction some 0.2 ms."""
    if connection.dialect.driver == "aiosqlite":
        await_(_execute_aiosqlite(connection, sql, (), False, _no_rows))
    else:
        connection.exec_driver_sql(sql)


def _no_rows(raw: Iterable[Row], column_types: Sequence[Any] | None) -> list[Row]:
    raise AssertionError(f"rows where none were expected: {list(raw)[:1]}")


def _run_sqlite(raw: sqlite3.Connection, sql: str, arguments: Any, many: bool) -> tuple[list[Row], int]:
    """In aiosqlite's thread: the statement's rows and row count, as the adapter's cursor reads them."""
    cursor = raw.executemany(sql, arguments) if many else raw.execute(sql, arguments)
    try:
        return (cursor.fetchall() if cursor.description else []), cursor.rowcount
    finally:
        cursor.close()


def _execute_dbapi(connection: Connection, sql: str, arguments: Any, many: bool, convert: Convert) -> Outcome:
    """Any other driver, through its DBAPI cursor (in a greenlet, as SQLAlchemy runs it)."""
    cursor = None
    try:
        cursor = connection.connection.cursor()
        sql, arguments = _before(connection, cursor, sql, arguments, many)
        if many:
            cursor.executemany(sql, arguments)
        else:
            cursor.execute(sql, arguments)
        return _outcome(connection, cursor, sql, arguments, many, convert)
    except BaseException as error:
        _handle(connection, error, sql, arguments, cursor)


def _before(connection: Connection, cursor: Any, sql: str, arguments: Any, many: bool) -> tuple[str, Any]:
    for before in connection.dispatch.before_cursor_execute:
        sql, arguments = before(connection, cursor, sql, arguments, None, many)
    return sql, arguments


def _outcome(connection: Connection, cursor: Any, sql: str, arguments: Any, many: bool, convert: Convert) -> Outcome:
    connection.dispatch.after_cursor_execute(connection, cursor, sql, arguments, None, many)
    description = cursor.description
    fetched = cursor.fetchall() if description else []
    rowcount = cursor.rowcount
    cursor.close()
    return Outcome(convert(fetched, _column_types(connection.dialect, description)) if fetched else [], rowcount)


def _handle(connection: Connection, error: BaseException, sql: str, arguments: Any, cursor: Any) -> NoReturn:
    """As SQLAlchemy handles an error of a statement: a driver error wrapped (with its statement) and a lost
    connection invalidated; anything else (a listener's refusal, a cancellation) raised as it is. Raised
    again first: SQLAlchemy's handler takes the error being handled from sys.exc_info()."""
    wrapped = isinstance(error, connection.dialect.loaded_dbapi.Error)
    try:
        raise error
    except BaseException:
        connection._handle_dbapi_exception(error, sql if wrapped else None, arguments, cursor, None)


def _column_types(dialect: Dialect, description: Sequence[Any] | None) -> Sequence[Any] | None:
    # asyncpg's converters depend on the column's type OID, which the description carries; SQLite's on nothing.
    if description is None or dialect.name == "sqlite":
        return None
    return [column[1] for column in description]
