"""A file's record against the stored one: the complete record to store, and which of its parts changed.

A field the record leaves out keeps what is stored (a new article: its default), so a file may carry
just some fields (a CSV of prices). The stamps (GeaendertAmUTC of the article and of its prices, Modified_UTC
of media) are taken from the record where it gives them; where it does not, an unchanged price or media
record keeps its own, and a changed one is stamped with the time of the import."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from datasources import phkeys
from datasources.exchange.kinds import Problem
from datasources.exchange.record import (
    ARTICLE_DEFAULTS,
    DECLARATION_DEFAULTS,
    EXPOSED,
    EXPOSED_CONTENTS,
    MEDIA_DEFAULTS,
    PACKAGING_DEFAULTS,
    STOCK_DEFAULTS,
    TIER_DEFAULTS,
)
from datasources.exchange.stored import Record, stock_order, tier_order

STAMP, MEDIA_STAMP = "GeaendertAmUTC", "Modified_UTC"
# Parts of a record, each stored in tables of its own: only the parts that changed are written.
ROW = "row"  # the article's own columns
PARTS = ("attributes", "ArtBez", "Verpackungen", "Preis", "Bestand", "Deklaration", "Media")
_ROW_FIELDS = tuple(name for name in ARTICLE_DEFAULTS if name not in PARTS and name != EXPOSED)


@dataclass(frozen=True, slots=True)
class Comparison:
    record: Record  # complete: every field, lists in their stored order
    changed: frozenset[str]  # ROW and/or PARTS; empty: nothing to write


def compare(given: Record, stored: Record | None, now: dt.datetime, *, patch: bool = False) -> Comparison | Problem:
    """`patch`: a CSV row's record, whose designation and prices are merged into the stored ones."""
    base = stored if stored is not None else {"ArtNr": given["ArtNr"], STAMP: None, **ARTICLE_DEFAULTS}
    record = {**base, **(_patched(given, base) if patch else given)}
    problem = _normalise_attributes(record)
    if problem is not None:
        return problem
    record["Verpackungen"] = sorted(
        ({**PACKAGING_DEFAULTS, **unit} for unit in record["Verpackungen"]),
        key=lambda unit: (unit["Faktor"], unit["VPEinheit"]),
    )
    record["Preis"] = _prices(record["Preis"], base["Preis"])
    record["Bestand"] = {
        warehouse: sorted(({**STOCK_DEFAULTS, **row} for row in rows), key=stock_order)
        for warehouse, rows in record["Bestand"].items()
    }
    record["Deklaration"] = _numbered(record["Deklaration"], base["Deklaration"], "Nr", DECLARATION_DEFAULTS)
    record["Media"] = _media(record["Media"], base["Media"])
    changed = {part for part in PARTS if record[part] != base[part]}
    if record[EXPOSED] != base[EXPOSED]:
        changed.add("attributes")  # RESTWEBSHOP is one of them
    if any(record[name] != base[name] for name in _ROW_FIELDS):
        changed.add(ROW)
    if stored is None:
        changed.update(PARTS)  # every part is inserted (the empty ones insert nothing)
    stamp = given.get(STAMP)
    if stored is None or changed:
        changed.add(ROW)
        record[STAMP] = stamp if stamp is not None and (stored is None or stamp != stored[STAMP]) else now
    elif stamp is not None and stamp != stored[STAMP]:
        changed.add(ROW)
    return Comparison(record, frozenset(changed))


def _patched(given: Record, base: Record) -> Record:
    """A CSV row names the designation in one language and the first tier of the base unit of some lists
    and currencies: the other languages and tiers are kept."""
    patched = dict(given)
    if "ArtBez" in given:
        patched["ArtBez"] = {**base["ArtBez"], **given["ArtBez"]}
    if "Preis" in given:
        prices = {list_type: dict(currencies) for list_type, currencies in base["Preis"].items()}
        for list_type, currencies in given["Preis"].items():
            for currency, (tier,) in currencies.items():
                kept = [old for old in prices.get(list_type, {}).get(currency, []) if _tier_key(old) != _BASE_TIER]
                prices.setdefault(list_type, {})[currency] = [tier, *kept]
        patched["Preis"] = prices
    return patched


_BASE_TIER = (None, None, 1)


def _normalise_attributes(record: Record) -> Problem | None:
    attributes = dict(record["attributes"])
    if not record[EXPOSED] and phkeys.EXPOSED in attributes:
        return Problem(f"attributes.{phkeys.EXPOSED}", f"no {phkeys.EXPOSED} attribute where {EXPOSED} is false")
    if attributes.get(phkeys.EXPOSED) == EXPOSED_CONTENTS:
        del attributes[phkeys.EXPOSED]  # as the stored record says it: by the flag alone
    record["attributes"] = dict(sorted(attributes.items()))
    return None


def _prices(prices: dict[str, Any], stored: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for list_type, currencies in sorted(prices.items()):
        result[list_type] = {}
        for currency, tiers in sorted(currencies.items()):
            before = {_tier_key(tier): tier for tier in stored.get(list_type, {}).get(currency, [])}
            complete = [_stamped_tier({**TIER_DEFAULTS, STAMP: None, **tier}, before) for tier in tiers]
            result[list_type][currency] = sorted(complete, key=tier_order)
    return result


def _tier_key(tier: Record) -> tuple[Any, ...]:
    return (tier["VPEinheit"], tier["Bereich"], tier["AbAnzahl"])


def _stamped_tier(tier: Record, before: dict[tuple[Any, ...], Record]) -> Record:
    if tier[STAMP] is None:
        old = before.get(_tier_key(tier))
        if old is not None and old["PreisList"] == tier["PreisList"]:
            tier[STAMP] = old[STAMP]
    return tier


def _numbered(items: list[Record], stored: list[Record], key: str, defaults: Record) -> list[Record]:
    """Declarations or media: a list without numbers that equals the stored one but for them keeps them
    (and the stamps); numbered items are in number order, as the answers list them."""
    complete = [{**defaults, key: None, **item} for item in items]
    unnumbered = complete and all(item[key] is None for item in complete)
    if unnumbered and [_unnumbered(item, key) for item in complete] == [_unnumbered(item, key) for item in stored]:
        return [dict(old) for old in stored]
    if all(item[key] is not None for item in complete):
        complete.sort(key=lambda item: item[key])
    return complete


def _unnumbered(item: Record, key: str) -> Record:
    return {name: value for name, value in item.items() if name not in (key, MEDIA_STAMP)}


def _media(items: list[Record], stored: list[Record]) -> list[Record]:
    complete = _numbered(items, stored, "IDKey", {**MEDIA_DEFAULTS, MEDIA_STAMP: None})
    before = {old["IDKey"]: old for old in stored}
    for item in complete:
        old = before.get(item["IDKey"])
        if item[MEDIA_STAMP] is None and old is not None and _unnumbered(item, "IDKey") == _unnumbered(old, "IDKey"):
            item[MEDIA_STAMP] = old[MEDIA_STAMP]
    return complete
