"""A record's flat fields as a CSV row (what `gateway export --format csv` writes and the import reads):
the designation in the company's language and, per price list and currency, the first tier of the base unit."""

from __future__ import annotations

from typing import Any

from datasources.exchange.encoding import number_text
from datasources.exchange.references import References
from datasources.exchange.sources import COMPANY_LANGUAGE, CSV_FIELDS
from datasources.exchange.stored import Record


def price_columns(references: References) -> list[str]:
    return [
        f"Preis.{list_type}.{currency}"
        for list_type in sorted(references.price_lists)
        for currency in sorted(references.currencies)
    ]


def header(columns: list[str]) -> list[str]:
    return [*CSV_FIELDS, *columns]


def flat_row(record: Record, columns: list[str]) -> list[str]:
    row = [_cell(_flat_value(record, name)) for name in CSV_FIELDS]
    for column in columns:
        _, list_type, currency = column.split(".")
        tiers = record["Preis"].get(list_type, {}).get(currency, [])
        base = [t for t in tiers if t["VPEinheit"] is None and t["Bereich"] is None and t["AbAnzahl"] == 1]
        row.append(number_text(base[0]["PreisList"]) if base else "")
    return row


def _flat_value(record: Record, name: str) -> Any:
    if name == "ArtBez":
        return record["ArtBez"].get(COMPANY_LANGUAGE)
    if name == "WebShop":
        return "J" if record["WebShop"] else "N"
    return record[name]


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    return number_text(value)
