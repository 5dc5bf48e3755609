"""The `gateway` command line: one module per command group, each adding its own parser."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from importlib.metadata import version

from datasources.database import DatabaseUnavailable
from gateway.cli import attributes, db, demo, dispatch, serve, users, webhooks
from gateway.server.run import CannotListen

PACKAGE = "erp-shop-gateway"


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except (DatabaseUnavailable, CannotListen) as error:
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
    parser.add_argument("--version", action="version", version=f"%(prog)s {version(PACKAGE)}")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    for module in (serve, dispatch, demo, users, webhooks, attributes, db):
        module.add_parser(commands)
    return parser
