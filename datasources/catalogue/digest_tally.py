"""What the whole catalogue's facets and statistics add up from, per article, kept in sums that an article's
change corrects: taken out with what it was, put in with what it is (digest.py keeps them up to date).

Each answer is read off the sums without a walk over the articles: counts per value, and the list prices in
order (sortedcontainers' SortedList), whose ends are the lowest and highest and whose positions count a band.
Prices and stock are kept as whole numbers of their smallest unit (PRICE_PLACES, STOCK_PLACES decimals): exact,
a third of a Decimal's memory, and compared faster; they are decimals again in the answers.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_CEILING, Decimal
from typing import NamedTuple

from sortedcontainers import SortedList

from datasources.catalogue.aggregates import Bucket, ordered_buckets
from datasources.catalogue.facets import BandCount, FacetColumn, PriceRange, ValueCount, banded, ordered_counts

PRICE_PLACES = 4  # Money's scale (models/base.py)
STOCK_PLACES = 8  # a quantity (scale 4) times a packaging unit's factor (scale 4)


class Facts(NamedTuple):
    """One exposed article as the facets and statistics count it, in one view of the prices."""

    group: str | None
    article_class: str | None
    price: int | None  # the list price (list_price.py) in 10^-PRICE_PLACES; None: none in the view
    stock: int  # after reservations, in released warehouses, in base units (stock.py), in 10^-STOCK_PLACES
    available: bool  # some released warehouse holds a positive quantity (the filter's `available`)

    @classmethod
    def read(
        cls, group: str | None, article_class: str | None, price: Decimal | None, stock: object, available: object
    ) -> Facts:
        """From a row of the database: decimals (SQLite may give a float or an int for a sum)."""
        return cls(
            None if group is None else sys.intern(group),  # one string per value, not one per article
            None if article_class is None else sys.intern(article_class),
            None if price is None else _units(Decimal(price), PRICE_PLACES),
            _units(Decimal(str(stock or 0)), STOCK_PLACES),
            bool(available),
        )


def _units(value: Decimal, places: int) -> int:
    return int(value.scaleb(places).to_integral_value())


def _decimal(units: int, places: int) -> Decimal:
    return Decimal(units).scaleb(-places)


@dataclass
class Tally:
    """The sums of one bucket: all articles, or those of one group or class."""

    articles: int = 0
    prices: SortedList[int] = field(default_factory=SortedList)  # the list prices, ascending
    price_sum: int = 0
    stock: int = 0
    without_stock: int = 0

    def add(self, facts: Facts, sign: int) -> None:
        """Counts the article in (sign 1) or out (sign -1), with the facts it was counted in with."""
        self.articles += sign
        if facts.price is not None:
            if sign > 0:
                self.prices.add(facts.price)
            else:
                self.prices.remove(facts.price)
            self.price_sum += sign * facts.price
        self.stock += sign * facts.stock
        if not facts.available:
            self.without_stock += sign

    @property
    def without_price(self) -> int:
        return self.articles - len(self.prices)

    def bucket(self, value: str | None) -> Bucket:
        priced = len(self.prices)
        return Bucket(
            value,
            self.articles,
            _decimal(self.prices[0], PRICE_PLACES) if priced else None,
            _decimal(self.prices[-1], PRICE_PLACES) if priced else None,
            _decimal(self.price_sum, PRICE_PLACES) / priced if priced else None,
            _decimal(self.stock, STOCK_PLACES),
            self.without_price,
            self.without_stock,
        )


@dataclass
class Tallies:
    """All articles' sums, and each group's and class's."""

    total: Tally = field(default_factory=Tally)
    groups: dict[str | None, Tally] = field(default_factory=dict)
    classes: dict[str | None, Tally] = field(default_factory=dict)

    @classmethod
    def of(cls, facts: Iterable[Facts]) -> Tallies:
        """The sums of these articles, each list of prices sorted once (not added one by one)."""
        tallies = cls()
        prices: dict[int, list[int]] = {}  # by id() of the tally
        for one in facts:
            for tally in tallies._tallies(one):
                tally.articles += 1
                if one.price is not None:
                    prices.setdefault(id(tally), []).append(one.price)
                    tally.price_sum += one.price
                tally.stock += one.stock
                tally.without_stock += not one.available
        for tally in (tallies.total, *tallies.groups.values(), *tallies.classes.values()):
            tally.prices = SortedList(prices.get(id(tally), ()))
        return tallies

    def add(self, facts: Facts, sign: int) -> None:
        for tally in self._tallies(facts):
            tally.add(facts, sign)
        for by, value in ((self.groups, facts.group), (self.classes, facts.article_class)):
            if not by[value].articles:
                del by[value]

    def _tallies(self, facts: Facts) -> tuple[Tally, Tally, Tally]:
        group = self.groups.get(facts.group)
        if group is None:
            group = self.groups[facts.group] = Tally()
        article_class = self.classes.get(facts.article_class)
        if article_class is None:
            article_class = self.classes[facts.article_class] = Tally()
        return self.total, group, article_class

    def value_counts(self, column: FacetColumn) -> list[ValueCount]:
        return ordered_counts(ValueCount(value, tally.articles) for value, tally in self._by(column).items())

    def availability(self) -> list[ValueCount]:
        found = {True: self.total.articles - self.total.without_stock, False: self.total.without_stock}
        return [ValueCount(value, found[value]) for value in (True, False) if found[value]]

    def price_range(self) -> PriceRange:
        prices = self.total.prices
        if not prices:
            return PriceRange(None, None, self.total.without_price)
        lowest, highest = _decimal(prices[0], PRICE_PLACES), _decimal(prices[-1], PRICE_PLACES)
        return PriceRange(lowest, highest, self.total.without_price)

    def band_counts(self, bounds: Sequence[Decimal]) -> tuple[list[BandCount], int]:
        """As facets.band_counts: band i holds bound i-1 <= price < bound i (a bound between two units of a
        price lies above the lower: ceiling)."""
        prices = self.total.prices
        below = [prices.bisect_left(_ceiling_units(bound)) for bound in bounds]
        edges = [0, *below, len(prices)]
        found = {band: edges[band + 1] - edges[band] for band in range(len(bounds) + 1)}
        return banded(found, bounds), self.total.without_price

    def statistics(self, group_by: FacetColumn | None) -> list[Bucket]:
        if group_by is None:
            return [self.total.bucket(None)] if self.total.articles else []
        return ordered_buckets(tally.bucket(value) for value, tally in self._by(group_by).items())

    def _by(self, column: FacetColumn) -> dict[str | None, Tally]:
        return self.groups if column is FacetColumn.GROUP else self.classes


def _ceiling_units(bound: Decimal) -> int:
    """The least price in units that is not below `bound`."""
    return int(bound.scaleb(PRICE_PLACES).to_integral_value(rounding=ROUND_CEILING))
