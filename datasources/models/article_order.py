"""What the article list is sorted by, kept so that every sort it allows is an index walk.

A page of the list reads its rows in order from an index, holding ties in ArtNr order, and stops after the
page: it never sorts the catalogue. The plain columns of `article` have an index per direction below. The
two keys that are not columns of `article` are kept per article and language in `article_sort_key`: ArtBez
in that language (with the German fallback the output has) and the effective tax rate (the tax code's, else
the standard rate). Database triggers (migration 0007) keep them current on every write, whoever writes:
the gateway, the demo, the ERP itself. The application only reads them.

NULLs come first ascending and last descending on both databases. SQLite orders them so by itself, and
its indexes cannot say NULLS FIRST; PostgreSQL needs it said, so the migration writes each index's DDL per
database and these declarations are what PostgreSQL gets (SQLAlchemy cannot make them on SQLite).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, cast

from sqlalchemy import Column, ForeignKey, Index, String, Table
from sqlalchemy.orm import Mapped, mapped_column

from datasources.models.base import Base
from datasources.models.catalogue import Article

GERMAN = "ger"  # the fallback language of ArtBez; its keys exist for every article


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
    designation: Mapped[str] = mapped_column(String(255))
    tax_rate: Mapped[Decimal | None] = mapped_column()  # WUSTSatz as output; NULL without any standard rate
    number: Mapped[str] = mapped_column(String(15))  # ArtNr, copied: ties are broken in the index itself


def _order_indexes(name: str, column: Column[Any], *, prefix: tuple[Column[Any], ...] = ()) -> tuple[Index, Index]:
    """The index of one sort key ascending and the one descending, ties in ArtNr order in both."""
    number = column.table.c.number
    if column.nullable:
        ascending, descending = column.asc().nulls_first(), column.desc().nulls_last()
    else:
        ascending, descending = column.asc(), column.desc()
    return Index(name, *prefix, ascending, number), Index(f"{name}_desc", *prefix, descending, number)


_keys = cast(Table, ArticleSortKey.__table__).c
_article = cast(Table, Article.__table__).c
# The sortable columns of `article` (ArtNr itself is served by its unique index).
ORDERED_COLUMNS = (
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
    *_order_indexes("ix_article_sort_key_designation", _keys.designation, prefix=(_keys.language,)),
    *_order_indexes("ix_article_sort_key_tax_rate", _keys.tax_rate, prefix=(_keys.language,)),
    *(index for name in ORDERED_COLUMNS for index in _order_indexes(f"ix_article_order_{name}", _article[name])),
)
