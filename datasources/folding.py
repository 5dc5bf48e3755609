"""`fold(x)`: text trimmed and lower-cased the same way on PostgreSQL and SQLite; `folds_to(x, value)`: whether
`fold(x)` is `value` folded.

SQLite's own lower() only knows ASCII (Müller would not match MÜLLER), so on SQLite a Python function
registered per connection (database.py) does the folding; PostgreSQL's lower() is Unicode-aware.

A searched value is folded where the stored ones are: on PostgreSQL by the database's own lower() in the
statement, on SQLite by the gateway before it (the function the statement would call). PostgreSQL's lower()
follows the database's ctype and provider (libc makes U+0130 an "i", ICU an "i" and a combining dot), which
the gateway cannot know: folded in Python, a value searched exactly as it is stored could miss it there.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import String, and_, func, literal
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import InstrumentedAttribute
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.functions import GenericFunction
from sqlalchemy.sql.visitors import InternalTraversal

SQLITE_FUNCTION = "gateway_fold"
TextColumn = ColumnElement[str] | InstrumentedAttribute[str]  # a text column, of a table or a model


class fold(GenericFunction[str]):
    type = String()
    inherit_cache = True


def fold_text(value: str | None) -> str | None:
    # Python's lower() differs from a letter-by-letter one, as PostgreSQL's is, in two places. U+0130 becomes "i"
    # and a combining dot: here "i", so that `istanbul` finds İSTANBUL (the search's index holds it as "i" too).
    # A word's last Σ becomes a final sigma: here, as every final sigma (U+03C2), a plain one, so that a part of
    # a word ending in Σ finds the word.
    if value is None:
        return None
    return value.strip().replace("\u0130", "i").lower().replace("\u03c2", "\u03c3")


@compiles(fold, "sqlite")
def _fold_sqlite(element: fold, compiler: SQLCompiler, **kw: Any) -> str:
    return f"{SQLITE_FUNCTION}({compiler.process(element.clauses, **kw)})"


@compiles(fold)
def _fold_default(element: fold, compiler: SQLCompiler, **kw: Any) -> str:
    # trim(x) as PostgreSQL itself spells it (and shows an index on it): the models' indexes on fold() then
    # compare equal to the migrated database's.
    return f"lower(TRIM(BOTH FROM {compiler.process(element.clauses, **kw)}))"


# The ASCII characters a non-ASCII one lower-cases to (U+0130 to "i" and U+0307, U+212A KELVIN SIGN to "k"): where
# `fold` gives one of them, the stored value may hold a character SQLite's LIKE does not fold. A test checks the
# set against this Python's Unicode tables.
ASCII_FROM_OTHERS = frozenset("ik")


def like_pattern(folded: str) -> str:
    """A LIKE pattern (escape: backslash) that every text folding to `folded` matches under SQLite's LIKE, which
    ignores the case of ASCII letters only: the ASCII characters of `folded` in order, with % for everything
    else, for the ends and for what the folding trims."""
    parts = ["%"]
    for char in folded:
        if char.isascii() and char not in ASCII_FROM_OTHERS:
            parts.append(f"\\{char}" if char in "%_\\" else char)
        elif parts[-1] != "%":
            parts.append("%")
    if parts[-1] != "%":
        parts.append("%")
    return "".join(parts)


def contains_pattern(folded: str) -> str:
    """The LIKE pattern (escape: backslash) of the texts containing `folded`; on PostgreSQL, folded_value makes
    the same in the statement."""
    escaped = folded.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


class folded_value(ColumnElement[str]):
    """A searched value folded as the database folds the stored ones (see the module's docstring): `value` folded
    by `fold` in the statement, except on SQLite, which takes `folded`, fold_text's result, as it is. With
    `is_pattern`, both are LIKE patterns: `folded` is `%text%` (escape backslash) and the statement makes that of
    `value`'s folding."""

    inherit_cache = True
    type = String()
    _traverse_internals = [
        ("value", InternalTraversal.dp_clauseelement),
        ("folded", InternalTraversal.dp_clauseelement),
        ("is_pattern", InternalTraversal.dp_boolean),
    ]

    def __init__(self, value: ColumnElement[str], folded: ColumnElement[str], *, is_pattern: bool = False) -> None:
        self.value = value
        self.folded = folded
        self.is_pattern = is_pattern


@compiles(folded_value, "sqlite")
def _folded_value_sqlite(element: folded_value, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.folded, **kw)


@compiles(folded_value)
def _folded_value_default(element: folded_value, compiler: SQLCompiler, **kw: Any) -> str:
    folded: ColumnElement[str] = fold(element.value)
    if not element.is_pattern:
        # As an expression of a constant the planner folds it, and estimates the rows from the value (a lookup
        # in an index on fold(column): the index condition makes it once).
        return compiler.process(folded, **kw)
    for char in "\\%_":  # as contains_pattern: the backslash first, it escapes the others
        folded = func.replace(folded, char, f"\\{char}")
    # A subquery, made once per statement: a generic plan would make an expression again on every row a
    # search compares (measured alike either way).
    return f"(SELECT {compiler.process(literal('%') + folded + literal('%'), **kw)})"


class _Prefiltered(ColumnElement[bool]):
    """`matches`, a comparison of folded values; on SQLite behind `prefilter`, a LIKE that lets through every
    row `matches` could accept. SQLite runs the LIKE in C and calls the gateway's folding, Python, only on the
    rows it lets through: a search on an unindexed column still reads every row, at a fraction of the cost."""

    inherit_cache = True
    _traverse_internals = [
        ("matches", InternalTraversal.dp_clauseelement),
        ("prefilter", InternalTraversal.dp_clauseelement),
    ]
    matches: ColumnElement[bool]
    prefilter: ColumnElement[bool]


@compiles(_Prefiltered, "sqlite")
def _prefiltered_sqlite(element: _Prefiltered, compiler: SQLCompiler, **kw: Any) -> str:
    return f"({compiler.process(and_(element.prefilter, element.matches), **kw)})"


@compiles(_Prefiltered)
def _prefiltered_default(element: _Prefiltered, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.matches, **kw)


class folds_to(_Prefiltered):
    """`fold(column) = fold_text(value)`."""

    inherit_cache = True

    def __init__(self, column: TextColumn, value: str) -> None:
        folded = fold_text(value)
        assert folded is not None
        self.matches = fold(column) == folded_value(literal(value.strip()), literal(folded))
        self.prefilter = column.like(like_pattern(folded), escape="\\")


class contains_folded(_Prefiltered):
    """`fold(column)` contains a folded text: `pattern` is its LIKE pattern (`%text%`, escape backslash) and
    `prefilter` its `like_pattern`. SQLite's lower() alone would miss every capital beyond ASCII (a search for
    ölfilter, ÖLFILTER)."""

    inherit_cache = True

    def __init__(self, column: TextColumn, pattern: ColumnElement[str], prefilter: ColumnElement[str]) -> None:
        self.matches = fold(column).like(pattern, escape="\\")
        self.prefilter = column.like(prefilter, escape="\\")
