"""Article media: records (an image and/or a text under one IDKey) and the files themselves."""

from __future__ import annotations

import mimetypes
from collections import defaultdict
from collections.abc import Sequence

from sqlalchemy import and_, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from datasources.catalogue.articles import is_exposed
from datasources.catalogue.records import MediaFile, MediaRecord
from datasources.errors import NotFound
from datasources.models import Article, ArticleAttribute, Media

USAGE_ATTRIBUTE = "VERWENDUNG"
IMAGE, TEXT = "Bild", "Text"


async def media_by_article(session: AsyncSession, article_ids: Sequence[int]) -> dict[int, list[MediaRecord]]:
    stmt = (
        select(
            Media.id,
            Media.article_id,
            Media.file_name,
            Media.image_format,
            Media.text_format,
            Media.text,
            # The article's VERWENDUNG attribute supplies the usage of records that name none.
            func.coalesce(Media.usage, ArticleAttribute.contents).label("usage"),
            Media.language,
            Media.country,
            Media.comment,
            Media.modified_at,
            Media.image.is_not(None).label("has_image"),
        )
        .outerjoin(
            ArticleAttribute,
            and_(ArticleAttribute.article_id == Media.article_id, ArticleAttribute.key == USAGE_ATTRIBUTE),
        )
        .where(Media.article_id.in_(article_ids))
        .order_by(Media.article_id, Media.id)
    )
    result: dict[int, list[MediaRecord]] = defaultdict(list)
    for row in await session.execute(stmt):
        result[row.article_id].append(MediaRecord(**row._mapping))
    return result


async def media_file(session: AsyncSession, media_id: int, kind: str | None) -> MediaFile:
    """The image or text of a media record of an exposed article.

    `kind` is Bild, Text, or one of the record's formats (png, txt, ...); without it the image is
    returned where there is one, else the text.
    """
    stmt = (
        select(Media.file_name, Media.image, Media.image_format, Media.text, Media.text_format)
        .join(Article, Article.id == Media.article_id)
        .where(Media.id == media_id, is_exposed())
    )
    row = (await session.execute(stmt)).one_or_none()
    if row is None:
        raise NotFound(f"media record {media_id} does not exist", field="id")
    wanted = (kind or "").strip().lower()
    wants_image = wanted in ("", IMAGE.lower()) or wanted == (row.image_format or "").lower()
    wants_text = wanted in ("", TEXT.lower()) or wanted == (row.text_format or "").lower()
    if wants_image and row.image is not None:
        return MediaFile(row.file_name, _content_type(row.image_format, "image/*"), row.image)
    if wants_text and row.text is not None:
        content_type = _content_type(row.text_format, "text/plain")
        return MediaFile(row.file_name, f"{content_type}; charset=utf-8", row.text.encode("utf-8"))
    raise NotFound(f"media record {media_id} has no file of type {kind!r}", field="kind")


def _content_type(file_format: str | None, default: str) -> str:
    guessed, _ = mimetypes.guess_type(f"file.{(file_format or '').lower()}", strict=False)
    if guessed is None:
        return "application/octet-stream" if default == "image/*" else default
    return guessed
