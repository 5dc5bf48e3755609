"""The `links` entries of /www resources: href, type (HTTP method), rel."""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import quote

from rest_compat.shapes import Link, Links


def link(href: str, rel: str, method: str = "GET") -> Link:
    return {"href": href, "type": method, "rel": rel}


@lru_cache(maxsize=4096)
def article_href(base_url: str, number: str) -> str:
    """Cached: a page links each of its articles from the article and from every price and stock entry (a
    1000-article page some 6,000 times), and a shop's numbers repeat."""
    return f"{base_url}/www/artikel/{path_segment(number)}"


@lru_cache(maxsize=4096)
def path_segment(value: str) -> str:
    """`value` quoted as one segment of a path."""
    return quote(value, safe="")


def to_article(number_field: str) -> Links:
    """A single link to the article, for entries that hang under one (prices, stock, declarations)."""

    def build(base_url: str, number: str) -> list[Link]:
        return [link(article_href(base_url, number), "artikel")]

    return Links((number_field,), build)
