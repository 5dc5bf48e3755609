"""The parts of the settings reference: a setting, a group of them, and the page they make."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    name: str
    default: str  # as the page shows it (Markdown)
    meaning: str  # Markdown, one paragraph


@dataclass(frozen=True)
class Group:
    title: str
    intro: str
    column: str  # the third column's heading: "meaning" or "what it bounds"
    settings: tuple[Setting, ...]


def settings_page(groups: Iterable[Group]) -> str:
    lines = [
        "# Settings",
        "",
        "<!-- Generated from gateway/reference/settings.py by gateway.reference.pages: edit that file. -->",
        "",
        "The gateway is configured by environment variables only. Each is read once per process.",
    ]
    for group in groups:
        lines += [
            "",
            f"## {group.title}",
            "",
            group.intro,
            "",
            f"| variable | default | {group.column} |",
            "|---|---|---|",
        ]
        lines += [f"| `{item.name}` | {item.default} | {_cell(item.meaning)} |" for item in group.settings]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("\n", " ")
