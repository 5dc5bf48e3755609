"""`fold(x)`: text trimmed and lower-cased the same way on PostgreSQL and SQLite.

SQLite's own lower() only knows ASCII (Müller would not match MÜLLER), so on SQLite a Python function
registered per connection (database.py) does the folding; PostgreSQL's lower() is Unicode-aware.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import String
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import GenericFunction

SQLITE_FUNCTION = "gateway_fold"


class fold(GenericFunction[str]):
    type = String()
    inherit_cache = True


def fold_text(value: str | None) -> str | None:
    return None if value is None else value.strip().lower()


@compiles(fold, "sqlite")
def _fold_sqlite(element: fold, compiler: SQLCompiler, **kw: Any) -> str:
    return f"{SQLITE_FUNCTION}({compiler.process(element.clauses, **kw)})"


@compiles(fold)
def _fold_default(element: fold, compiler: SQLCompiler, **kw: Any) -> str:
    # trim(x) as PostgreSQL itself spells it (and shows an index on it): the models' indexes on fold() then
    # compare equal to the migrated database's.
    return f"lower(TRIM(BOTH FROM {compiler.process(element.clauses, **kw)}))"
