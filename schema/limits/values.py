"""Bounds on the work one request may ask for, checked before the work starts (GATEWAY_* settings;
gateway/settings.py reads them, the defaults are here). The REST layer refuses a body over them before
it builds a GraphQL call; the domain refuses them for GraphQL clients too."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RequestLimits:
    positions: int = 1000  # Positionen of one order or offer (an offer after a PATCH, too)
    payments: int = 100  # Zahlung entries of one order
    sort_keys: int = 10  # sorts of the article list (REST) and `sort` (GraphQL)
    field_names: int = 100  # entries of a REST `fields` parameter
    upsert_records: int = 1000  # article records of one articlesUpsert


@dataclass(frozen=True, slots=True)
class DocumentLimits:
    """What a client's GraphQL document may ask for, checked in time linear in its size before anything
    runs. The REST layer's own documents are the gateway's and not subject to them."""

    max_bytes: int = 64 * 1024  # the document's text, comments included, checked before parsing
    max_depth: int = 10
    max_aliases: int = 30
    max_tokens: int = 5000
    max_cost: int = 100_000  # the static cost budget (schema/limits/cost.py: the formula)
    max_schema_walks: int = 1  # `__schema` response names of one operation (introspection.py)
    page_size: int = 1000  # the largest `articles` page a client gets (and the default `limit`)
    cache_bytes: int = 16 * 1024 * 1024  # documents held by the parse, validation and plan caches
    # The text of documents kept under their automatic persisted query hash: some 4,000 documents of a
    # kilobyte, and at least 64 of the largest a client may send (max_bytes).
    persisted_bytes: int = 4 * 1024 * 1024
