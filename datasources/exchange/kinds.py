"""The kinds of value an article record holds, each declared once: its JSON Schema and its check.

A check turns a value parsed from JSON into the record's Python form (Decimal, aware datetime, bytes)
or adds a Problem naming the field and what was expected; the schema (`gateway export --schema`) is
made from the same declarations, so the two cannot drift apart."""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple, Protocol

JsonSchema = dict[str, Any]

# An image's file beside the record file: {"Pfad": "media/A-1.png"}, or inline: {"base64": "..."}.
PATH, INLINE = "Pfad", "base64"


class Problem(NamedTuple):
    field: str  # dotted path in the record: Preis.STD.CHF[0].PreisList
    expected: str


class Kind(Protocol):
    def schema(self) -> JsonSchema: ...

    def check(self, value: Any, path: str, problems: list[Problem]) -> Any: ...


def _nullable(schema: JsonSchema, nullable: bool) -> JsonSchema:
    return {"anyOf": [schema, {"type": "null"}]} if nullable else schema


@dataclass(frozen=True)
class Text:
    max_length: int
    nullable: bool = True
    pattern: str | None = None
    choices: tuple[str, ...] = ()

    def schema(self) -> JsonSchema:
        schema: JsonSchema = {"type": "string", "maxLength": self.max_length}
        if self.pattern:
            schema["pattern"] = self.pattern
        if self.choices:
            schema["enum"] = list(self.choices)
        return _nullable(schema, self.nullable)

    def check(self, value: Any, path: str, problems: list[Problem]) -> Any:
        if value is None and self.nullable:
            return None
        if not isinstance(value, str) or len(value) > self.max_length:
            problems.append(Problem(path, self.describe()))
            return None
        if (self.pattern and not re.fullmatch(self.pattern, value)) or (self.choices and value not in self.choices):
            problems.append(Problem(path, self.describe()))
        return value

    def describe(self) -> str:
        if self.choices:
            what = " or ".join(repr(choice) for choice in self.choices)
        else:
            what = f"a text of at most {self.max_length} characters"
            if self.pattern:
                what += f" matching {self.pattern}"
        return f"{what}{' or null' if self.nullable else ''}"


@dataclass(frozen=True)
class Number:
    """An exact decimal (money, quantities): a JSON number, or a text holding one (CSV cells)."""

    nullable: bool = True
    minimum: Decimal | None = None

    def schema(self) -> JsonSchema:
        schema: JsonSchema = {"type": "number"}
        if self.minimum is not None:
            schema["minimum"] = float(self.minimum)
        return _nullable(schema, self.nullable)

    def check(self, value: Any, path: str, problems: list[Problem]) -> Any:
        if value is None and self.nullable:
            return None
        number = _decimal(value)
        if number is None or (self.minimum is not None and number < self.minimum):
            bound = "" if self.minimum is None else f" of at least {self.minimum}"
            problems.append(Problem(path, f"a number{bound}{' or null' if self.nullable else ''}"))
        return number


def _decimal(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return None
    return number if number.is_finite() and abs(number) < Decimal("1e10") else None


@dataclass(frozen=True)
class Integer:
    nullable: bool = False

    def schema(self) -> JsonSchema:
        return _nullable({"type": "integer"}, self.nullable)

    def check(self, value: Any, path: str, problems: list[Problem]) -> Any:
        if value is None and self.nullable:
            return None
        if isinstance(value, str) and value.strip().lstrip("-").isdigit():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or abs(value) >= 2**31:
            problems.append(Problem(path, "a whole number"))
            return None
        return value


@dataclass(frozen=True)
class Flag:
    def schema(self) -> JsonSchema:
        return {"type": "boolean"}

    def check(self, value: Any, path: str, problems: list[Problem]) -> Any:
        if not isinstance(value, bool):
            problems.append(Problem(path, "true or false"))
        return value


@dataclass(frozen=True)
class Timestamp:
    """ISO 8601 in UTC, as the REST answers write it: 2025-03-01T12:00:00Z."""

    def schema(self) -> JsonSchema:
        return {"type": "string", "format": "date-time", "pattern": "(Z|[+-]00:?00)$"}

    def check(self, value: Any, path: str, problems: list[Problem]) -> Any:
        try:
            moment = dt.datetime.fromisoformat(value) if isinstance(value, str) else None
        except ValueError:
            moment = None
        if moment is None or moment.utcoffset() != dt.timedelta(0):
            problems.append(Problem(path, "a UTC time in ISO 8601 such as 2025-03-01T12:00:00Z"))
            return None
        return moment.astimezone(dt.UTC)


@dataclass(frozen=True)
class Object:
    fields: Mapping[str, Kind]
    required: tuple[str, ...] = ()
    description: str = ""

    def schema(self) -> JsonSchema:
        schema: JsonSchema = {
            "type": "object",
            "properties": {name: kind.schema() for name, kind in self.fields.items()},
            "additionalProperties": False,
        }
        if self.required:
            schema["required"] = list(self.required)
        if self.description:
            schema["description"] = self.description
        return schema

    def check(self, value: Any, path: str, problems: list[Problem]) -> Any:
        if not isinstance(value, dict):
            problems.append(Problem(path or "(record)", "an object"))
            return None
        checked: dict[str, Any] = {}
        for name in self.required:
            if name not in value:
                problems.append(Problem(_join(path, name), "a value (the field is required)"))
        for name, item in value.items():
            kind = self.fields.get(name)
            if kind is None:
                problems.append(Problem(_join(path, name), f"no such field (known: {', '.join(self.fields)})"))
                continue
            checked[name] = kind.check(item, _join(path, name), problems)
        return checked


@dataclass(frozen=True)
class ListOf:
    item: Kind

    def schema(self) -> JsonSchema:
        return {"type": "array", "items": self.item.schema()}

    def check(self, value: Any, path: str, problems: list[Problem]) -> Any:
        if not isinstance(value, list):
            problems.append(Problem(path, "a list"))
            return []
        return [self.item.check(item, f"{path}[{index}]", problems) for index, item in enumerate(value)]


@dataclass(frozen=True)
class MapOf:
    """Values by a key: designations by language, prices by list and currency, stock by warehouse."""

    key: Text
    value: Kind
    key_name: str = "key"

    def schema(self) -> JsonSchema:
        names: JsonSchema = {"maxLength": self.key.max_length}
        if self.key.pattern:
            names["pattern"] = self.key.pattern
        return {"type": "object", "propertyNames": names, "additionalProperties": self.value.schema()}

    def check(self, value: Any, path: str, problems: list[Problem]) -> Any:
        if not isinstance(value, dict):
            problems.append(Problem(path, f"an object by {self.key_name}"))
            return {}
        checked = {}
        for key, item in value.items():
            self.key.check(key, f"{path} ({self.key_name} {key!r})", problems)
            checked[key] = self.value.check(item, _join(path, key), problems)
        return checked


@dataclass(frozen=True)
class File:
    """An image: inline in base64, or a path relative to the record file (read by the import)."""

    def schema(self) -> JsonSchema:
        forms = [
            {"type": "object", "properties": {INLINE: {"type": "string"}}, "required": [INLINE]},
            {"type": "object", "properties": {PATH: {"type": "string"}}, "required": [PATH]},
        ]
        return {"anyOf": [*({**form, "additionalProperties": False} for form in forms), {"type": "null"}]}

    def check(self, value: Any, path: str, problems: list[Problem]) -> Any:
        if value is None:
            return None
        if isinstance(value, dict) and value.keys() == {INLINE} and isinstance(value[INLINE], str):
            try:
                return base64.b64decode(value[INLINE], validate=True)
            except binascii.Error:
                problems.append(Problem(path, "base64 text"))
                return None
        if isinstance(value, dict) and value.keys() == {PATH} and isinstance(value[PATH], str):
            return FileReference(value[PATH])
        problems.append(Problem(path, f'{{"{INLINE}": "..."}}, {{"{PATH}": "relative/path"}} or null'))
        return None


@dataclass(frozen=True)
class FileReference:
    """A file named by a record, read once the record is otherwise valid (importing.py)."""

    path: str = field()


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name
