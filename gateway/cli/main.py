"""The `gateway` command line: the parsers (gateway/cli/parsers.py), and one module per command group that
is imported when one of its commands runs, so that `gateway --help` starts at once."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from gateway.cli.parsers import add_commands

PACKAGE = "erp-shop-gateway"


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from datasources.database import DatabaseUnavailable
    from gateway.cli.database import DatabaseMissing, require_database
    from gateway.server.run import CannotListen
    from gateway.settings import database_url

    try:
        # Before the settings are read: they would create the signing key beside a database not there.
        if not getattr(args, "creates_database", False):
            require_database(database_url())
        return int(args.run(args) or 0)
    except (DatabaseUnavailable, DatabaseMissing, CannotListen) as error:
        # An operator's mistake or an outage, not a bug: one line, no traceback.
        print(f"gateway: {error}", file=sys.stderr)
        return 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gateway",
        description="ERP shop gateway: the web shop's /www REST interface and /graphql. Configured by "
        "GATEWAY_* environment variables; by default the database (gateway.db), the signing key and the "
        "log files live in the working directory.",
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    add_commands(commands)
    return parser


class _Version(argparse.Action):
    """--version, reading the installed version only when asked (importlib.metadata takes a while)."""

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: Any = None
    ) -> None:
        from importlib.metadata import version

        print(f"{parser.prog} {version(PACKAGE)}")  # on standard output, as argparse's own version action
        parser.exit()
