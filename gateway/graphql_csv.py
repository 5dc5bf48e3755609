"""CSV answers of /graphql: the first list field of a result as RFC 4180 CSV, for spreadsheets.

A client asking for `text/csv` (Accept, ranked above the JSON types) gets the first list in the result's
data (depth-first, in the order of the document), one row per item. The header row holds the dotted path
of every leaf the items have (`prices.0.amount`): the items' shapes are merged first, so an item without
a value leaves its cell empty. A list inside an item is spread by index, up to MAX_INDEX entries. Values are
written as JSON writes them (numbers, `true`/`false`); null is an empty cell. The rows are encoded as they are
streamed, a chunk at a time; `bom=1` (a parameter of the Accept type or of the URL) puts the byte-order
mark first, which Excel needs to read UTF-8 (umlauts).

A paged catalogue list asked for whole (`articles`, `articleNumbers` without limit and offset) is read page by
page instead, its columns read from the selection (graphql_csv_pages.py).

Anything that is not a plain list of data (an error, no list at all) is answered as GraphQL JSON: a request
error 400 as GraphQL over HTTP says, anything else 406 Not Acceptable, which it allows.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import orjson
from starlette.requests import Request

CSV = "text/csv"
MEDIA_TYPE = "text/csv; charset=utf-8; header=present"
MAX_INDEX = 20  # entries of a nested list spread into columns (prices.0 ... prices.19)
BOM = "\ufeff"
_ROWS_PER_CHUNK = 200
_JSON_TYPES = ("application/json", "application/graphql-response+json")

# A merged shape: a dict per object (its fields in order), a list per list (a shape per index), None a leaf.
Shape = dict[str, Any] | list[Any] | None


@dataclass(frozen=True)
class CsvRequest:
    bom: bool


def requested(request: Request) -> CsvRequest | None:
    """A CSV request, when the Accept header ranks text/csv above every JSON type it lists."""
    accept = request.headers.get("accept", "")
    if CSV not in accept.lower():
        return None  # every JSON request: nothing more to parse on /graphql's path
    csv_rank, json_rank, bom = -1.0, 0.0, request.query_params.get("bom") == "1"
    for part in accept.split(","):
        media, *parameters = (piece.strip() for piece in part.split(";"))
        values = dict(_parameter(p) for p in parameters if "=" in p)
        quality = _quality(values.get("q"))
        if media.lower() == CSV:
            csv_rank, bom = quality, bom or values.get("bom") == "1"
        elif media.lower() in _JSON_TYPES:
            json_rank = max(json_rank, quality)
    return CsvRequest(bom) if csv_rank > 0 and csv_rank > json_rank else None


def _parameter(text: str) -> tuple[str, str]:
    name, _, value = text.partition("=")
    return name.strip().lower(), value.strip().strip('"')


def _quality(value: str | None) -> float:
    try:
        return 1.0 if value is None else float(value)
    except ValueError:
        return 0.0


def first_list(data: Any, name: str = "") -> tuple[str, list[Any]] | None:
    """The first list in `data`, depth-first in the order of its fields, with its field's name."""
    if isinstance(data, list):
        return name, data
    if isinstance(data, dict):
        for key, value in data.items():
            found = first_list(value, key)
            if found is not None:
                return found
    return None


def merge(shape: Shape, value: Any) -> Shape:
    if isinstance(value, dict):
        fields = shape if isinstance(shape, dict) else {}
        for key, item in value.items():
            fields[key] = merge(fields.get(key), item)
        return fields
    if isinstance(value, list):
        entries = shape if isinstance(shape, list) else []
        for index, item in enumerate(value[:MAX_INDEX]):
            if index < len(entries):
                entries[index] = merge(entries[index], item)
            else:
                entries.append(merge(None, item))
        return entries
    return shape  # a leaf, or null where other items have more


def paths(shape: Shape, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    if isinstance(shape, dict):
        return [path for key, sub in shape.items() for path in paths(sub, (*prefix, key))]
    if isinstance(shape, list):
        return [path for index, sub in enumerate(shape) for path in paths(sub, (*prefix, str(index)))]
    return [prefix]


def leaves(item: Any) -> dict[tuple[str, ...], str]:
    """The item's cells by column path: its leaves, lists spread by index up to MAX_INDEX. Walked once per
    item, whatever the number of columns (most of a whole list's spread columns are empty)."""
    found: dict[tuple[str, ...], str] = {}
    _leaves(item, (), found)
    return found


def _leaves(value: Any, path: tuple[str, ...], found: dict[tuple[str, ...], str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _leaves(item, (*path, key), found)
    elif isinstance(value, list):
        for index, item in enumerate(value[:MAX_INDEX]):
            _leaves(item, (*path, str(index)), found)
    elif value is not None:
        # Numbers and booleans as the JSON answer writes them.
        found[path] = value if isinstance(value, str) else orjson.dumps(value).decode()


def cells(columns: Sequence[tuple[str, ...]], items: Iterable[Any]) -> Iterator[list[str]]:
    """A row per item: its value in each column, "" for none (CSV has no null)."""
    for item in items:
        found = leaves(item)
        yield [found.get(path, "") for path in columns]


def rows(name: str, items: list[Any]) -> Iterator[list[str]]:
    """The header row, then a row per item."""
    shape: Shape = None
    for item in items:
        shape = merge(shape, item)
    columns = paths(shape)
    yield [".".join(path) or name for path in columns]
    yield from cells(columns, items)


def encoded(name: str, items: list[Any], bom: bool) -> Iterator[bytes]:
    """The CSV text in UTF-8, a chunk of rows at a time."""
    return encoded_rows(rows(name, items), bom)


def encoded_rows(rows: Iterable[list[str]], bom: bool) -> Iterator[bytes]:
    """`rows` as CSV text in UTF-8, a chunk of rows at a time."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")  # RFC 4180: CRLF, fields quoted where they need it
    if bom:
        buffer.write(BOM)
    for count, row in enumerate(rows, start=1):
        writer.writerow(row)
        if count % _ROWS_PER_CHUNK == 0:
            yield buffer.getvalue().encode()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue().encode()
