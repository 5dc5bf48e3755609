"""`gateway import`: a record file into the catalogue, all or nothing.

The file is read a chunk of records at a time (memory stays bounded), each chunk compared with what is
stored and its changes written, all in ONE transaction: a bad record anywhere means nothing is committed
(unless `partial`). On SQLite the transaction holds the write lock from its start (BEGIN IMMEDIATE): a
running `gateway serve` keeps answering reads meanwhile (WAL: they see the catalogue as it was before the
import until its commit, never a half-imported article) while its writes wait for the lock (up to the busy
timeout). That, not chunks that each commit, is the choice here: chunks that release the lock would show the
REST answers a half-imported file, and a bad record late in it could not undo the chunks before it."""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession

from datasources import phkeys
from datasources.catalogue.change_log import fold_all
from datasources.clock import utcnow
from datasources.database import Database
from datasources.exchange.comparison import Comparison, compare
from datasources.exchange.kinds import INLINE, FileReference, Problem
from datasources.exchange.record import check_record
from datasources.exchange.references import References, load_references
from datasources.exchange.sources import Entry
from datasources.exchange.stored import stored_articles
from datasources.exchange.writing import Change, Ids, numbering_conflicts, write_chunk
from datasources.identities import advance_id_sequences
from datasources.models import Article, ArticleAttribute
from datasources.planner import analyze

CHUNK_SIZE = 1000
MAX_PROBLEMS = 100  # problems listed; more are counted


@dataclass(frozen=True, slots=True)
class Rejection:
    number: int  # the record's place in the file
    position: str  # line 5, record 3
    problems: tuple[Problem, ...]

    def __str__(self) -> str:
        return "; ".join(f"{self.position}: {p.field}: expected {p.expected}" for p in self.problems)


@dataclass
class Report:
    new: int = 0
    changed: int = 0
    unchanged: int = 0
    removed: int = 0  # un-exposed by `replace`
    rejected: int = 0
    rejections: list[Rejection] = field(default_factory=list)  # the first MAX_PROBLEMS
    committed: bool = False


@dataclass(frozen=True, slots=True)
class Options:
    dry_run: bool = False
    replace: bool = False  # articles the file does not name are no longer exposed
    partial: bool = False  # the good records are imported, the bad ones rejected
    base: Path | None = Path()  # where image paths of records are relative to; None: no file is read
    reject: Callable[[Entry], None] | None = None  # called with each rejected record (the rejects file)
    progress: Callable[[int], None] | None = None


class _RolledBack(Exception):
    pass


async def import_entries(engine: AsyncEngine, entries: Iterable[Entry], options: Options) -> Report:
    report = Report()
    if options.dry_run:
        async with engine.connect() as conn:
            await _run(conn, entries, options, report)
        return report
    try:
        async with engine.execution_options(sqlite_begin_immediate=True).begin() as conn:
            await _run(conn, entries, options, report)
            if report.rejected and not options.partial:
                raise _RolledBack
            await advance_id_sequences(conn)
            await fold_all(conn)
    except _RolledBack:
        return report
    report.committed = True
    if report.new or report.changed or report.removed:
        await analyze(engine)  # after the commit: the statistics describe what the import wrote
    return report


async def upsert_records(db: Database, records: Sequence[Any], options: Options) -> Report:
    """Records sent over HTTP (GraphQL's articlesUpsert), imported as a file's: in one write transaction of
    the gateway's (on SQLite in the writers' queue), all or nothing unless `partial`. Numbered from 1."""
    report = Report()
    entries = [
        Entry(f"record {number}", orjson.dumps(value), value, number=number)
        for number, value in enumerate(records, start=1)
    ]

    async def work(session: AsyncSession) -> None:
        conn = await session.connection()
        await _run(conn, entries, options, report)
        if options.dry_run or (report.rejected and not options.partial):
            raise _RolledBack
        await advance_id_sequences(conn)
        await fold_all(conn)

    try:
        await db.write(work)
    except _RolledBack:
        return report
    report.committed = True
    return report


# SQLite's page cache while importing (KiB). The default 2 MB is full of the transaction's own pages after a few
# chunks; each further chunk then spills pages to the WAL and reads them back, and chunks get slower as the
# import goes on (8,000 articles: 85 s with the default, 46 s with this, when rows went in a statement each;
# with multi-row statements the articles 30,000 to 40,000 took 7.0 s of CPU with 2 MB, 6.0 s with 16 MB, 5.2 s
# with this: still worth its RSS).
SQLITE_CACHE_KIB = 64 * 1024
_SQLITE_DEFAULT_CACHE_KIB = 2000


async def _run(conn: AsyncConnection, entries: Iterable[Entry], options: Options, report: Report) -> None:
    sqlite = conn.dialect.name == "sqlite"
    if sqlite:
        await conn.exec_driver_sql(f"PRAGMA cache_size = -{SQLITE_CACHE_KIB}")
    try:
        await _import(conn, entries, options, report)
    finally:
        if sqlite:  # the connection goes back to the pool
            await conn.exec_driver_sql(f"PRAGMA cache_size = -{_SQLITE_DEFAULT_CACHE_KIB}")


async def _import(conn: AsyncConnection, entries: Iterable[Entry], options: Options, report: Report) -> None:
    references = await load_references(conn)
    named: dict[str, str] = {}  # ArtNr -> where the file names it
    ids, now = Ids(), utcnow()
    iterator = iter(entries)
    # The next chunk is read and validated in a thread while this one's statements run: SQLite and asyncpg
    # leave the GIL while the database works, so the two overlap (reading and checking 10,000 records took
    # some 8 s of CPU, about what their statements took). Two chunks at most are held.
    pending = asyncio.ensure_future(asyncio.to_thread(_read_and_validate, iterator, references, options.base))
    try:
        while validated := await pending:
            pending = asyncio.ensure_future(asyncio.to_thread(_read_and_validate, iterator, references, options.base))
            checked = _checked(validated, named, options, report)
            await _compare_and_write(conn, checked, references, ids, now, options, report)
            if options.progress is not None:
                options.progress(len(validated))
    finally:
        await asyncio.gather(pending, return_exceptions=True)  # no thread left reading the file
    if options.replace:
        report.removed = await _unexpose_unnamed(conn, named, write=_writes(options, report), now=now)
    report.rejections.sort(key=lambda rejection: rejection.number)  # the comparisons' come after a chunk's checks


def _writes(options: Options, report: Report) -> bool:
    return not options.dry_run and (options.partial or not report.rejected)


def _reject(entry: Entry, problems: Iterable[Problem], options: Options, report: Report) -> None:
    report.rejected += 1
    if len(report.rejections) < MAX_PROBLEMS:
        report.rejections.append(Rejection(entry.number, entry.position, tuple(problems)))
    if options.reject is not None:
        options.reject(entry)


Validated = list[tuple[Entry, dict[str, Any] | None, list[Problem]]]


def _read_and_validate(iterator: Iterator[Entry], references: References, base: Path | None) -> Validated:
    """The next chunk of the file, each record checked by itself (what needs no state of the import's)."""
    validated: Validated = []
    for entry in islice(iterator, CHUNK_SIZE):
        record, problems = (None, []) if entry.value is None else check_record(entry.value)
        if record is not None:
            problems = [*references.problems(record), *_read_files(record, base)]
        validated.append((entry, record, problems))
    return validated


def _checked(
    validated: Validated, named: dict[str, str], options: Options, report: Report
) -> list[tuple[Entry, dict[str, Any]]]:
    good = []
    for entry, record, problems in validated:
        if entry.value is None:
            expected = "a row of the header's columns" if entry.patch else "a JSON object"
            _reject(entry, [Problem("(record)", expected)], options, report)
            continue
        if record is not None:
            number = record["ArtNr"]
            if number in named:
                problems.append(Problem("ArtNr", f"an ArtNr not named before (it is on {named[number]})"))
            else:
                named[number] = entry.position
        if problems or record is None:
            _reject(entry, problems, options, report)
        else:
            good.append((entry, record))
    return good


def _read_files(record: dict[str, Any], base: Path | None) -> Iterator[Problem]:
    """Images given as paths, read (relative to the record file); a missing one is the record's problem.
    Records sent over HTTP (base None) name no file: the server's files are not the client's to read."""
    for index, media in enumerate(record.get("Media", [])):
        reference = media.get("Bild")
        if not isinstance(reference, FileReference):
            continue
        if base is None:
            yield Problem(f"Media[{index}].Bild", f'the image inline ({{"{INLINE}": "..."}}): no file is read here')
            continue
        try:
            media["Bild"] = (base / reference.path).read_bytes()
        except OSError:
            yield Problem(f"Media[{index}].Bild", f"a readable file ({reference.path} is not)")


async def _compare_and_write(
    conn: AsyncConnection,
    checked: list[tuple[Entry, dict[str, Any]]],
    references: References,
    ids: Ids,
    now: dt.datetime,
    options: Options,
    report: Report,
) -> None:
    stored = await stored_articles(conn, [record["ArtNr"] for _, record in checked])
    changes: dict[str, Change] = {}
    entries: dict[str, Entry] = {}
    for entry, record in checked:
        old = stored.get(record["ArtNr"])
        outcome = compare(record, None if old is None else old.record, now, patch=entry.patch)
        if isinstance(outcome, Problem):
            _reject(entry, [outcome], options, report)
        elif outcome.changed:
            changes[record["ArtNr"]] = Change(None if old is None else old.id, outcome)
            entries[record["ArtNr"]] = entry
        else:
            report.unchanged += 1
    for number, problem in (await numbering_conflicts(conn, changes)).items():
        _reject(entries[number], [problem], options, report)
        del changes[number]
    report.new += sum(change.is_new for change in changes.values())
    report.changed += sum(not change.is_new for change in changes.values())
    if changes and _writes(options, report):
        await write_chunk(conn, list(changes.values()), references, ids, now)


async def _unexpose_unnamed(conn: AsyncConnection, named: dict[str, str], *, write: bool, now: dt.datetime) -> int:
    exposed = (
        select(Article.id, Article.number)
        .join(ArticleAttribute, ArticleAttribute.article_id == Article.id)
        .where(ArticleAttribute.key == phkeys.EXPOSED)
    )
    unnamed = [article_id for article_id, number in await conn.execute(exposed) if number not in named]
    if write:
        for start in range(0, len(unnamed), CHUNK_SIZE):
            part = unnamed[start : start + CHUNK_SIZE]
            await conn.execute(
                delete(ArticleAttribute).where(
                    ArticleAttribute.article_id.in_(part), ArticleAttribute.key == phkeys.EXPOSED
                )
            )
            await conn.execute(update(Article).where(Article.id.in_(part)).values(modified_at=now))
    return len(unnamed)


__all__ = ["Comparison", "Options", "Report", "import_entries", "upsert_records"]
