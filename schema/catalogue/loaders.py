"""Per-request dataloaders: every per-article lookup is one statement per page, whatever its size."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from typing import Generic, TypeVar

from datasources.catalogue import details, media, price_tiers, stock
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
from datasources.reads import Reads
from schema.loaders import BatchLoader

V = TypeVar("V")
P = TypeVar("P", bound=Hashable)


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
            for article_id, value in (await type(self).fetch(self.db.reads, ids, param)).items():
                found[(article_id, param)] = value
        return found


async def _prices_by_unit(
    reads: Reads, ids: Sequence[int], view: CatalogueView
) -> dict[int, dict[str | None, list[PriceTier]]]:
    by_unit: dict[int, dict[str | None, list[PriceTier]]] = defaultdict(dict)
    for (article_id, unit), tiers in (await price_tiers.prices_by_article(reads, ids, view)).items():
        by_unit[article_id][unit] = tiers
    return by_unit


class DesignationByArticleIdLoader(ByArticleIdAndParamLoader[str, str | None]):
    fetch = staticmethod(details.designations)


class PricesByArticleIdLoader(ByArticleIdAndParamLoader[CatalogueView, dict[str | None, list[PriceTier]]]):
    """Chosen price tiers per packaging unit (None: the base unit) for the request's view."""

    fetch = staticmethod(_prices_by_unit)
    missing = dict


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
        self.prices = PricesByArticleIdLoader(db)
        self.attributes = AttributesByArticleIdLoader(db)
        self.packaging = PackagingByArticleIdLoader(db)
        self.stock = StockByArticleIdLoader(db)
        self.declarations = DeclarationsByArticleIdLoader(db)
        self.media = MediaByArticleIdLoader(db)
