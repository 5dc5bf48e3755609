"""Argument types and help layout shared by the commands."""

from __future__ import annotations

import argparse


class DefaultsHelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's help ends with its default, except switches and options without one."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False):
            return action.help
        return super()._get_help_string(action)


HELP_FORMAT = DefaultsHelpFormatter


def whole_number(low: int, high: int | None = None) -> type[int]:
    """An argparse type for whole numbers in [low, high]; anything else is a usage error (exit 2)."""

    def parse(raw: str) -> int:
        try:
            value = int(raw)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{raw!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            bounds = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"{value} is out of range: must be {bounds}")
        return value

    parse.__name__ = "whole number"  # what argparse names in its messages
    return parse  # type: ignore[return-value]
