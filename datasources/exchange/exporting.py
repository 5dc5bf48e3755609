"""`gateway export`: the catalogue's records in ArtNr order, read a chunk at a time (keyset: each chunk
starts after the last ArtNr of the one before), so memory stays bounded whatever the catalogue's size. One
read transaction: the file shows the catalogue at one moment."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from sqlalchemy import ColumnElement, exists, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from datasources import phkeys
from datasources.exchange.stored import Record, stored_articles
from datasources.models import Article, ArticleAttribute

CHUNK_SIZE = 500
FILTERS = ("ArtNr", "ArtGruppe", "ArtKlasse", "WebShop")


class BadFilter(ValueError):
    """A --filter the export does not know."""


@dataclass(frozen=True, slots=True)
class Filter:
    """NAME=VALUE: ArtNr (a trailing * matches a prefix), ArtGruppe, ArtKlasse, WebShop (true or false)."""

    name: str
    value: str

    @classmethod
    def parse(cls, text: str) -> Filter:
        name, sep, value = text.partition("=")
        if not sep or name not in FILTERS:
            raise BadFilter(f"{text!r}: expected NAME=VALUE with NAME one of {', '.join(FILTERS)}")
        if name == "WebShop" and value.lower() not in ("true", "false"):
            raise BadFilter(f"{text!r}: WebShop is true or false")
        return cls(name, value)

    def condition(self) -> ColumnElement[bool]:
        if self.name == "WebShop":
            exposed = exists().where(ArticleAttribute.article_id == Article.id, ArticleAttribute.key == phkeys.EXPOSED)
            return exposed if self.value.lower() == "true" else ~exposed
        column = {"ArtNr": Article.number, "ArtGruppe": Article.group, "ArtKlasse": Article.article_class}[self.name]
        if self.name == "ArtNr" and self.value.endswith("*"):
            prefix = self.value[:-1]
            escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            return column.like(f"{escaped}%", escape="\\")
        return column == self.value


async def count_articles(conn: AsyncConnection, filters: Sequence[Filter] = ()) -> int:
    stmt = select(func.count()).select_from(Article).where(*(f.condition() for f in filters))
    return int(await conn.scalar(stmt) or 0)


async def export_records(conn: AsyncConnection, filters: Sequence[Filter] = ()) -> AsyncIterator[Record]:
    conditions = [f.condition() for f in filters]
    last: str | None = None
    while True:
        stmt = select(Article.number).where(*conditions).order_by(Article.number).limit(CHUNK_SIZE)
        if last is not None:
            stmt = stmt.where(Article.number > last)
        numbers = list(await conn.scalars(stmt))
        if not numbers:
            return
        stored = await stored_articles(conn, numbers)
        for number in numbers:
            if number in stored:
                yield stored[number].record
        last = numbers[-1]
