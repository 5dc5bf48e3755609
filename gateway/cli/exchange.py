"""`gateway export` and `gateway import`: the catalogue as a file of article records (docs/how-to/import-export.md)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import orjson
from sqlalchemy.ext.asyncio import AsyncConnection

from gateway.cli.database import migrated_database
from gateway.settings import Settings


def _progress(total: int, desc: str, stream: IO[str]) -> Any:
    """A tqdm bar on a terminal; nothing when stderr is piped (a log, a script)."""
    if not stream.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="articles", desc=desc, file=stream)


# Export


def _export(args: argparse.Namespace) -> int:
    from datasources.exchange import BadFilter, Filter, json_schema

    if args.schema:
        sys.stdout.write(orjson.dumps(json_schema(), option=orjson.OPT_INDENT_2).decode() + "\n")
        return 0
    try:
        filters = [Filter.parse(text) for text in args.filter or ()]
    except BadFilter as error:
        print(f"gateway: --filter {error}", file=sys.stderr)
        return 2
    try:
        with _output(args.output) as out:
            asyncio.run(_write_export(Settings.from_env(), args, filters, out))
    except BrokenPipeError:  # `gateway export | head`: the reader has what it wanted
        sys.stderr.close()
    return 0


@contextlib.contextmanager
def _output(target: str) -> Iterator[IO[bytes]]:
    if target == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    with open(target, "wb") as file:
        yield file


async def _write_export(settings: Settings, args: argparse.Namespace, filters: list[Any], out: IO[bytes]) -> None:
    from datasources.exchange.encoding import ImageFiles, inline_image

    base = Path(args.output).parent if args.output != "-" else Path()
    images = ImageFiles(Path(args.media_dir), base) if args.media_dir else inline_image
    async with migrated_database(settings) as database:
        engine = database.engine
        if engine.dialect.name == "postgresql":  # one snapshot for every chunk (SQLite's transaction has one)
            engine = engine.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)
        async with engine.connect() as conn:
            await _export_records(conn, args, filters, images, out)


async def _export_records(
    conn: AsyncConnection, args: argparse.Namespace, filters: list[Any], images: Any, out: IO[bytes]
) -> None:
    from datasources.exchange import count_articles, export_records
    from datasources.exchange.flat import price_columns
    from datasources.exchange.references import load_references
    from datasources.exchange.targets import record_writer

    bar = _progress(await count_articles(conn, filters), "export", sys.stderr)
    columns = price_columns(await load_references(conn)) if args.format == "csv" else []
    writer = record_writer(args.format, out, price_columns=columns, images=images)
    async for record in export_records(conn, filters):
        writer.write(record)
        if bar is not None:
            bar.update(1)
    writer.close()
    if bar is not None:
        bar.close()


# Import


def _import(args: argparse.Namespace) -> int:
    from datasources.exchange.sources import UnreadableFile

    path: Path = args.file
    if not path.is_file():
        print(f"gateway: no file {path}", file=sys.stderr)
        return 2
    try:
        report = asyncio.run(_run_import(Settings.from_env(), args))
    except UnreadableFile as error:
        print(f"gateway: {error}", file=sys.stderr)
        return 1
    for rejection in report.rejections:
        print(str(rejection), file=sys.stderr)
    if report.rejected > len(report.rejections):
        print(f"... and {report.rejected - len(report.rejections)} more rejected records", file=sys.stderr)
    counts = (
        f"{report.new} new, {report.changed} changed, {report.unchanged} unchanged, "
        f"{report.removed} removed, {report.rejected} rejected"
    )
    if args.dry_run:
        print(f"dry run, nothing written: {counts}")
        return 1 if report.rejected else 0
    if not report.committed:
        print(f"nothing imported: {report.rejected} rejected records ({counts})", file=sys.stderr)
        return 1
    print(f"imported: {counts}")
    if args.partial and report.rejected:
        print(f"rejected records written to {_rejects_path(args.file)}")
    return 0


def _rejects_path(path: Path) -> Path:
    return path.with_name(path.name + ".rejected")


async def _run_import(settings: Settings, args: argparse.Namespace) -> Any:
    from datasources.exchange import Options, import_entries
    from datasources.exchange.sources import entries, format_of

    file_format = format_of(args.file, args.format)
    rejects: list[IO[bytes]] = []

    def reject(entry: Any) -> None:
        if not rejects:
            rejects.append(_rejects_path(args.file).open("wb"))
            if file_format == "csv":  # the rejected rows under the file's own header, to be imported again
                with args.file.open("rb") as original:
                    rejects[0].write(original.readline().rstrip(b"\r\n") + b"\n")
        rejects[0].write(entry.raw + b"\n")

    bar = _progress(0, "import", sys.stderr)
    options = Options(
        dry_run=args.dry_run,
        replace=args.replace,
        partial=args.partial,
        base=args.file.parent,
        reject=reject if args.partial and not args.dry_run else None,
        progress=None if bar is None else bar.update,
    )
    try:
        async with migrated_database(settings) as database:
            return await import_entries(database.engine, entries(args.file, file_format), options)
    finally:
        for file in rejects:
            file.close()
        if bar is not None:
            bar.close()
