"""Media records of an article: an image alone, an image with a text, and a text alone."""

from __future__ import annotations

import random
from html import escape
from typing import TYPE_CHECKING

from datasources.demo.images import jpeg_image, png_image
from datasources.demo.rows import Batch, Ids, Row, timestamp
from datasources.demo.vocabulary import DESCRIPTION, phrase
from datasources.models import Media

if TYPE_CHECKING:
    from datasources.demo.catalogue import DemoArticle


def add_media(rng: random.Random, ids: Ids, batch: Batch, article: DemoArticle) -> None:
    text_language = rng.choice(("fre", "ita", "eng"))
    records = (
        # No usage of its own: the article's VERWENDUNG attribute, if any, stands in.
        _record(
            rng,
            ids,
            article,
            f"{article.number}.png",
            image=png_image(article.number, article.colour),
            image_format="png",
            comment="Produktfoto",
        ),
        _record(
            rng,
            ids,
            article,
            f"{article.number}.jpg",
            image=jpeg_image(article.number, article.colour),
            image_format="jpg",
            text=_plain_text(article, "ger"),
            text_format="txt",
            usage="KATALOG",
            language="ger",
            country="CH",
        ),
        _record(
            rng,
            ids,
            article,
            f"{article.number}_{text_language}.html",
            text=_html(article, text_language),
            text_format="html",
            language=text_language,
        ),
    )
    batch.extend(Media, list(records))


def _record(rng: random.Random, ids: Ids, article: DemoArticle, file_name: str, **fields: object) -> Row:
    row: Row = {
        "id": ids.next(Media),
        "article_id": article.id,
        "file_name": file_name,
        "image": None,
        "image_format": None,
        "text": None,
        "text_format": None,
        "usage": None,
        "language": None,
        "country": None,
        "comment": None,
        "modified_at": timestamp(rng),
    }
    return row | fields


def _plain_text(article: DemoArticle, language: str) -> str:
    return f"{article.designations[language]}\n{phrase(DESCRIPTION, language)}"


def _html(article: DemoArticle, language: str) -> str:
    heading = escape(article.designations[language], quote=False)
    return f"<h1>{heading}</h1>\n<p>{escape(phrase(DESCRIPTION, language), quote=False)}</p>"
