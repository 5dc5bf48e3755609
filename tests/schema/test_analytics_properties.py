"""Facets and statistics on random catalogues and filters: every count equals `articles`' totalCount with the
filter narrowed to that value, and a recount in Python of the rows written; on SQLite and PostgreSQL alike."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from itertools import pairwise
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete

from datasources.database import Database
from datasources.models import (
    Article,
    ArticleAttribute,
    ArticleDesignation,
    Media,
    PackagingUnit,
    Price,
    Reservation,
    Stock,
)
from tests.factories import Factory
from tests.schema.test_catalogue_queries import graphql

PRICES = [Decimal(p) for p in ("0.05", "5", "9.95", "10", "10.5", "19.99", "20", "35.5", "100")]
DATES = [dt.datetime(2026, month, 1, tzinfo=dt.UTC) for month in (1, 6, 11)]
STD, WV = 1, 2
KAR = Decimal(12)


@dataclass
class Item:
    number: str
    group: str | None
    article_class: str | None
    exposed: bool
    modified_at: dt.datetime
    colour: str  # in the designation: what a search finds
    prices: dict[tuple[int, str], list[Decimal]]  # (list, currency) -> base-unit tiers
    unit_price: Decimal | None  # a KAR price: never a list price
    stock: list[tuple[bool, str | None, int, list[int]]]  # released, unit, on hand, reservations
    media: bool
    has_kar: bool = field(default=False)


def _items() -> st.SearchStrategy[list[Item]]:
    prices = st.dictionaries(
        st.sampled_from([(STD, "CHF"), (WV, "CHF"), (STD, "EUR")]),
        st.lists(st.sampled_from(PRICES), min_size=1, max_size=2),
        max_size=3,
    )
    stock = st.lists(
        st.tuples(
            st.booleans(),
            st.sampled_from([None, "KAR"]),
            st.sampled_from([0, 1, 3]),
            st.lists(st.sampled_from([1, 2]), max_size=2),
        ),
        max_size=3,
    )
    item = st.builds(
        Item,
        number=st.just(""),
        group=st.sampled_from([None, "G1", "G2"]),
        article_class=st.sampled_from([None, "K1", "K2"]),
        exposed=st.sampled_from([True, True, True, False]),
        modified_at=st.sampled_from(DATES),
        colour=st.sampled_from(["rot", "blau"]),
        prices=prices,
        unit_price=st.sampled_from([None, Decimal(7)]),
        stock=stock,
        media=st.booleans(),
        has_kar=st.booleans(),
    )
    return st.lists(item, min_size=1, max_size=12)


def _filters(numbers: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    money = st.sampled_from([float(p) for p in PRICES])
    optional = {
        "group": st.sampled_from(["G1", "G2"]),
        "articleClass": st.sampled_from(["K1", "K2"]),
        "available": st.booleans(),
        "priceFrom": money,
        "priceTo": money,
        "modifiedSince": st.sampled_from([d.isoformat().replace("+00:00", "Z") for d in DATES]),
        "hasMedia": st.booleans(),
        "search": st.sampled_from(["rot", "BLAU", "p-0"]),
        "numbers": st.lists(st.sampled_from(numbers), max_size=4) if numbers else st.just([]),
    }
    # Two conditions at most: with more, most random filters match nothing.
    keys = st.lists(st.sampled_from(sorted(optional)), max_size=2, unique=True)
    return keys.flatmap(lambda chosen: st.fixed_dictionaries({key: optional[key] for key in chosen}))


async def _write(db: Database, items: list[Item], warehouses: tuple[int, int]) -> None:
    async with db.writer() as session, session.begin():
        for table in (Reservation, Stock, Price, Media, PackagingUnit, ArticleAttribute, ArticleDesignation, Article):
            await session.execute(delete(table))
    for index, item in enumerate(items):
        item.number = f"P-{index:03d}"
    async with db.writer() as session, session.begin():
        articles = [
            Article(number=i.number, group=i.group, article_class=i.article_class, modified_at=i.modified_at)
            for i in items
        ]
        session.add_all(articles)
        await session.flush()
        rows: list[Any] = []
        for article, item in zip(articles, items, strict=True):
            rows.append(ArticleDesignation(article_id=article.id, language="ger", text=f"Artikel {item.colour}"))
            if item.exposed:
                rows.append(ArticleAttribute(article_id=article.id, key="RESTWEBSHOP", contents="1"))
            if item.has_kar:
                rows.append(PackagingUnit(article_id=article.id, code="KAR", factor=KAR))
            for (list_id, currency), amounts in item.prices.items():
                for quantity, amount in enumerate(amounts, start=1):
                    rows.append(
                        Price(
                            article_id=article.id,
                            price_list_id=list_id,
                            currency=currency,
                            min_quantity=Decimal(quantity),
                            amount=amount,
                        )
                    )
            if item.unit_price is not None:
                rows.append(
                    Price(
                        article_id=article.id,
                        price_list_id=STD,
                        currency="CHF",
                        packaging_unit="KAR",
                        amount=item.unit_price,
                    )
                )
            seen: set[tuple[bool, str | None]] = set()
            for released, unit, on_hand, reserved in item.stock:
                if (released, unit) in seen:
                    continue  # one row per article, warehouse and unit
                seen.add((released, unit))
                warehouse = warehouses[0] if released else warehouses[1]
                rows.append(
                    Stock(article_id=article.id, warehouse_id=warehouse, packaging_unit=unit, on_hand=Decimal(on_hand))
                )
                rows += [
                    Reservation(article_id=article.id, warehouse_id=warehouse, packaging_unit=unit, quantity=Decimal(q))
                    for q in reserved
                ]
            if item.media:
                rows.append(Media(article_id=article.id, file_name=f"{item.number}.txt", text="x", text_format="TXT"))
        session.add_all(rows)


@dataclass(frozen=True)
class View:
    currency: str
    chain: tuple[int, ...]


def list_price(item: Item, view: View) -> Decimal | None:
    for list_id in view.chain:
        amounts = item.prices.get((list_id, view.currency))
        if amounts:
            return min(amounts)
    return None


def _stock_rows(item: Item) -> list[tuple[str | None, int]]:
    """Net quantity per released stock row (the first row per warehouse and unit, as written)."""
    seen: set[tuple[bool, str | None]] = set()
    rows = []
    for released, unit, on_hand, reserved in item.stock:
        if (released, unit) in seen:
            continue
        seen.add((released, unit))
        if released:
            rows.append((unit, on_hand - sum(reserved)))
    return rows


def available(item: Item) -> bool:
    return any(net > 0 for _, net in _stock_rows(item))


def stock(item: Item) -> Decimal:
    return sum(
        (Decimal(net) * (KAR if unit == "KAR" and item.has_kar else 1) for unit, net in _stock_rows(item)), Decimal(0)
    )


def matches(item: Item, flt: dict[str, Any], view: View) -> bool:
    price = list_price(item, view)
    checks = [
        item.exposed,
        "group" not in flt or item.group == flt["group"],
        "articleClass" not in flt or item.article_class == flt["articleClass"],
        "available" not in flt or available(item) == flt["available"],
        "priceFrom" not in flt or (price is not None and price >= Decimal(repr(flt["priceFrom"]))),
        "priceTo" not in flt or (price is not None and price < Decimal(repr(flt["priceTo"]))),
        "modifiedSince" not in flt or item.modified_at >= dt.datetime.fromisoformat(flt["modifiedSince"]),
        "hasMedia" not in flt or item.media == flt["hasMedia"],
        "search" not in flt or flt["search"].lower() in f"{item.number} Artikel {item.colour}".lower(),
        "numbers" not in flt or item.number in flt["numbers"],
    ]
    return all(checks)


def narrowed(flt: dict[str, Any], **values: Any) -> dict[str, Any]:
    """`flt` and `values` both: a price bound within the filter's own keeps the narrower."""
    result = dict(flt)
    for key, value in values.items():
        if key == "priceFrom" and key in flt:
            value = max(value, flt[key])
        elif key == "priceTo" and key in flt:
            value = min(value, flt[key])
        result[key] = value
    return result


FACETS = (
    "query($filter: ArticleFilterInput, $currency: String, $customer: String) {"
    " articleFacets(filter: $filter, currency: $currency, customerNumber: $customer) {"
    " total groups { value count } classes { value count } availability { value count }"
    " priceBands { from to count } given: priceBands(bounds: [5, 10.5, 20]) { from to count } withoutPrice }"
    " articleStatistics(filter: $filter, currency: $currency, customerNumber: $customer, groupBy: GROUP) {"
    " value count minPrice maxPrice avgPrice stock withoutPrice withoutStock } }"
)


def _counts_document(filters: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    """One document counting each filter (as `articles` does), in the same view."""
    declared = ", ".join(f"$f{i}: ArticleFilterInput" for i in range(len(filters)))
    fields = " ".join(
        f"c{i}: articles(filter: $f{i}, currency: $currency, customerNumber: $customer, limit: 0) {{ totalCount }}"
        for i in range(len(filters))
    )
    text = (
        f"query({declared}{', ' if filters else ''}$currency: String, $customer: String) {{ {fields or '__typename'} }}"
    )
    return text, {f"f{i}": f for i, f in enumerate(filters)}


def _value_counts(values: list[Any]) -> list[dict[str, Any]]:
    counts: dict[Any, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    ordered = sorted(counts.items(), key=lambda vc: (-vc[1], vc[0] is not None, vc[0] or ""))
    return [{"value": value, "count": count} for value, count in ordered]


def _in_band(price: Decimal | None, band: dict[str, Any]) -> bool:
    low, high = band["from"], band["to"]
    return (
        price is not None
        and (low is None or price >= Decimal(repr(low)))
        and (high is None or price < Decimal(repr(high)))
    )


def _is_nice(step: Decimal) -> bool:
    digits = step.normalize().as_tuple().digits
    return digits in ((1,), (2,), (5,))


def _statistics(matched: list[Item], view: View) -> list[dict[str, Any]]:
    buckets: dict[str | None, list[Item]] = {}
    for item in matched:
        buckets.setdefault(item.group, []).append(item)
    result = []
    for value, members in sorted(buckets.items(), key=lambda vm: (-len(vm[1]), vm[0] is not None, vm[0] or "")):
        prices = [p for p in (list_price(i, view) for i in members) if p is not None]
        result.append(
            {
                "value": value,
                "count": len(members),
                "minPrice": float(min(prices)) if prices else None,
                "maxPrice": float(max(prices)) if prices else None,
                "avgPrice": pytest.approx(float(sum(prices) / len(prices))) if prices else None,
                "stock": pytest.approx(float(sum((stock(i) for i in members), Decimal(0)))),
                "withoutPrice": len(members) - len(prices),
                "withoutStock": sum(1 for i in members if not available(i)),
            }
        )
    return result


VIEWS = {
    "default": ({}, View("CHF", (STD,))),
    "euro": ({"currency": "EUR"}, View("EUR", (STD,))),
    "reseller": ({"customer": "200001"}, View("CHF", (WV, STD))),
}


@pytest.fixture
async def reference(factory: Factory) -> tuple[int, int]:
    await factory.reference_data()
    released = await factory.warehouse("Hauptlager", 1)
    blocked = await factory.warehouse("Sperrlager", 9, released=False)
    await factory.customer("200001", price_list_type="WV")
    return released.id, blocked.id


@settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
async def test_facets_and_statistics_count_what_articles_and_python_count(
    client: httpx.AsyncClient,
    db: Database,
    auth: dict[str, str],
    reference: tuple[int, int],
    data: st.DataObject,
) -> None:
    items = data.draw(_items(), label="catalogue")
    await _write(db, items, reference)
    flt = data.draw(_filters([i.number for i in items]), label="filter")
    arguments, view = VIEWS[data.draw(st.sampled_from(sorted(VIEWS)), label="view")]
    answer = await graphql(client, auth, FACETS, filter=flt, **arguments)
    assert "errors" not in answer, answer
    facets, statistics = answer["data"]["articleFacets"], answer["data"]["articleStatistics"]
    matched = [item for item in items if matches(item, flt, view)]
    prices = [list_price(item, view) for item in matched]

    # The Python recount.
    assert facets["total"] == len(matched)
    assert facets["groups"] == _value_counts([i.group for i in matched])
    assert facets["classes"] == _value_counts([i.article_class for i in matched])
    flags = [available(i) for i in matched]
    assert facets["availability"] == [{"value": v, "count": flags.count(v)} for v in (True, False) if v in flags]
    assert facets["withoutPrice"] == prices.count(None)
    for bands in (facets["priceBands"], facets["given"]):
        assert [b["count"] for b in bands] == [sum(_in_band(p, b) for p in prices) for b in bands]
        assert sum(b["count"] for b in bands) + facets["withoutPrice"] == len(matched)
        edges = [(b["from"], b["to"]) for b in bands]
        assert all(low is None or high is None or low < high for low, high in edges)
        assert all(a[1] == b[0] for a, b in pairwise(edges))  # ordered, no gaps, no overlap
    auto = facets["priceBands"]
    assert bool(auto) == any(p is not None for p in prices)
    assert all(_is_nice(Decimal(repr(b["to"])) - Decimal(repr(b["from"]))) for b in auto)
    assert statistics == _statistics(matched, view)

    # Each count is `articles`' totalCount narrowed to its value.
    narrowings: list[tuple[int, dict[str, Any]]] = [(facets["total"], flt)]
    narrowings += [(g["count"], narrowed(flt, group=g["value"])) for g in facets["groups"] if g["value"]]
    narrowings += [(c["count"], narrowed(flt, articleClass=c["value"])) for c in facets["classes"] if c["value"]]
    narrowings += [(a["count"], narrowed(flt, available=a["value"])) for a in facets["availability"]]
    for band in facets["priceBands"] + facets["given"]:
        bounds = {k: v for k, v in (("priceFrom", band["from"]), ("priceTo", band["to"])) if v is not None}
        narrowings.append((band["count"], narrowed(flt, **bounds)))
    text, variables = _counts_document([f for _, f in narrowings])
    counted = await graphql(client, auth, text, **variables, **arguments)
    assert "errors" not in counted, counted
    assert [counted["data"][f"c{i}"]["totalCount"] for i in range(len(narrowings))] == [c for c, _ in narrowings]
