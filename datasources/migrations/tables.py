"""What a migration uses to change a table that triggers depend on.

SQLite cannot alter most of a table in place: alembic's batch mode copies it into a new table, drops the old
one and renames the copy. Dropping it drops its own triggers, and the rename then fails on every other
table's trigger whose body names it ("error in trigger article_sort_key_tax_code_insert: no such table:
main.article"). PostgreSQL alters in place, but refuses to change the type of a column a trigger names
(`UPDATE OF colour`). The sort keys and the listing (0007, 0010) and the search index (0009) keep such
triggers on `article`, `article_attribute`, `article_designation` and `tax_code`.

`rebuilt_table` drops the triggers that depend on the table (SQLite: every trigger whose definition names
it; PostgreSQL: the table's own), lets the batch alter it, and makes them again from their stored
definitions. What a trigger copies (a column of `article` copied into `article_listing`) the migration
changes itself, in both tables.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from alembic import op
from alembic.operations import BatchOperations
from sqlalchemy import text


@contextmanager
def rebuilt_table(table: str, **batch: Any) -> Iterator[BatchOperations]:
    """`op.batch_alter_table(table, **batch)`, with the triggers that depend on `table` dropped before and
    made again after."""
    postgresql = op.get_bind().dialect.name == "postgresql"
    dependent = triggers_on(table) if postgresql else triggers_naming(table)
    for name, _ in dependent:
        op.execute(f'DROP TRIGGER "{name}" ON "{table}"' if postgresql else f'DROP TRIGGER "{name}"')
    with op.batch_alter_table(table, **batch) as operations:
        yield operations
    for _, definition in dependent:
        op.execute(definition)


def triggers_naming(table: str) -> list[tuple[str, str]]:
    """SQLite: (name, CREATE statement) of the triggers whose definition names `table`: its own and those
    of other tables whose bodies read or write it."""
    named = re.compile(rf'(?<![\w"]){re.escape(table)}(?![\w"])|"{re.escape(table)}"', re.IGNORECASE)
    rows = op.get_bind().execute(text("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"))
    return [(name, sql) for name, sql in rows if named.search(sql)]


def triggers_on(table: str) -> list[tuple[str, str]]:
    """PostgreSQL: (name, CREATE statement) of the table's own triggers (their functions stay)."""
    rows = op.get_bind().execute(
        text(
            "SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = CAST(:table AS regclass) "
            "AND NOT tgisinternal ORDER BY tgname"
        ),
        {"table": table},
    )
    return [(name, definition) for name, definition in rows]
