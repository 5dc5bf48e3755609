"""The README's section on events and webhooks as the tests read it: its code blocks and its table of the
payload's fields, so that what it documents is what a receiver gets, and the checks it shows are the ones
the tests run."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

README = Path(__file__).resolve().parents[3] / "README.md"
HEADING = "## Events and webhooks"
FIELDS_TABLE = "| field | type | meaning |"


def section() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n{HEADING}\n")
    end = text.find("\n## ", start + len(HEADING))
    return text[start : end if end != -1 else len(text)]


def code_blocks(language: str) -> list[str]:
    """The section's fenced code blocks in `language`, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```$", section(), re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Field:
    path: str  # data.AuftNr
    type: str  # the JSON type: string, integer, ...
    event: str | None  # the event whose messages carry it; None: every event's


def payload_fields() -> list[Field]:
    """The rows of the table of a message's fields."""
    lines = section().split(f"\n{FIELDS_TABLE}\n", 1)[1].split("\n\n", 1)[0].splitlines()
    fields = []
    for line in lines[1:]:  # below the |---| line
        name, kind, meaning = (cell.strip() for cell in line.strip("|").split("|"))
        event = re.match(r"`(REST_\w+)`:", meaning)
        fields.append(Field(name.strip("`"), kind, event.group(1) if event else None))
    return fields


def documented(event: str) -> dict[str, str]:
    """The fields of `event`'s messages and their JSON types, as the table lists them."""
    return {field.path: field.type for field in payload_fields() if field.event in (None, event)}


def shape(message: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """Every field of a decoded message (nested ones as data.AuftNr) and its JSON type."""
    found: dict[str, str] = {}
    for name, value in message.items():
        if isinstance(value, dict):
            found |= shape(value, f"{prefix}{name}.")
        else:
            found[prefix + name] = _json_type(value)
    return found


def _json_type(value: object) -> str:
    for kind, name in ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (list, "array")):
        if isinstance(value, kind):
            return name
    return "null"
