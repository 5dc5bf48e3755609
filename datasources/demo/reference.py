"""Reference data the catalogue points at: currencies, Swiss tax codes, price lists and warehouses."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from datasources.demo.rows import Batch
from datasources.models import Currency, PaymentCondition, PriceList, TaxCode, Warehouse

LEADING_CURRENCY = "CHF"
ROUNDING_STEPS = {"CHF": Decimal("0.05"), "EUR": Decimal("0.01"), "USD": Decimal("0.01")}
_CURRENCY_NAMES = {"CHF": "Schweizer Franken", "EUR": "Euro", "USD": "US-Dollar"}

STANDARD_TAX, REDUCED_TAX, ACCOMMODATION_TAX = "N81", "R26", "B38"
TAX_RATES = {STANDARD_TAX: Decimal("8.1"), REDUCED_TAX: Decimal("2.6"), ACCOMMODATION_TAX: Decimal("3.8")}
_TAX_NAMES = {
    STANDARD_TAX: "Normalsatz 8.1 %",
    REDUCED_TAX: "Reduzierter Satz 2.6 %",
    ACCOMMODATION_TAX: "Sondersatz Beherbergung 3.8 %",
}
_TAX_FORM_LINES = {STANDARD_TAX: "303", REDUCED_TAX: "313", ACCOMMODATION_TAX: "343"}


@dataclass(frozen=True, slots=True)
class PriceListRef:
    id: int
    list_type: str
    name: str
    price_kind: str  # N net, B gross (tax included)
    is_default: bool = False


DEFAULT_LIST = PriceListRef(1, "STD", "Standardpreise", "N", is_default=True)
RESELLER_LIST = PriceListRef(2, "WV", "Wiederverkäufer", "N")
GROSS_LIST = PriceListRef(3, "BRUTTO", "Bruttopreise inkl. MWST", "B")
PRICE_LISTS = (DEFAULT_LIST, RESELLER_LIST, GROSS_LIST)


@dataclass(frozen=True, slots=True)
class WarehouseRef:
    id: int
    name: str
    location_number: int
    released: bool


WAREHOUSES = (
    WarehouseRef(1, "Hauptlager", 1, released=True),
    WarehouseRef(2, "Aussenlager Nord", 1, released=True),
    WarehouseRef(3, "Filiale Lugano", 2, released=True),
    WarehouseRef(4, "Quarantäne", 1, released=False),
)
MAIN_WAREHOUSE = WAREHOUSES[0]


# KundBedTyp -> KundBedBez per language.
PAYMENT_CONDITIONS = {
    1: {"ger": "30 Tage netto", "fre": "30 jours net", "ita": "30 giorni netto", "eng": "30 days net"},
    2: {
        "ger": "10 Tage 2 % Skonto",
        "fre": "10 jours 2 % d'escompte",
        "ita": "10 giorni 2 % di sconto",
        "eng": "10 days 2 % discount",
    },
    3: {"ger": "Vorauskasse", "fre": "Paiement anticipé", "ita": "Pagamento anticipato", "eng": "Prepayment"},
}


def add_reference_data(batch: Batch) -> None:
    for code, step in ROUNDING_STEPS.items():
        batch.add(
            Currency,
            {
                "code": code,
                "name": _CURRENCY_NAMES[code],
                "is_leading": code == LEADING_CURRENCY,
                "rounding_step": step,
            },
        )
    for code, rate in TAX_RATES.items():
        batch.add(
            TaxCode,
            {
                "code": code,
                "designation": _TAX_NAMES[code],
                "rate": rate,
                "tax_class": "C",
                "is_standard": code == STANDARD_TAX,
                # Lines of the Swiss VAT form: turnover 200, tax per rate, input tax 400.
                "turnover_line": "200",
                "sales_tax_line": _TAX_FORM_LINES[code],
                "input_tax_line": "400",
            },
        )
    for condition_type, texts in PAYMENT_CONDITIONS.items():
        for language, text in texts.items():
            batch.add(PaymentCondition, {"condition_type": condition_type, "language": language, "text": text})
    for price_list in PRICE_LISTS:
        batch.add(
            PriceList,
            {
                "id": price_list.id,
                "list_type": price_list.list_type,
                "name": price_list.name,
                "price_kind": price_list.price_kind,
                "is_default": price_list.is_default,
            },
        )
    for warehouse in WAREHOUSES:
        batch.add(
            Warehouse,
            {
                "id": warehouse.id,
                "name": warehouse.name,
                "location_number": warehouse.location_number,
                "released": warehouse.released,
            },
        )
