"""Records are read from rows by position: every statement read into a record has the record's fields as its
columns, in the record's order, so a column added in the wrong place cannot swap two fields silently."""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, NamedTuple

import pytest
from sqlalchemy import select

import datasources
from datasources.catalogue import articles, records
from datasources.catalogue.articles import ArticleFilter, ArticleQuery
from datasources.catalogue.ordering import Sort, SortField
from datasources.models import Article, ArticleSortKey
from datasources.reads import Query, record_columns
from datasources.reads.records import check_record_columns, field_names
from datasources.sales import position_pricing
from datasources.sales.records import PositionRecord
from datasources.sales.taxes import TaxCodeRecord


class Pair(NamedTuple):
    number: str
    designation: str | None


def test_record_columns_come_in_the_records_order_named_by_its_fields() -> None:
    columns = record_columns(Pair, designation=ArticleSortKey.designation, number=Article.number)
    assert [column.key for column in columns] == ["number", "designation"]
    with pytest.raises(TypeError, match=r"missing \['designation'\], unknown \['colour'\]"):
        record_columns(Pair, number=Article.number, colour=Article.colour)


def test_a_statement_whose_columns_are_not_its_records_fields_in_order_is_refused() -> None:
    # The trap: a column added before ArtBez would have filled `designation` with the new field's value.
    swapped = select(ArticleSortKey.designation.label("designation"), Article.number.label("number"))
    with pytest.raises(ValueError, match=r"Pair is read by position"):
        Query(swapped, record=Pair)
    # The columns a statement has before the record's (an id to group by) are not the record's.
    unit_first = select(Article.id, *record_columns(Pair, number=Article.number, designation=Article.colour))
    Query(unit_first, record=Pair, lead=1)
    with pytest.raises(ValueError, match=r"\['id', 'number'\] \(after 0\)"):
        Query(unit_first, record=Pair)


def _module_queries() -> list[tuple[str, Query]]:
    """Every Query a module of datasources keeps, by name."""
    found: list[tuple[str, Query]] = []
    for info in pkgutil.walk_packages(datasources.__path__, "datasources."):
        if ".migrations" in info.name:
            continue
        module = importlib.import_module(info.name)
        found.extend((f"{info.name}.{name}", value) for name, value in vars(module).items() if isinstance(value, Query))
    return found


def _page_queries() -> list[tuple[str, Query]]:
    """The article pages' statements, made per kind of page."""
    kinds = [
        ArticleQuery(),
        ArticleQuery(language="fre", sort=(Sort(SortField.GROUP, descending=True),), limit=10),
        ArticleQuery(filter=ArticleFilter(search="hammer", available=True, numbers=("A-1",)), limit=5),
    ]
    return [(f"page {kind}", articles.page_query(kind)[0]) for kind in kinds]


def test_every_statement_read_into_a_record_has_its_fields_as_columns() -> None:
    queries = _module_queries() + _page_queries()
    read: set[Any] = set()
    for _, query in queries:
        if query.record is not None:
            check_record_columns(query.statement, query.record, query.lead)  # Query checked it when made
            read.add(query.record)
    # Every record the catalogue builds from rows, the sales documents' positions, tax codes and prices.
    from_rows = {
        records.ArticleRecord,
        records.PackagingUnitRecord,
        records.StockRecord,
        records.DeclarationRecord,
        records.MediaRecord,
        PositionRecord,
        TaxCodeRecord,
    }
    assert from_rows <= read, sorted(record.__name__ for record in from_rows - read)
    assert {"id", "designation"} <= set(field_names(records.ArticleRecord))
    assert position_pricing._ARTICLES is not None  # its statement checks TaxCodeRecord's columns when made
