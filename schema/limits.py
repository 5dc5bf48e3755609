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
