"""`gateway serve`: migrate, seed an empty database with the demo, and serve."""

from __future__ import annotations

import argparse
import asyncio
import os
from pathlib import Path
from typing import Any

from datasources.database import describe
from gateway.cli import demo
from gateway.cli.arguments import HELP_FORMAT, whole_number
from gateway.cli.database import migrated_database
from gateway.metrics import multiprocess
from gateway.server import run
from gateway.settings import Settings
from gateway.supervision import SUPERVISOR_PID


def add_parser(commands: Any) -> None:
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
    serve.set_defaults(run=_serve)


async def _migrate(settings: Settings) -> None:
    async with migrated_database(settings):
        pass


def _serve(args: argparse.Namespace) -> int:
    settings = Settings.from_env()
    sock = run.bind(args.host, args.port)  # before anything else: a taken port fails at once
    try:
        if args.no_demo:
            asyncio.run(_migrate(settings))
        else:
            asyncio.run(demo.fill(settings, demo.DEFAULT_ARTICLES, demo.DEFAULT_CUSTOMERS, seed=1))
        # Workers are separate processes: they must all sign and verify with the same key, and they end
        # when this process is gone (gateway/supervision.py).
        os.environ["GATEWAY_SECRET_KEY"] = settings.secret_key
        if args.workers > 1:
            os.environ[SUPERVISOR_PID] = str(os.getpid())
        print(banner(settings, args.host, args.port), flush=True)
        # Where the workers keep their metrics, so that a scrape of any of them sums them all.
        with multiprocess.shared_directory(args.workers):
            run.serve(sock, workers=args.workers, limits=settings.server)
    finally:
        sock.close()
    return 0


def banner(settings: Settings, host: str, port: int) -> str:
    base = run.browser_url(host, port)
    where = f"listening on {base}"
    if base.removeprefix("http://").rpartition(":")[0].strip("[]") != host:
        where = f"listening on {host} port {port}, from this machine: {base}"
    return (
        f"ERP shop gateway {where}\n"
        f"  REST:      {base}/www/...\n"
        f"  GraphiQL:  {base}/graphql (open it in a browser)\n"
        f"  database:  {describe(settings.database_url)}\n"
        f"  logs:      {settings.log_dir.resolve()}\n"
        f"  directory: {Path.cwd()} (run the gateway commands here: they use the same database and key)\n"
        "Create an API user with:  echo 'a-long-secret' | gateway users add shop --scope shop\n"
        f"then get a token:         curl -X POST -u shop:a-long-secret {base}/www/token"
    )
