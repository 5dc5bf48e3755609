"""The command-line reference: every `gateway` command's help, as argparse prints it."""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

WIDTH = "100"  # argparse wraps at the terminal's width; the page's is fixed


@dataclass(frozen=True)
class Command:
    name: str  # "gateway users add"
    parser: argparse.ArgumentParser
    summary: str  # the line its parent's help gives it


def commands(parser: argparse.ArgumentParser, prefix: str = "gateway", summary: str = "") -> Iterator[Command]:
    """The program and every command below it, in the help's order."""
    yield Command(prefix, parser, summary)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, child in action.choices.items():
                yield from commands(child, f"{prefix} {name}", helps.get(name, ""))


def cli_page(parser: argparse.ArgumentParser) -> str:
    lines = [
        "# Command line",
        "",
        "<!-- Generated from the argparse parsers of gateway/cli by gateway.reference.pages. -->",
        "",
        "`python -m gateway ...` works the same as `gateway ...`. Only `serve`, `demo` and `db` create a database;",
        "every other command run where there is none says where it looked and exits 1. A database that cannot be",
        "reached is one line on standard error and exit 1; no command ever prints a database password.",
    ]
    with _width():
        for command in commands(parser):
            lines += ["", f"## `{command.name}`", ""]
            if command.summary:
                lines += [command.summary[0].upper() + command.summary[1:] + ".", ""]
            lines += ["```text", command.parser.format_help().rstrip(), "```"]
    return "\n".join(lines) + "\n"


@contextmanager
def _width() -> Iterator[None]:
    before = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = WIDTH
    try:
        yield
    finally:
        if before is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = before
