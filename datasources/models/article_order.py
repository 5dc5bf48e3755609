"""What the article list is sorted by, and which articles it lists, kept so that every sort it allows is an
index walk over the exposed articles only.

A page of the list reads its rows in order from an index, holding ties in ArtNr order, and stops after the
page: it never sorts the catalogue, and it never reads the articles a shop does not expose (a shop often
exposes a small part of the ERP's catalogue: with 1 in 100 exposed, a walk of an index of all articles would
read a hundred rows for each one it keeps). So every index of the list leads with the exposure (the article
attribute `RESTWEBSHOP`), kept in the two tables the list reads:

- `article_listing`, one row per article: the exposure, ArtNr and copies of the sortable columns of `article`.
- `article_sort_key`, one row per article and language: the exposure, ArtNr, ArtBez in that language (with
  the German fallback the output has) and the effective tax rate (the tax code's, else the standard rate).

Database triggers (migrations 0007 and 0010) keep both current on every write to `article`,
`article_attribute`, `article_designation` and `tax_code`, whoever writes: the gateway, the demo, the ERP
itself. The application only reads them.

Text sorts by code point on both databases: SQLite compares bytes; on PostgreSQL the text columns here
have the collation "C" (byte order), whatever collation the database was created with (an ICU `de-CH` one
would put `Äpfel` right after `apfel`).

NULLs come first ascending and last descending on both databases. SQLite orders them so by itself, and
its indexes cannot say NULLS FIRST; PostgreSQL needs it said, so the migrations write each index's DDL per
database and these declarations are what PostgreSQL gets (SQLAlchemy cannot make them on SQLite).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any, cast

from sqlalchemy import Boolean, Column, ForeignKey, Index, String, Table, false
from sqlalchemy.orm import Mapped, mapped_column
from sqlalchemy.types import TypeEngine

from datasources.models.base import Base, Quantity

GERMAN = "ger"  # the fallback language of ArtBez; its keys exist for every article


def code_point_text(length: int) -> TypeEngine[str]:
    """Text of `length` that sorts by code point: byte order ("C") on PostgreSQL, SQLite's own elsewhere."""
    return String(length).with_variant(String(length, collation="C"), "postgresql")


class ArticleSortLanguage(Base):
    """The languages `article_sort_key` has rows in: German, and every language a designation was ever
    written in. A language not listed sorts as German (every article falls back to its German text)."""

    __tablename__ = "article_sort_language"
    language: Mapped[str] = mapped_column(String(3), primary_key=True)


class ArticleSortKey(Base):
    """One row per article and listed language; written by the triggers only."""

    __tablename__ = "article_sort_key"
    article_id: Mapped[int] = mapped_column(ForeignKey("article.id", ondelete="CASCADE"), primary_key=True)
    language: Mapped[str] = mapped_column(String(3), primary_key=True)
    # ArtBez as output in `language`: its own text, else the German one, else "".
    designation: Mapped[str] = mapped_column(code_point_text(255))
    tax_rate: Mapped[Decimal | None] = mapped_column()  # WUSTSatz as output; NULL without any standard rate
    number: Mapped[str] = mapped_column(code_point_text(15))  # ArtNr, copied: ties are broken in the index itself
    exposed: Mapped[bool] = mapped_column(Boolean, server_default=false())  # the article has RESTWEBSHOP


class ArticleListing(Base):
    """One row per article: its exposure and copies of its sortable columns; written by the triggers only."""

    __tablename__ = "article_listing"
    article_id: Mapped[int] = mapped_column(ForeignKey("article.id", ondelete="CASCADE"), primary_key=True)
    exposed: Mapped[bool] = mapped_column(Boolean, server_default=false())  # the article has RESTWEBSHOP
    number: Mapped[str] = mapped_column(code_point_text(15))  # ArtNr
    group: Mapped[str | None] = mapped_column(code_point_text(15))
    article_class: Mapped[str | None] = mapped_column(code_point_text(12))
    unit: Mapped[str] = mapped_column(code_point_text(12))
    status: Mapped[int] = mapped_column()
    colour: Mapped[str | None] = mapped_column(code_point_text(12))
    stock_managed: Mapped[bool] = mapped_column(Boolean)
    procurement_type: Mapped[str | None] = mapped_column(code_point_text(1))
    processing_type: Mapped[str] = mapped_column(code_point_text(1))
    weight: Mapped[Decimal | None] = mapped_column(Quantity)
    modified_at: Mapped[dt.datetime] = mapped_column()


def _order_indexes(name: str, column: Column[Any], *, prefix: tuple[Column[Any], ...]) -> tuple[Index, Index]:
    """The index of one sort key ascending and the one descending, ties in ArtNr order in both."""
    number = column.table.c.number
    if column.nullable:
        ascending, descending = column.asc().nulls_first(), column.desc().nulls_last()
    else:
        ascending, descending = column.asc(), column.desc()
    ties = () if column is number else (number,)
    return Index(name, *prefix, ascending, *ties), Index(f"{name}_desc", *prefix, descending, *ties)


_keys = cast(Table, ArticleSortKey.__table__).c
_listing = cast(Table, ArticleListing.__table__).c
# The sortable columns of `article`, copied into `article_listing` (ArtNr among them).
ORDERED_COLUMNS = (
    "number",
    "group",
    "article_class",
    "unit",
    "status",
    "colour",
    "stock_managed",
    "procurement_type",
    "processing_type",
    "weight",
    "modified_at",
)
ORDER_INDEXES = (
    *_order_indexes("ix_article_sort_key_designation", _keys.designation, prefix=(_keys.exposed, _keys.language)),
    *_order_indexes("ix_article_sort_key_tax_rate", _keys.tax_rate, prefix=(_keys.exposed, _keys.language)),
    *(
        index
        for name in ORDERED_COLUMNS
        for index in _order_indexes(f"ix_article_listing_{name}", _listing[name], prefix=(_listing.exposed,))
    ),
)
