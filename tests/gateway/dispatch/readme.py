"""The manual's page on webhooks (docs/how-to/webhooks.md) as the tests read it: its code blocks and its table of the
payload's fields, so that what it documents is what a receiver gets, and the checks it shows are the ones
the tests run."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PAGE = Path(__file__).resolve().parents[3] / "docs" / "how-to" / "webhooks.md"
FIELDS_TABLE = "| field | type | meaning |"


def section() -> str:
    return PAGE.read_text(encoding="utf-8")


def code_blocks(language: str) -> list[str]:
    """The section's fenced code blocks in `language`, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```$", section(), re.DOTALL | re.MULTILINE)


@dataclass(frozen=True)
class Field:
    path: str  # data.AuftNr
    type: str  # the JSON type: string, integer, ...
    events: tuple[str, ...]  # the events whose messages carry it; none: every event's


def payload_fields() -> list[Field]:
    """The rows of the table of a message's fields."""
    lines = section().split(f"\n{FIELDS_TABLE}\n", 1)[1].split("\n\n", 1)[0].splitlines()
    fields = []
    for line in lines[1:]:  # below the |---| line
        name, kind, meaning = (cell.strip() for cell in line.strip("|").split("|"))
        # "`REST_Auft`: ..." or "`REST_Kunde`, `REST_Auft`: ..."
        named = re.match(r"((?:`REST_\w+`(?:, )?)+):", meaning)
        events = tuple(re.findall(r"`(REST_\w+)`", named.group(1))) if named else ()
        fields.append(Field(name.strip("`"), kind, events))
    return fields


def documented(event: str) -> dict[str, str]:
    """The fields of `event`'s messages and their JSON types, as the table lists them."""
    return {field.path: field.type for field in payload_fields() if not field.events or event in field.events}


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
