"""Per-article details, each loaded for a whole batch of articles in one statement."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import and_, select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.catalogue.records import AttributeRecord, DeclarationRecord, PackagingUnitRecord
from datasources.catalogue.view import DEFAULT_LANGUAGE
from datasources.models import ArticleAttribute, ArticleDesignation, Declaration, PackagingUnit

PACKAGING_ATTRIBUTE = "WEBSHOPVPE"
_UNIT_COLUMNS = (
    PackagingUnit.article_id,
    PackagingUnit.code,
    PackagingUnit.ean,
    PackagingUnit.designation,
    PackagingUnit.factor,
    PackagingUnit.weight_factor,
    PackagingUnit.weight,
    PackagingUnit.content_weight,
)


@dataclass(frozen=True, slots=True)
class ArticlePackaging:
    has_units: bool  # HatVPE: the article has packaging units at all
    visible: tuple[PackagingUnitRecord, ...]  # those WEBSHOPVPE lets through (all when it is empty)


async def designations(session: AsyncSession, article_ids: Sequence[int], language: str) -> dict[int, str]:
    """ArtBez in `language`, falling back to German where the article has no text in it."""
    languages = {language, DEFAULT_LANGUAGE}
    stmt = select(ArticleDesignation.article_id, ArticleDesignation.language, ArticleDesignation.text).where(
        ArticleDesignation.article_id.in_(article_ids), ArticleDesignation.language.in_(languages)
    )
    found = {(row.article_id, row.language): row.text for row in await session.execute(stmt)}
    result = {}
    for article_id in article_ids:
        text = found.get((article_id, language), found.get((article_id, DEFAULT_LANGUAGE)))
        if text is not None:
            result[article_id] = text
    return result


async def attributes(session: AsyncSession, article_ids: Sequence[int]) -> dict[int, list[AttributeRecord]]:
    stmt = (
        select(ArticleAttribute.article_id, ArticleAttribute.key, ArticleAttribute.contents)
        .where(ArticleAttribute.article_id.in_(article_ids))
        .order_by(ArticleAttribute.article_id, ArticleAttribute.key)
    )
    result: dict[int, list[AttributeRecord]] = defaultdict(list)
    for row in await session.execute(stmt):
        result[row.article_id].append(AttributeRecord(row.key, row.contents))
    return result


async def packaging(session: AsyncSession, article_ids: Sequence[int]) -> dict[int, ArticlePackaging]:
    stmt = (
        select(*_UNIT_COLUMNS, ArticleAttribute.contents)
        .outerjoin(
            ArticleAttribute,
            and_(
                ArticleAttribute.article_id == PackagingUnit.article_id,
                ArticleAttribute.key == PACKAGING_ATTRIBUTE,
            ),
        )
        .where(PackagingUnit.article_id.in_(article_ids))
        .order_by(PackagingUnit.article_id, PackagingUnit.factor, PackagingUnit.code)
    )
    units: dict[int, list[PackagingUnitRecord]] = defaultdict(list)
    allowed: dict[int, frozenset[str]] = {}
    for row in await session.execute(stmt):
        allowed[row.article_id] = _allowed_codes(row.contents)
        units[row.article_id].append(
            PackagingUnitRecord(
                row.code,
                row.ean,
                row.designation,
                row.factor,
                row.weight_factor,
                row.weight,
                row.content_weight,
            )
        )
    return {
        article_id: ArticlePackaging(
            has_units=bool(units.get(article_id)),
            visible=tuple(u for u in units.get(article_id, ()) if _shows(u, allowed.get(article_id))),
        )
        for article_id in article_ids
    }


def _allowed_codes(contents: str | None) -> frozenset[str]:
    return frozenset(code.strip().upper() for code in (contents or "").split(",") if code.strip())


def _shows(unit: PackagingUnitRecord, allowed: frozenset[str] | None) -> bool:
    # An empty or missing WEBSHOPVPE list means every packaging unit is output.
    return not allowed or unit.code.upper() in allowed


async def declarations(session: AsyncSession, article_ids: Sequence[int]) -> dict[int, list[DeclarationRecord]]:
    stmt = (
        select(
            Declaration.article_id,
            Declaration.id,
            Declaration.language,
            Declaration.designation1,
            Declaration.designation2,
            Declaration.short_designation,
            Declaration.country,
        )
        .where(Declaration.article_id.in_(article_ids))
        .order_by(Declaration.article_id, Declaration.id)
    )
    result: dict[int, list[DeclarationRecord]] = defaultdict(list)
    for row in await session.execute(stmt):
        result[row.article_id].append(
            DeclarationRecord(
                row.id, row.language, row.designation1, row.designation2, row.short_designation, row.country
            )
        )
    return result
