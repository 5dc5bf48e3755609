"""A read statement compiled once per database, run without SQLAlchemy's work on every execution.

Through a session SQLAlchemy looks a statement up in its cache, binds its parameters and wraps each row on
every execution: about 300 µs a statement here, against 40 µs for the driver alone. The catalogue's reads
are the same few statements on every request, so a `Query` is compiled once per dialect; each execution
only puts the parameters in the compiled statement's order and converts the rows with the result
processors SQLAlchemy itself would apply (Decimal scales, UTC datetimes, booleans from SQLite's integers),
so the values are the same as through a session.

A list parameter (`values_in(column, "ids")`) is one parameter whatever its length, so a statement's text
never changes with it and the driver's statement cache holds it once: `IN (SELECT value FROM
json_each(?))` with a JSON array on SQLite, `= ANY($1::INTEGER[])` on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, cast

import orjson
from sqlalchemy import ARRAY, ColumnElement, String, bindparam
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql import ClauseElement, Select
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.dml import UpdateBase
from sqlalchemy.sql.visitors import InternalTraversal, iterate
from sqlalchemy.types import Boolean, TypeEngine

from datasources.reads import memo
from datasources.reads.records import check_record_columns

Row = Sequence[Any]
Processor = Callable[[Any], Any]


class ValuesIn(ColumnElement[bool]):
    """`column` is one of the values of the list parameter `name`."""

    inherit_cache = True
    type = Boolean()
    _is_implicitly_boolean = True  # a predicate already: not to be compared with 1 where a dialect has no booleans
    _traverse_internals = [("column", InternalTraversal.dp_clauseelement), ("name", InternalTraversal.dp_string)]

    def __init__(self, column: ColumnElement[Any], name: str) -> None:
        self.column = column
        self.name = name


def values_in(column: Any, name: str) -> ColumnElement[bool]:
    return ValuesIn(column.expression if hasattr(column, "expression") else column, name)


@compiles(ValuesIn, "sqlite")
def _values_in_sqlite(element: ValuesIn, compiler: SQLCompiler, **kw: Any) -> str:
    column = compiler.process(element.column, **kw)
    array = compiler.process(bindparam(element.name, type_=String()), **kw)
    return f"{column} IN (SELECT value FROM json_each({array}))"  # noqa: S608 (SQL of compiled parts)


@compiles(ValuesIn, "postgresql")
def _values_in_postgresql(element: ValuesIn, compiler: SQLCompiler, **kw: Any) -> str:
    parameter = bindparam(element.name, type_=ARRAY(element.column.type))
    return f"{compiler.process(element.column, **kw)} = ANY({compiler.process(parameter, **kw)})"


def list_value(dialect: Dialect, values: Iterable[Any]) -> Any:
    """A list parameter's value as the dialect's statement takes it."""
    items = list(values)
    return orjson.dumps(items).decode() if dialect.name == "sqlite" else items


class Compiled:
    """A statement for one dialect: its text, its parameters in order, its rows' converters. A read's `Query`,
    or a write transaction's `Statement` (datasources/transaction.py): a SELECT, or an INSERT, UPDATE or DELETE
    with or without RETURNING."""

    __slots__ = ("_converters", "binds", "defaults", "dialect", "lists", "names", "sql", "types")

    def __init__(self, statement: ClauseElement, dialect: Dialect, lists: frozenset[str]) -> None:
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect))
        if "POSTCOMPILE" in compiled.string:
            raise ValueError("a statement's lists are values_in(...) parameters: an expanding IN changes its text")
        if getattr(compiled, "insert_prefetch", None) or getattr(compiled, "update_prefetch", None):
            raise ValueError("a compiled statement has no Python-side defaults: give every such column")
        self.sql = compiled.string
        self.dialect = dialect
        self.lists = lists
        # The parameters in their positional order; the statement's own literals are bound parameters too.
        self.names: tuple[str, ...] = tuple(compiled.positiontup or ())
        parameters = {name: compiled.binds[name] for name in self.names}
        self.defaults: dict[str, Any] = {name: p.value for name, p in parameters.items() if not p.required}
        self.binds = tuple(_bind_processor(parameters[name].type, dialect) for name in self.names)
        self.types = tuple(column.type for column in _returned(statement))
        self._converters: dict[tuple[Any, ...] | None, Callable[[Iterable[Row]], list[Row]] | None] = {}

    def arguments(self, given: Mapping[str, Any]) -> tuple[Any, ...]:
        values = []
        for name, bind in zip(self.names, self.binds, strict=True):
            value = given[name] if name in given else self.defaults[name]
            if name in self.lists:
                value = list_value(self.dialect, value)
            values.append(value if bind is None else bind(value))
        return tuple(values)

    def rows(self, raw: Iterable[Row], column_types: Sequence[Any] | None = None) -> list[Row]:
        """The driver's rows as a session would give them. `column_types`: the driver's type of each column
        where the dialect's converters need it (asyncpg's type OIDs; SQLite has none)."""
        key = None if column_types is None else tuple(column_types)
        try:
            convert = self._converters[key]
        except KeyError:
            convert = self._converters[key] = self._converter_for(key)
        if convert is None:
            return raw if isinstance(raw, list) else list(raw)
        return convert(raw)

    def _converter_for(self, column_types: tuple[Any, ...] | None) -> Callable[[Iterable[Row]], list[Row]] | None:
        """A function converting the rows, generated for the columns that need converting (a page's queries
        convert some ten thousand values); None when none does."""
        kinds = column_types or (None,) * len(self.types)
        processors = [_result_processor(t, self.dialect, kind) for t, kind in zip(self.types, kinds, strict=True)]
        if not any(processors):
            return None
        namespace = {f"_p{index}": f for index, f in enumerate(processors) if f is not None}
        values = ", ".join(f"_p{i}(row[{i}])" if f is not None else f"row[{i}]" for i, f in enumerate(processors))
        code = compile(
            f"def convert(raw):\n    return [({values},) for row in raw]", f"<rows {self.sql[:40]!r}>", "exec"
        )
        exec(code, namespace)  # noqa: S102 (the text is made of column indices)
        convert: Callable[[Iterable[Row]], list[Row]] = namespace["convert"]
        return convert


# A run of a query is small, indexed lookups proportional to a page, when it asks for no more keys or rows
# than this: a full page of GraphQL's default size. Measured on SQLite (20,000 articles, 8 connections), a
# 1000-article page's lookups in a reading thread cost 75-100 ms of CPU a request, the thread and the event
# loop handing the GIL to each other for every row, against ~15 ms on the loop's thread; the loop is held
# a few milliseconds a statement, less than building the page's objects holds it.
SMALL = 1000
LIMIT = "limit"  # the parameter that bounds the rows of a query, by convention


class Query:
    """A SELECT to be run by any `Reads`: through a transaction's session, or compiled once and run by the
    driver. Named parameters are `bindparam(name)`s and `values_in` lists. `scan`: its cost grows with the
    table, whatever its parameters (a search, a whole list). `ranged`: it reads a range of an index whose
    width its values decide (the changes after a snapshot): its best plan depends on them. `record`: the rows
    are read into it by position after `lead` columns (records.py); checked here, once."""

    def __init__(
        self,
        statement: Select[*tuple[Any, ...]],
        *,
        scan: bool = False,
        ranged: bool = False,
        record: type | None = None,
        lead: int = 0,
    ) -> None:
        if record is not None:
            check_record_columns(statement, record, lead)
        self.statement = statement
        self.scan = scan
        self.ranged = ranged
        self.record = record
        self.lead = lead
        self.lists = frozenset(element.name for element in iterate(statement) if isinstance(element, ValuesIn))
        self._compiled: dict[str, Compiled] = {}

    def small(self, params: Mapping[str, Any]) -> bool:
        """Whether a run with `params` is indexed lookups of a page at most: no scan, no list or `limit` past
        SMALL."""
        if self.scan or params.get(LIMIT, 0) > SMALL:
            return False
        return all(len(params[name]) <= SMALL for name in self.lists if name in params)

    def planned_once(self) -> bool:
        """Whether one plan suits every run: no scan (Query.scan) and no range its values size (Query.ranged),
        so lookups by keys and pages walked along an index of their order, whose best plan does not depend on
        the values. PostgreSQL otherwise plans such a statement anew on every run: a list parameter (`=
        ANY($1)`) or a `LIMIT $n` is estimated worse in a generic plan than in a run's own, though the plan is
        the same. A generic plan of the change feed walked every article's position in order (5 ms at 20,000
        articles, against 0.04 planned for its snapshot)."""
        return not (self.scan or self.ranged)

    @property
    def plan_mode(self) -> str:
        """PostgreSQL's `plan_cache_mode` for it: one generic plan (planned_once); a plan for every run where the
        width of its range decides the plan (a generic one walked the whole index); else PostgreSQL's own
        choice, which keeps a generic plan after five runs when it looks no costlier (a search's page plans in
        about a millisecond, about what it runs)."""
        if self.planned_once():
            return "force_generic_plan"
        return "force_custom_plan" if self.ranged else "auto"

    def compiled(self, dialect: Dialect) -> Compiled:
        found = self._compiled.get(dialect.name)
        if found is None:
            found = self._compiled[dialect.name] = Compiled(self.statement, dialect, self.lists)
        return found

    def parameters(self, dialect: Dialect, given: Mapping[str, Any]) -> dict[str, Any]:
        """The parameters as a session executes the statement: lists in the dialect's form."""
        return {name: list_value(dialect, value) if name in self.lists else value for name, value in given.items()}


def _returned(statement: ClauseElement) -> Sequence[Any]:
    """The columns a statement hands back: a SELECT's, an INSERT's, UPDATE's or DELETE's RETURNING (none)."""
    if isinstance(statement, Select):
        return list(statement.selected_columns)
    if isinstance(statement, UpdateBase):
        return list(statement.exported_columns)
    raise TypeError(f"{type(statement).__name__} is not a statement to compile")


def _result_processor(type_: TypeEngine[Any], dialect: Dialect, column_type: Any) -> Processor | None:
    # The dialect's own implementation of the type, as SQLAlchemy's execution uses it (e.g. SQLite's
    # DATETIME, which parses the stored text; asyncpg's NUMERIC, which depends on the column's type).
    processor: Processor | None = type_.dialect_impl(dialect).result_processor(dialect, column_type)
    if processor is not None and memo.memoisable(type_):
        return memo.memoised(processor)
    return processor


def _bind_processor(type_: TypeEngine[Any], dialect: Dialect) -> Processor | None:
    processor: Processor | None = type_.dialect_impl(dialect).bind_processor(dialect)
    return processor
