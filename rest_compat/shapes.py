"""REST resources described as data: REST field -> GraphQL field, nested for lists.

From a shape and the request's `fields` the GraphQL selection is built, so nothing unrequested is
loaded, and the same shape renames the result back into the specification's field names.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeAlias

from rest_compat.errors import ApiError
from rest_compat.reshaping import FIELD, GROUP, LINKS, Reshape, Step, reshaper

Link: TypeAlias = dict[str, str]


@dataclass(frozen=True)
class Field:
    source: str  # GraphQL field name
    convert: Callable[[Any], Any] | None = None
    omit_null: bool = False  # the specification leaves the field out instead of sending null
    shape: Shape | None = None  # for objects and lists of objects
    arguments: str = ""  # GraphQL arguments of the field, e.g. "limit: $order"
    null_record: bool = False  # null is sent as the record with every field null (addresses of documents)


@dataclass(frozen=True)
class Links:
    """The REST-only `links` list, built from GraphQL fields that are fetched for it."""

    needs: tuple[str, ...]
    build: Callable[[Mapping[str, Any], str], list[Link]]  # (GraphQL object, base URL) -> links


@dataclass(frozen=True)
class Group:
    """A REST object that gathers fields of the same GraphQL object (GrundDaten, Adressen)."""

    shape: Shape


Entry: TypeAlias = Field | Links | Group


@dataclass(frozen=True)
class Shape:
    fields: Mapping[str, Entry]
    _selection: str = field(default="", compare=False)

    def extend(self, **more: Entry) -> Shape:
        return Shape({**self.fields, **more})

    def select(self, paths: Collection[str] | None, *, parameter: str = "fields") -> Shape:
        """The shape restricted to `paths` (REST names, dotted for nested ones: Preis.PreisList)."""
        if not paths:
            return self
        wanted: dict[str, list[str]] = {}
        for path in paths:
            head, _, rest = path.partition(".")
            entry = self.fields.get(head)
            if entry is None or (rest and not (isinstance(entry, Field) and entry.shape)):
                raise ApiError.invalid(f"unknown field {path!r}", field=parameter, value=path)
            wanted.setdefault(head, [])
            if rest:
                wanted[head].append(rest)
        selected: dict[str, Entry] = {}
        for name, entry in self.fields.items():  # keep the specification's order
            if name in wanted:
                sub = wanted[name]
                if isinstance(entry, Field) and entry.shape is not None and sub:
                    entry = dataclasses.replace(entry, shape=entry.shape.select(sub))
                selected[name] = entry
        return Shape(selected)

    def selection(self) -> str:
        """The GraphQL selection set, `{ a b { c } }`."""
        return "{ " + " ".join(self._parts().values()) + " }"

    def _parts(self) -> dict[str, str]:
        parts: dict[str, str] = {}
        for entry in self.fields.values():
            if isinstance(entry, Group):
                parts.update(entry.shape._parts())
            elif isinstance(entry, Links):
                parts.update((need, need) for need in entry.needs)
            elif entry.shape is not None:
                arguments = f"({entry.arguments})" if entry.arguments else ""
                parts[entry.source] = f"{entry.source}{arguments} {entry.shape.selection()}"
            else:
                parts.setdefault(entry.source, entry.source)
        return parts

    def reshape(self, obj: Mapping[str, Any], base_url: str) -> dict[str, Any]:
        """The GraphQL object `obj` as the specification's object; links start with `base_url`."""
        return self._reshape(obj, base_url)

    @cached_property
    def _reshape(self) -> Reshape:
        # Generated once per shape (reshaping.py): reshape runs for every object of a page.
        steps: list[Step] = []
        for name, entry in self.fields.items():
            if isinstance(entry, Links):
                steps.append(Step(name, LINKS, "", entry.build, False, None, None))
            elif isinstance(entry, Group):
                steps.append(Step(name, GROUP, "", None, False, entry.shape._reshape, None))
            else:
                nested = entry.shape
                record = tuple(nested.fields) if entry.null_record and nested is not None else None
                shape = None if nested is None else nested._reshape
                steps.append(Step(name, FIELD, entry.source, entry.convert, entry.omit_null, shape, record))
        return reshaper(steps)


def yes_no(value: bool) -> str:
    """The ERP's J/N flags."""
    return "J" if value else "N"
