"""The matched queries: what a frontend asks each server for, and the check that both answer the same.

The gateway answers its own schema with every rule on (exposure, the price list and currency of the caller's
view, the price ladder rule); PostGraphile answers the tables bare, so its query spells the same view out:
exposed listings, German designations, the default price list in the leading currency, base-unit prices.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

# Articles whose answer both servers build from the same rows: exposed, a German designation, no packaging
# units (the gateway then hangs the prices under them), base-unit prices in the default list and leading
# currency and no price range (the gateway's ladder rule would then choose among ranges).
SAMPLE_ARTICLES = """
SELECT a.number FROM article_listing l JOIN article a ON a.id = l.article_id
WHERE l.exposed
  AND NOT EXISTS (SELECT 1 FROM packaging_unit u WHERE u.article_id = a.id)
  AND EXISTS (SELECT 1 FROM price p JOIN price_list pl ON pl.id = p.price_list_id AND pl.is_default
              JOIN currency c ON c.code = p.currency AND c.is_leading WHERE p.article_id = a.id)
  AND NOT EXISTS (SELECT 1 FROM price p WHERE p.article_id = a.id AND p.price_range IS NOT NULL)
  AND EXISTS (SELECT 1 FROM article_designation d WHERE d.article_id = a.id AND d.language = 'ger')
ORDER BY a.id
"""
VIEW = "SELECT (SELECT id FROM price_list WHERE is_default), (SELECT code FROM currency WHERE is_leading)"

OURS_ARTICLE = "number designation group prices { minQuantity amount }"
PEER_ARTICLE = (
    'number group articleDesignationsByArticleId(condition: {{language: "ger"}}) {{ nodes {{ text }} }} '
    "pricesByArticleId(condition: {{priceListId: {list}, currency: {currency}, packagingUnit: null}}, "
    "orderBy: MIN_QUANTITY_ASC) {{ nodes {{ minQuantity amount }} }}"
)


@dataclass(frozen=True)
class Row:
    """One row of the table: the bodies each server is sent in turn (several for the single article, so that
    neither answers one article from a cache) and how to read the articles out of an answer."""

    name: str
    ours: list[bytes]
    peer: list[bytes]
    ours_articles: Callable[[Any], list[dict[str, Any]]]
    peer_articles: Callable[[Any], list[dict[str, Any]]]


def rows(sample: list[str], price_list: int, currency: str, page: int) -> dict[str, Row]:
    peer_article = PEER_ARTICLE.format(list=price_list, currency=json.dumps(currency))
    return {
        "trivial": Row(
            "{ __typename } with a token",
            [_body("{ __typename }")],
            [_body("{ __typename }")],
            lambda _: [],
            lambda _: [],
        ),
        "single": Row(
            "one article: designation, group, prices",
            [_body(f"{{ article(number: {json.dumps(n)}) {{ {OURS_ARTICLE} }} }}") for n in sample],
            [_body(f"{{ articleByNumber(number: {json.dumps(n)}) {{ {peer_article} }} }}") for n in sample],
            lambda data: [data["article"]],
            lambda data: [_peer(data["articleByNumber"])],
        ),
        "page": Row(
            f"{page} articles, the same fields",
            [_body(f"{{ articles(limit: {page}, sort: [{{field: NUMBER}}]) {{ items {{ {OURS_ARTICLE} }} }} }}")],
            [
                _body(
                    f"{{ allArticleListings(condition: {{exposed: true}}, orderBy: NUMBER_ASC, first: {page}) "
                    f"{{ nodes {{ articleByArticleId {{ {peer_article} }} }} }} }}"
                )
            ],
            lambda data: data["articles"]["items"],
            lambda data: [_peer(node["articleByArticleId"]) for node in data["allArticleListings"]["nodes"]],
        ),
    }


def _body(query: str) -> bytes:
    return json.dumps({"query": query}).encode()


def _peer(article: dict[str, Any]) -> dict[str, Any]:
    designations = article["articleDesignationsByArticleId"]["nodes"]
    return {
        "number": article["number"],
        "designation": designations[0]["text"] if designations else None,
        "group": article["group"],
        "prices": article["pricesByArticleId"]["nodes"],
    }


def compare(row: Row, ours: Any, peer: Any) -> str | None:
    """None when both answers name the same articles with the same designations, groups and prices; else
    what differs. Amounts compare as decimals: PostGraphile gives numeric columns as strings."""
    mine, theirs = row.ours_articles(ours["data"]), row.peer_articles(peer["data"])
    if len(mine) != len(theirs):
        return f"{len(mine)} articles against {len(theirs)}"
    for a, b in zip(mine, theirs, strict=True):
        if (a["number"], a["designation"], a["group"]) != (b["number"], b["designation"], b["group"]):
            return f"{a} against {b}"
        if _prices(a["prices"] or []) != _prices(b["prices"]):
            return f"prices of {a['number']}: {a['prices']} against {b['prices']}"
    return None


def _prices(tiers: list[dict[str, Any]]) -> list[tuple[Decimal, Decimal]]:
    return [(Decimal(str(t["minQuantity"])), Decimal(str(t["amount"]))) for t in tiers]
