"""Article media: records (an image and/or a text under one IDKey) and the files themselves."""

from __future__ import annotations

import mimetypes
from collections import defaultdict
from collections.abc import Sequence

from sqlalchemy import and_, bindparam, func, select

from datasources import phkeys
from datasources.catalogue.articles import is_exposed
from datasources.catalogue.change_log import position_of
from datasources.catalogue.records import MediaFile, MediaRecord
from datasources.catalogue.versions import media_digest
from datasources.errors import NotFound
from datasources.models import Article, ArticleAttribute, ArticleChange, Media
from datasources.reads import Query, Reads, record_columns, values_in

IMAGE, TEXT = "Bild", "Text"


_MEDIA = Query(
    select(
        *record_columns(
            MediaRecord,
            id=Media.id,
            article_id=Media.article_id,
            file_name=Media.file_name,
            image_format=Media.image_format,
            text_format=Media.text_format,
            text=Media.text,
            # The article's VERWENDUNG attribute supplies the usage of records that name none.
            usage=func.coalesce(Media.usage, ArticleAttribute.contents),
            language=Media.language,
            country=Media.country,
            comment=Media.comment,
            modified_at=Media.modified_at,
            has_image=Media.image.is_not(None),
        )
    )
    .outerjoin(
        ArticleAttribute,
        and_(ArticleAttribute.article_id == Media.article_id, ArticleAttribute.key == phkeys.USAGE),
    )
    .where(values_in(Media.article_id, "ids"))
    .order_by(Media.article_id, Media.id),
    record=MediaRecord,
)


async def media_by_article(reads: Reads, article_ids: Sequence[int]) -> dict[int, list[MediaRecord]]:
    result: dict[int, list[MediaRecord]] = defaultdict(list)
    for row in await reads.rows(_MEDIA, ids=article_ids):
        record = MediaRecord(*row)
        result[record.article_id].append(record)
    return result


_MEDIA_FILE = Query(
    select(
        Media.file_name,
        Media.image,
        Media.image_format,
        Media.text,
        Media.text_format,
        Media.article_id,
        position_of(),  # its version's (versions.py), read with it
    )
    .join(Article, Article.id == Media.article_id)
    .outerjoin(ArticleChange, ArticleChange.article_id == Media.article_id)
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
    file_name, image, image_format, text, text_format, article_id, position = found[0]
    version = media_digest(media_id, article_id, position)
    wanted = (kind or "").strip().lower()
    wants_image = wanted in ("", IMAGE.lower()) or wanted == (image_format or "").lower()
    wants_text = wanted in ("", TEXT.lower()) or wanted == (text_format or "").lower()
    if wants_image and image is not None:
        return MediaFile(file_name, _content_type(image_format, "image/*"), image, version)
    if wants_text and text is not None:
        content_type = f"{_content_type(text_format, 'text/plain')}; charset=utf-8"
        return MediaFile(file_name, content_type, text.encode("utf-8"), version)
    raise NotFound(f"media record {media_id} has no file of type {kind!r}", field="kind")


def _content_type(file_format: str | None, default: str) -> str:
    guessed, _ = mimetypes.guess_type(f"file.{(file_format or '').lower()}", strict=False)
    if guessed is None:
        return "application/octet-stream" if default == "image/*" else default
    return guessed
