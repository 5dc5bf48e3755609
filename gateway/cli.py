"""The `gateway` command: serve, demo, users add, db upgrade."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import os
import sys
from collections.abc import Sequence

from datasources import migrate, users
from datasources.database import create_database
from datasources.errors import DomainError
from gateway.settings import Settings

DEFAULT_DEMO_ARTICLES = 500
DEFAULT_DEMO_CUSTOMERS = 50


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return int(args.run(args) or 0)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gateway", description="ERP shop gateway: /www REST and /graphql.")
    commands = parser.add_subparsers(required=True, metavar="COMMAND")

    serve = commands.add_parser("serve", help="migrate, seed an empty database with demo data, serve")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--workers", type=int, default=1)
    serve.add_argument("--no-demo", action="store_true", help="do not seed an empty database")
    serve.set_defaults(run=_serve)

    demo = commands.add_parser("demo", help="migrate and fill an empty database with demo data")
    demo.add_argument("--articles", type=int, default=DEFAULT_DEMO_ARTICLES)
    demo.add_argument("--customers", type=int, default=DEFAULT_DEMO_CUSTOMERS)
    demo.add_argument("--seed", type=int, default=1)
    demo.set_defaults(run=_demo)

    user_commands = commands.add_parser("users", help="API users").add_subparsers(required=True, metavar="ACTION")
    add = user_commands.add_parser("add", help="create an API user; the secret is read from standard input")
    add.add_argument("name")
    add.add_argument(
        "--scope",
        action="append",
        choices=users.SCOPES,
        help="shop (default), catalogue or admin; repeatable",
    )
    add.set_defaults(run=_users_add)

    db = commands.add_parser("db", help="database").add_subparsers(required=True, metavar="ACTION")
    db.add_parser("upgrade", help="run Alembic migrations to head").set_defaults(run=_db_upgrade)
    return parser


async def _upgrade(settings: Settings) -> None:
    database = create_database(settings.database_url)
    try:
        await migrate.upgrade(database.engine)
    finally:
        await database.dispose()


def _db_upgrade(args: argparse.Namespace) -> int:
    asyncio.run(_upgrade(Settings.from_env()))
    print("database is at the newest revision")
    return 0


async def _fill_demo(settings: Settings, articles: int, customers: int, seed: int) -> bool:
    from tqdm import tqdm

    from datasources.demo import fill_demo

    database = create_database(settings.database_url)
    try:
        await migrate.upgrade(database.engine)
        with tqdm(total=articles, unit="articles", desc="demo data", file=sys.stderr) as bar:

            def progress(written: int) -> None:
                bar.update(written)

            return await fill_demo(
                database.engine, articles=articles, customers=customers, seed=seed, progress=progress
            )
    finally:
        await database.dispose()


def _demo(args: argparse.Namespace) -> int:
    if args.articles < 1 or args.customers < 0:
        print("--articles must be at least 1 and --customers at least 0", file=sys.stderr)
        return 2
    filled = asyncio.run(_fill_demo(Settings.from_env(), args.articles, args.customers, args.seed))
    print("demo data written" if filled else "the database already has articles; nothing was written")
    return 0


def _read_secret() -> str:
    if sys.stdin.isatty():
        secret = getpass.getpass("secret: ")
        if getpass.getpass("again: ") != secret:
            raise SystemExit("the secrets differ")
        return secret
    return sys.stdin.readline().rstrip("\r\n")


async def _add_user(settings: Settings, name: str, secret: str, scopes: tuple[str, ...]) -> None:
    database = create_database(settings.database_url)
    try:
        await migrate.upgrade(database.engine)
        async with database.writer() as session, session.begin():
            await users.add_user(session, name, secret, scopes)
    finally:
        await database.dispose()


def _users_add(args: argparse.Namespace) -> int:
    scopes = tuple(dict.fromkeys(args.scope or ["shop"]))
    try:
        asyncio.run(_add_user(Settings.from_env(), args.name, _read_secret(), scopes))
    except DomainError as error:
        print(f"gateway: {error.message}", file=sys.stderr)
        return 1
    print(f"user {args.name!r} created with scopes: {' '.join(scopes)}")
    return 0


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    settings = Settings.from_env()
    if args.no_demo:
        asyncio.run(_upgrade(settings))
    else:
        asyncio.run(_fill_demo(settings, DEFAULT_DEMO_ARTICLES, DEFAULT_DEMO_CUSTOMERS, seed=1))
    # Workers are separate processes: they must all sign and verify with the same key.
    os.environ["GATEWAY_SECRET_KEY"] = settings.secret_key
    base = f"http://{args.host}:{args.port}"
    print(
        f"ERP shop gateway listening on {base}\n"
        f"  REST:     {base}/www/...\n"
        f"  GraphiQL: {base}/graphql (open it in a browser)\n"
        f"  database: {settings.database_url}\n"
        f"  logs:     {settings.log_dir.resolve()}\n"
        "Create an API user with:  echo 'a-long-secret' | gateway users add shop --scope shop\n"
        f"then get a token:         curl -X POST -u shop:a-long-secret {base}/www/token",
        flush=True,
    )
    uvicorn.run(
        "gateway.app:create_server_app",
        factory=True,
        host=args.host,
        port=args.port,
        workers=args.workers,
        log_level="info",
    )
    return 0
