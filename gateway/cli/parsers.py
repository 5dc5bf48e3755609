"""The command line's parsers: every command, its options and its help, free of the modules a command runs
on. `gateway --help` (and a usage error) imports none of SQLAlchemy, Strawberry or Starlette: each command's
module is imported when the command runs (`later`)."""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gateway.cli.arguments import HELP_FORMAT, whole_number

DEFAULT_ARTICLES = 500  # the demo catalogue of `gateway demo` and of `gateway serve` on an empty database
DEFAULT_CUSTOMERS = 50
# As datasources.users.SCOPES and datasources.events.EVENTS have them (tests/gateway/test_cli_help.py).
SCOPES = ("shop", "catalogue", "admin", "metrics")
EVENTS = ("REST_Auft", "REST_Kunde", "REST_Artikel")


def later(module: str, function: str) -> Callable[[argparse.Namespace], int]:
    """A command's function, imported when it runs."""

    def run(args: argparse.Namespace) -> int:
        command: Callable[[argparse.Namespace], int] = getattr(importlib.import_module(module), function)
        return command(args)

    return run


def add_commands(commands: Any) -> None:
    for add in (_serve, _dispatch, _demo, _exchange, _users, _webhooks, _attributes, _db):
        add(commands)


def _serve(commands: Any) -> None:
    serve = commands.add_parser(
        "serve",
        help="migrate, seed an empty database with demo data, serve",
        description="Migrates the database, fills it with demo data when it has no articles (unless --no-demo) "
        "and serves /www and /graphql.",
        formatter_class=HELP_FORMAT,
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on; 0.0.0.0 for every interface")
    serve.add_argument("--port", type=whole_number(1, 65535), default=8000, help="TCP port")
    serve.add_argument("--workers", type=whole_number(1), default=1, help="worker processes")
    serve.add_argument("--no-demo", action="store_true", help="do not seed an empty database with demo data")
    serve.set_defaults(run=later("gateway.cli.serve", "_serve"), creates_database=True)


def _dispatch(commands: Any) -> None:
    dispatch = commands.add_parser(
        "dispatch",
        help="deliver webhook events until stopped",
        description="Delivers the recorded events to the webhook endpoints until SIGTERM or Ctrl+C, sharing "
        "the work with every other dispatcher on the same database (each `gateway serve` process runs one "
        "unless GATEWAY_WEBHOOK_DISPATCH=0).",
        formatter_class=HELP_FORMAT,
    )
    dispatch.set_defaults(run=later("gateway.cli.dispatch", "_dispatch"))


def _demo(commands: Any) -> None:
    demo = commands.add_parser(
        "demo",
        help="migrate and fill an empty database with demo data",
        description="Fills a database without articles with a deterministic demo catalogue and customers; "
        "a database that has articles already is left alone.",
        formatter_class=HELP_FORMAT,
    )
    demo.add_argument("--articles", type=whole_number(1), default=DEFAULT_ARTICLES, help="articles to create")
    demo.add_argument("--customers", type=whole_number(0), default=DEFAULT_CUSTOMERS, help="customers to create")
    demo.add_argument("--seed", type=int, default=1, help="random seed: the same seed gives the same data")
    demo.set_defaults(run=later("gateway.cli.demo", "_demo"), creates_database=True)


def _exchange(commands: Any) -> None:
    export = commands.add_parser(
        "export",
        help="write the catalogue as article records",
        description="Writes every article (exposed or not) as one record, in ArtNr order, streamed: "
        "JSON Lines (one record a line), JSON (one array) or CSV (the flat fields and one price column per "
        "price list and currency). The records' format is described by `gateway export --schema`.",
        formatter_class=HELP_FORMAT,
    )
    export.add_argument("--format", choices=("jsonl", "json", "csv"), default="jsonl", help="file format")
    export.add_argument("--output", "-o", default="-", metavar="FILE", help="the file to write; - for stdout")
    export.add_argument(
        "--filter",
        action="append",
        metavar="NAME=VALUE",
        help="only these articles: ArtNr=A-1* (a trailing * matches a prefix), ArtGruppe=..., ArtKlasse=..., "
        "WebShop=true|false; repeated: all must hold",
    )
    export.add_argument(
        "--media-dir",
        metavar="DIR",
        help="write media images as files into DIR, named in the records by their path (default: inline, base64)",
    )
    export.add_argument("--schema", action="store_true", help="print the JSON Schema of a record and exit")
    export.set_defaults(run=later("gateway.cli.exchange", "_export"))

    load = commands.add_parser(
        "import",
        help="load article records into the catalogue",
        description="Upserts the articles of FILE by ArtNr, all or nothing: a bad record changes nothing and "
        "every problem is listed by line, field and what was expected. An article whose record equals what is "
        "stored is not written. Imported articles are exposed to the web shop unless their record says not.",
        formatter_class=HELP_FORMAT,
    )
    load.add_argument("file", metavar="FILE", type=Path, help="the record file")
    load.add_argument("--format", choices=("jsonl", "json", "csv"), help="file format (default: by its extension)")
    load.add_argument("--dry-run", action="store_true", help="check and count what would change; write nothing")
    load.add_argument("--replace", action="store_true", help="articles the file does not name are no longer exposed")
    load.add_argument(
        "--partial",
        action="store_true",
        help="import the good records; the bad ones are written to FILE.rejected beside it",
    )
    load.set_defaults(run=later("gateway.cli.exchange", "_import"))


def _users(commands: Any) -> None:
    actions = commands.add_parser("users", help="API users").add_subparsers(required=True, metavar="ACTION")
    add = actions.add_parser(
        "add",
        help="create an API user; the secret is read from standard input",
        description="Creates an API user in the configured database (by default gateway.db in the working "
        "directory). The secret (at least 8 characters) is read from standard input, or asked for twice on "
        "a terminal.",
        formatter_class=HELP_FORMAT,
    )
    add.add_argument("name", help="the user name, as sent with HTTP Basic to POST /www/token")
    add.add_argument(
        "--scope",
        action="append",
        choices=SCOPES,
        help="shop, catalogue, admin or metrics (GET /metrics only); repeatable (default: shop)",
    )
    add.set_defaults(run=later("gateway.cli.users", "_add"))
    listing = actions.add_parser(
        "list",
        help="list the API users",
        description="Lists the API users: name, scopes, when they were created (UTC) and how often their "
        "secret was replaced. Never a secret.",
        formatter_class=HELP_FORMAT,
    )
    listing.add_argument("--json", action="store_true", help="one JSON array instead of aligned columns")
    listing.set_defaults(run=later("gateway.cli.users", "_list"))
    remove = actions.add_parser(
        "remove",
        help="remove an API user; its tokens are refused",
        description="Removes an API user: it gets no token any more, and the gateway refuses the tokens it "
        "holds within GATEWAY_TOKEN_CHECK_SECONDS.",
        formatter_class=HELP_FORMAT,
    )
    remove.add_argument("name", help="the user name")
    remove.set_defaults(run=later("gateway.cli.users", "_remove"))
    rotate = actions.add_parser(
        "rotate",
        help="give an API user a new secret, read from standard input; its earlier tokens are refused",
        description="Replaces an API user's secret with one read from standard input (or asked for twice on "
        "a terminal; at least 8 characters). The old secret gets no token any more, and the gateway refuses "
        "the tokens issued before within GATEWAY_TOKEN_CHECK_SECONDS.",
        formatter_class=HELP_FORMAT,
    )
    rotate.add_argument("name", help="the user name")
    rotate.set_defaults(run=later("gateway.cli.users", "_rotate"))


def _webhooks(commands: Any) -> None:
    actions = commands.add_parser(
        "webhooks", help="webhook endpoints and deliveries", description="Endpoints that receive ERP events."
    ).add_subparsers(required=True, metavar="ACTION")
    add = actions.add_parser(
        "add",
        help="add an endpoint; prints its id and signing secret",
        description="Adds an endpoint that receives the events recorded from now on, as signed POSTs "
        "(Standard Webhooks). Prints its id and its signing secret, which is shown only this once.",
        formatter_class=HELP_FORMAT,
    )
    add.add_argument(
        "url",
        help="absolute http or https URL; not to a loopback, private, link-local, multicast, unspecified or "
        "reserved address unless GATEWAY_WEBHOOK_ALLOW_PRIVATE=1",
    )
    add.add_argument(
        "--event",
        action="append",
        metavar="NAME",
        help=f"an event it receives ({', '.join(EVENTS)}); repeatable (default: every event)",
    )
    add.set_defaults(run=later("gateway.cli.webhooks", "_add"))
    listing = actions.add_parser("list", help="list the endpoints", formatter_class=HELP_FORMAT)
    listing.set_defaults(run=later("gateway.cli.webhooks", "_list"))
    remove = actions.add_parser(
        "remove", help="remove an endpoint and its deliveries (pending ones are not sent)", formatter_class=HELP_FORMAT
    )
    remove.add_argument("id", type=whole_number(1), help="the endpoint's id")
    remove.set_defaults(run=later("gateway.cli.webhooks", "_remove"))
    shown = actions.add_parser(
        "deliveries", help="list deliveries, newest first, with status and answer", formatter_class=HELP_FORMAT
    )
    shown.add_argument("--failed", action="store_true", help="only the failed ones")
    shown.add_argument("--limit", type=whole_number(1, 100_000), default=100, help="at most this many")
    shown.set_defaults(run=later("gateway.cli.webhooks", "_deliveries"))
    retry = actions.add_parser(
        "retry",
        help="send deliveries again",
        description="Makes deliveries due now with a fresh schedule of attempts, whatever their status.",
        formatter_class=HELP_FORMAT,
    )
    which = retry.add_mutually_exclusive_group(required=True)
    which.add_argument("delivery", nargs="?", type=whole_number(1), help="a delivery's id")
    which.add_argument("--failed", action="store_true", help="every failed delivery")
    retry.set_defaults(run=later("gateway.cli.webhooks", "_retry"))


def _attributes(commands: Any) -> None:
    actions = commands.add_parser("attributes", help="company attributes (PHKeys)").add_subparsers(
        required=True, metavar="ACTION"
    )
    change = actions.add_parser(
        "set",
        help="create or change a company attribute",
        description="Sets a company attribute, e.g. `gateway attributes set RESTEVENTS REST_Auft,REST_Kunde` "
        "(or `*`) records the events from now on; an empty CONTENTS ('') records none.",
        formatter_class=HELP_FORMAT,
    )
    change.add_argument("key", metavar="PHKEY", help="the attribute's key (stored in upper case)")
    change.add_argument("contents", metavar="CONTENTS", help="its contents")
    change.set_defaults(run=later("gateway.cli.attributes", "_set"))
    listing = actions.add_parser("list", help="list the company attributes", formatter_class=HELP_FORMAT)
    listing.set_defaults(run=later("gateway.cli.attributes", "_list"))


def _db(commands: Any) -> None:
    actions = commands.add_parser("db", help="database").add_subparsers(required=True, metavar="ACTION")
    upgrade = actions.add_parser(
        "upgrade", help="run the migrations to the newest revision", formatter_class=HELP_FORMAT
    )
    upgrade.set_defaults(run=later("gateway.cli.db", "_upgrade"), creates_database=True)
