"""Per-request dataloaders: every per-article lookup is one statement per page, whatever its size."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from typing import Generic, TypeVar

from datasources.catalogue import details, media, price_tiers, stock, unit_prices
from datasources.catalogue.details import ArticlePackaging
from datasources.catalogue.records import (
    AttributeRecord,
    DeclarationRecord,
    MediaRecord,
    PriceTier,
    StockRecord,
)
from datasources.catalogue.view import CatalogueView
from datasources.database import Database
from schema.loaders import BatchLoader

V = TypeVar("V")
PricesByUnit = dict[str | None, list[PriceTier]]  # an article's chosen tiers per packaging unit (None: the base unit)
P = TypeVar("P", bound=Hashable)
# Articles whose packaging units and prices are read in one statement (unit_prices.py): a statement less for
# one article (GraphQL beside PostGraphile: 2.1x -> 1.6-1.8x its CPU), but a page of 100 ran slower so
# (1.04x -> 1.16-1.29x: PostgreSQL sorts the combined rows, each converts the other half's empty columns).
FOLDED_UP_TO = 20


class ByArticleIdLoader(BatchLoader[int, V], Generic[V]):
    """Loads one value per article id."""


class ByArticleIdAndParamLoader(BatchLoader[tuple[int, P], V], Generic[P, V]):
    """For lookups that also depend on a request parameter (language, view): batched per parameter,
    with `fetch(reads, ids, param)`."""

    async def _fetch(self, keys: Sequence[tuple[int, P]]) -> dict[tuple[int, P], V]:
        ids_by_param: dict[P, list[int]] = defaultdict(list)
        for article_id, param in keys:
            ids_by_param[param].append(article_id)
        found: dict[tuple[int, P], V] = {}
        for param, ids in ids_by_param.items():
            for article_id, value in (await self._fetch_with(ids, param)).items():
                found[(article_id, param)] = value
        return found

    async def _fetch_with(self, ids: Sequence[int], param: P) -> dict[int, V]:
        return await type(self).fetch(self.db.reads, ids, param)


class DesignationByArticleIdLoader(ByArticleIdAndParamLoader[str, str | None]):
    fetch = staticmethod(details.designations)


class PricesByArticleIdLoader(ByArticleIdAndParamLoader[CatalogueView, PricesByUnit]):
    """Chosen price tiers per packaging unit (None: the base unit) for the request's view. Read with the
    articles' packaging units (unit_prices.py), which answer `packaging` for the articles it was not asked
    for yet: whoever reads prices needs them too (an article's prices are its units' when it has any)."""

    missing = dict

    def __init__(self, db: Database, packaging: PackagingByArticleIdLoader) -> None:
        super().__init__(db)
        self._packaging = packaging

    async def _fetch_with(self, ids: Sequence[int], view: CatalogueView) -> dict[int, PricesByUnit]:
        if len(ids) > FOLDED_UP_TO:
            prices = await price_tiers.prices_by_article(self.db.reads, ids, view)
        else:
            packaging, prices = await unit_prices.units_and_prices(self.db.reads, ids, view)
            for article_id, found in packaging.items():
                self._packaging.prime(article_id, found)  # not when asked already: that answer is on its way
        by_unit: dict[int, PricesByUnit] = defaultdict(dict)
        for (article_id, unit), tiers in prices.items():
            by_unit[article_id][unit] = tiers
        return by_unit


class AttributesByArticleIdLoader(ByArticleIdLoader[list[AttributeRecord]]):
    fetch = staticmethod(details.attributes)
    missing = list


class PackagingByArticleIdLoader(ByArticleIdLoader[ArticlePackaging]):
    fetch = staticmethod(details.packaging)
    missing = staticmethod(lambda: ArticlePackaging(has_units=False, visible=()))


class StockByArticleIdLoader(ByArticleIdLoader[list[StockRecord]]):
    fetch = staticmethod(stock.stock_by_article)
    missing = list


class DeclarationsByArticleIdLoader(ByArticleIdLoader[list[DeclarationRecord]]):
    fetch = staticmethod(details.declarations)
    missing = list


class MediaByArticleIdLoader(ByArticleIdLoader[list[MediaRecord]]):
    fetch = staticmethod(media.media_by_article)
    missing = list


class CatalogueLoaders:
    """The catalogue's loaders of one request."""

    def __init__(self, db: Database) -> None:
        self.designation = DesignationByArticleIdLoader(db)
        self.packaging = PackagingByArticleIdLoader(db)
        self.prices = PricesByArticleIdLoader(db, self.packaging)
        self.attributes = AttributesByArticleIdLoader(db)
        self.stock = StockByArticleIdLoader(db)
        self.declarations = DeclarationsByArticleIdLoader(db)
        self.media = MediaByArticleIdLoader(db)
