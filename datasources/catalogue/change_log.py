"""SQLite's change log: how an article's change position is read there, and the fold that keeps the log short.

On SQLite a trigger runs per row, and a trigger that moved the article's row of `article_change` (find the
row, take the greatest position plus one, rewrite the row and its index entry) made one UPDATE of 1,000 prices
2.5x slower; the issue allows 1.5x. So there the triggers of the tables an article is built from append a row
to `article_change_log` (migration 0014): its `seq`, SQLite's rowid, is the change's position, taken in
commit order as before (one writer at a time), and the log has no index, so that an append costs about what a
trigger that does nothing costs. Positions are still only taken from the log: the triggers that make,
re-expose or remove an article's row append one and give the row the log's greatest `seq`.

An article's position is then the greater of its row's and of the greatest `seq` the log holds for it, unless
the row is a tombstone, whose position the removal set (a later change of a removed article's price moves
nothing, as before). `position_of` is that expression; on PostgreSQL, whose triggers run once per
statement and leave the log empty, it is the row's position alone.

`fold` moves the log's positions into the rows and deletes what it moved, in batches, keeping the log's
greatest row (SQLite takes the next `seq` from it): every position reads the same before and after it, so
readers never wait for it, but a reader of a long log scans it (the log has no index), so every serving
process folds soon after a change (gateway/change_folding.py), and the gateway's own bulk writers (the demo
load, the import) fold when they are done.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import BigInteger, ColumnElement, bindparam, delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

from datasources.models import ArticleChange, ArticleChangeLog
from datasources.reads import Query, Reads

LOG = ArticleChangeLog.__tablename__
BATCH = 200_000  # log rows folded in one transaction: a long log is folded in turns other writers come between


class ChangePosition(FunctionElement[int]):
    """The change position of the `article_change` row given by its position, removal and article columns."""

    type = BigInteger()
    name = "change_position"
    inherit_cache = True


@compiles(ChangePosition)
def _row_position(element: ChangePosition, compiler: SQLCompiler, **kw: Any) -> str:
    position, _removed, _article = element.clauses
    return str(compiler.process(position, **kw))


@compiles(ChangePosition, "sqlite")
def _logged_position(element: ChangePosition, compiler: SQLCompiler, **kw: Any) -> str:
    position, removed, article = (compiler.process(clause, **kw) for clause in element.clauses)
    # The log's greatest seq of every article, made once per statement (SQLite makes the grouped subquery once
    # and indexes it for the lookups): a page of 100 articles reads the log once, not 100 times (10,000 rows
    # in the log: 9 ms against 73). The compiler's own SQL of the columns, and the table's name.
    logged = (
        f"(SELECT change_log.seq FROM (SELECT article_id, max(seq) AS seq FROM {LOG} GROUP BY article_id) "  # noqa: S608
        f"change_log WHERE change_log.article_id = {article})"
    )
    # No row (an outer join's NULLs): NULL, as the row's position alone gives.
    return f"CASE WHEN {removed} THEN {position} ELSE max({position}, coalesce({logged}, {position})) END"


def position_of(changes: Any = ArticleChange) -> ColumnElement[int]:
    """The change position of an article whose `article_change` row (the table, or an alias) is `changes`."""
    return ChangePosition(changes.position, changes.removed, changes.article_id)


# SQLite's greatest position: the log keeps its greatest row, and every position is taken from it.
GREATEST = Query(select(func.coalesce(func.max(ArticleChangeLog.seq), 0)))
# The greatest position of a change the shop sees: of a row, or of the log for an article with a row that is
# not a tombstone. A change of an article never exposed moves the log's greatest, not this (the kept
# aggregates' probe: such changes must not drop their answers). The log's part is its tail, folded soon.
_KNOWN_LOGGED = (
    select(func.max(ArticleChangeLog.seq))
    .join(ArticleChange, ArticleChange.article_id == ArticleChangeLog.article_id)
    .where(ArticleChange.removed.is_(False))
    .scalar_subquery()
)
SEEN = Query(
    select(
        func.max(
            func.coalesce(select(func.max(ArticleChange.position)).scalar_subquery(), 0),
            func.coalesce(_KNOWN_LOGGED, 0),
        )
    )
)

_UPTO = bindparam("upto", type_=BigInteger())
_TAIL = select(func.min(ArticleChangeLog.seq), func.max(ArticleChangeLog.seq))
_LOGGED = (
    select(ArticleChangeLog.article_id, func.max(ArticleChangeLog.seq).label("seq"))
    .where(ArticleChangeLog.seq <= _UPTO, ArticleChangeLog.article_id.is_not(None))
    .group_by(ArticleChangeLog.article_id)
    .subquery("folded")
)
_FOLD = (
    update(ArticleChange)
    .values(position=_LOGGED.c.seq)
    .where(
        ArticleChange.article_id == _LOGGED.c.article_id,
        ArticleChange.removed.is_(False),
        ArticleChange.position < _LOGGED.c.seq,
    )
)
# What is folded, but the row at `upto`: the greatest one when the log is folded through.
_FOLDED = delete(ArticleChangeLog).where(ArticleChangeLog.seq < _UPTO)


async def fold_batch(session: AsyncSession | AsyncConnection) -> bool:
    """Folds up to BATCH rows of the log in the caller's write transaction; whether rows are left to fold."""
    lowest, greatest = (await session.execute(_TAIL)).one()
    if lowest is None or lowest >= greatest:
        return False
    upto = min(int(greatest), int(lowest) + BATCH)
    await session.execute(_FOLD, {"upto": upto})
    await session.execute(_FOLDED, {"upto": upto})
    return upto < int(greatest)


_ENDS = Query(_TAIL)


async def has_tail(reads: Reads) -> bool:
    """Whether the log holds rows to fold (more than the greatest one it keeps); a read, no lock."""
    ((lowest, greatest),) = await reads.rows(_ENDS)
    return lowest is not None and lowest < greatest


async def fold_all(connection: AsyncConnection) -> None:
    """Folds the whole log in the caller's transaction: a bulk writer's last step before its commit, so that
    its millions of log rows are never read (the demo load, the import)."""
    while await fold_batch(connection):
        pass
