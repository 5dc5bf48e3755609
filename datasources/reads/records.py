"""Records read from rows by position, with the statement's columns named and ordered by the record's fields.

The reads hand rows as plain tuples (query.py: a page makes thousands of records, and `Record(*row)` is the
cheapest way to make one), so a record takes its values by position. A column added in the wrong place
would swap two fields silently: mypy, and every test whose values happen to be alike, would pass. So a
statement that is read into a record gets its columns from `record_columns`, which puts them in the record's
order and labels each with its field's name, and `Query(..., record=...)` checks, once when it is made, that
the statement's columns (after `lead` columns of its own, such as the article id a batch groups by) are the
record's fields in its order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, Label, Select


def field_names(record: type) -> tuple[str, ...]:
    """A named tuple's or a dataclass's fields, in order."""
    if dataclasses.is_dataclass(record):
        return tuple(field.name for field in dataclasses.fields(record))
    names: tuple[str, ...] = getattr(record, "_fields", ())
    if not names:
        raise TypeError(f"{record.__name__} is neither a named tuple nor a dataclass")
    return names


def record_columns(record: type, /, **columns: ColumnElement[Any] | Any) -> tuple[Label[Any], ...]:
    """The columns of `record`'s fields, given by name in any order, in the record's order and labelled with
    their field's name. Every field must be given, and nothing else."""
    names = field_names(record)
    missing, unknown = set(names) - set(columns), set(columns) - set(names)
    if missing or unknown:
        raise TypeError(f"columns of {record.__name__}: missing {sorted(missing)}, unknown {sorted(unknown)}")
    return tuple(columns[name].label(name) for name in names)


def check_record_columns(statement: Select[Any], record: type, lead: int = 0) -> None:
    """Raise unless the statement's columns after the first `lead` are `record`'s fields, in its order."""
    names = field_names(record)
    keys: Sequence[str] = list(statement.selected_columns.keys())[lead : lead + len(names)]
    if tuple(keys) != names:
        raise ValueError(
            f"{record.__name__} is read by position: its statement's columns {list(keys)} (after {lead}) must be "
            f"its fields {list(names)}, in that order (make them with record_columns)"
        )
