"""Article media: records (an image and/or a text under one IDKey) and the files themselves."""

from __future__ import annotations

import mimetypes
from collections import defaultdict
from collections.abc import Sequence

from sqlalchemy import and_, bindparam, func, select

from datasources.catalogue.articles import is_exposed
from datasources.catalogue.records import MediaFile, MediaRecord
from datasources.errors import NotFound
from datasources.models import Article, ArticleAttribute, Media
from datasources.reads import Query, Reads, values_in

USAGE_ATTRIBUTE = "VERWENDUNG"
IMAGE, TEXT = "Bild", "Text"


_MEDIA = Query(
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
    .where(values_in(Media.article_id, "ids"))
    .order_by(Media.article_id, Media.id)
)


async def media_by_article(reads: Reads, article_ids: Sequence[int]) -> dict[int, list[MediaRecord]]:
    result: dict[int, list[MediaRecord]] = defaultdict(list)
    for row in await reads.rows(_MEDIA, ids=article_ids):
        result[row[1]].append(MediaRecord(*row))
    return result


_MEDIA_FILE = Query(
    select(Media.file_name, Media.image, Media.image_format, Media.text, Media.text_format)
    .join(Article, Article.id == Media.article_id)
    .where(Media.id == bindparam("id"), is_exposed())
)


async def media_file(reads: Reads, media_id: int, kind: str | None) -> MediaFile:
    """The image or text of a media record of an exposed article.

    `kind` is Bild, Text, or one of the record's formats (png, txt, ...); without it the image is
    returned where there is one, else the text.
    """
    found = await reads.rows(_MEDIA_FILE, id=media_id)
    if not found:
        raise NotFound(f"media record {media_id} does not exist", field="id")
    file_name, image, image_format, text, text_format = found[0]
    wanted = (kind or "").strip().lower()
    wants_image = wanted in ("", IMAGE.lower()) or wanted == (image_format or "").lower()
    wants_text = wanted in ("", TEXT.lower()) or wanted == (text_format or "").lower()
    if wants_image and image is not None:
        return MediaFile(file_name, _content_type(image_format, "image/*"), image)
    if wants_text and text is not None:
        return MediaFile(file_name, f"{_content_type(text_format, 'text/plain')}; charset=utf-8", text.encode("utf-8"))
    raise NotFound(f"media record {media_id} has no file of type {kind!r}", field="kind")


def _content_type(file_format: str | None, default: str) -> str:
    guessed, _ = mimetypes.guess_type(f"file.{(file_format or '').lower()}", strict=False)
    if guessed is None:
        return "application/octet-stream" if default == "image/*" else default
    return guessed
