"""REST resources described as data: REST field -> GraphQL field, nested for lists.

From a shape and the request's `fields` the GraphQL selection is built, so nothing unrequested is
loaded, and the same shape makes the result the specification's object: asked for by REST names (GraphQL
aliases), the answer is finished in place; a shape with a Group, which no alias expresses, is asked for by
GraphQL names and read into new objects (reshaping.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any, TypeAlias

from rest_compat.errors import ApiError
from rest_compat.reshaping import FIELD, GROUP, LINKS, Fixup, Reshape, Step, fixer, reshaper

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

    needs: tuple[str, ...]  # GraphQL fields
    build: Callable[..., list[Link]]  # (base URL, the needs' values in their order) -> links


@dataclass(frozen=True)
class Group:
    """A REST object that gathers fields of the same GraphQL object (GrundDaten, Adressen)."""

    shape: Shape


Entry: TypeAlias = Field | Links | Group


@dataclass(frozen=True)
class Shape:
    fields: Mapping[str, Entry]

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
        """The GraphQL selection set, `{ a b { c } }`: by REST names (aliases) where the answer is made in place."""
        parts = self._aliased_parts() if self._in_place else self._parts().values()
        return "{ " + " ".join(parts) + " }"

    def reshape(self, obj: Any, base_url: str) -> dict[str, Any]:
        """The GraphQL object `obj`, asked for by `selection()`, as the specification's object; links start
        with `base_url`. Made in place where the shape allows it: `obj` is then the object returned."""
        if not self._in_place:
            return self._rebuild(obj, base_url)
        fixup = self._fixup
        return obj if fixup is None else fixup(obj, base_url)

    @cached_property
    def _in_place(self) -> bool:
        """Whether the GraphQL answer can be asked for by REST names: not when a Group gathers fields into an
        object of its own, here or in a nested shape."""
        return all(
            not isinstance(entry, Group)
            and (not isinstance(entry, Field) or entry.shape is None or entry.shape._in_place)
            for entry in self.fields.values()
        )

    # In place: each REST field asked for by its REST name, `links` holding its place.

    def _aliased_parts(self) -> list[str]:
        parts: list[str] = []
        for name, entry in self.fields.items():
            if isinstance(entry, Links):
                parts.append(f"{name}: {entry.needs[0]}")  # any cheap value: the links replace it
            elif isinstance(entry, Field):
                nested = "" if entry.shape is None else f" {entry.shape.selection()}"
                arguments = f"({entry.arguments})" if entry.arguments else ""
                parts.append(f"{name}: {entry.source}{arguments}{nested}")
        return parts + [f"{key}: {need}" for key, need in self._hidden.items()]

    def _keys(self, links: Links) -> tuple[str, ...]:
        """Where the links' needs are in the answer: a REST field that is the GraphQL field as it is, else
        a hidden key (`_number`) removed once the links are made."""
        return tuple(self._plain.get(need, f"_{need}") for need in links.needs)

    @cached_property
    def _plain(self) -> dict[str, str]:
        """GraphQL field -> the REST field that holds its value as it is."""
        return {
            entry.source: name
            for name, entry in self.fields.items()
            if isinstance(entry, Field) and entry.shape is None and entry.convert is None and not entry.arguments
        }

    @cached_property
    def _hidden(self) -> dict[str, str]:
        """Hidden key -> the GraphQL field it holds for the links."""
        hidden: dict[str, str] = {}
        for entry in self.fields.values():
            if isinstance(entry, Links):
                pairs = zip(self._keys(entry), entry.needs, strict=True)
                hidden.update((key, need) for key, need in pairs if key not in self.fields)
        return hidden

    @cached_property
    def _fixup(self) -> Fixup | None:
        # Generated once per shape (reshaping.py): reshape runs for every object of a page.
        steps: list[Step] = []
        for name, entry in self.fields.items():
            if isinstance(entry, Links):
                steps.append(Step(name, LINKS, self._keys(entry), entry.build, False, None, None))
            elif isinstance(entry, Field):
                nested = None if entry.shape is None else entry.shape._fixup  # in place too, or nothing to fix
                steps.append(self._field_step(name, entry, name, nested))
        return fixer(steps, list(self._hidden))

    # Rebuilt: the GraphQL answer by GraphQL names, read into new dicts.

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

    @cached_property
    def _rebuild(self) -> Reshape:
        steps: list[Step] = []
        for name, entry in self.fields.items():
            if isinstance(entry, Links):
                steps.append(Step(name, LINKS, entry.needs, entry.build, False, None, None))
            elif isinstance(entry, Group):
                steps.append(Step(name, GROUP, (), None, False, entry.shape._rebuild, None))
            else:
                steps.append(
                    self._field_step(name, entry, entry.source, None if entry.shape is None else entry.shape.reshape)
                )
        return reshaper(steps)

    @staticmethod
    def _field_step(name: str, entry: Field, key: str, shape: Callable[[Any, str], dict[str, Any]] | None) -> Step:
        record = tuple(entry.shape.fields) if entry.null_record and entry.shape is not None else None
        return Step(name, FIELD, (key,), entry.convert, entry.omit_null, shape, record)


def yes_no(value: bool) -> str:
    """The ERP's J/N flags."""
    return "J" if value else "N"
