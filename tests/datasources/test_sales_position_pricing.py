"""Money rounding, the validation of GrundDaten/Positionen/Zahlung, and pricing positions against the catalogue."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import update

from datasources.catalogue.view import resolve_view
from datasources.database import Database
from datasources.errors import DomainError, InvalidInput, Unprocessable
from datasources.models import PriceList
from datasources.reads import SessionReads
from datasources.sales.money import cents, to_step, unit_price
from datasources.sales.position_pricing import price_positions
from datasources.sales.records import Header, PaymentInput, PositionChange, PositionInput, PricedPosition
from datasources.sales.validation import validate_changes, validate_header, validate_payments, validate_positions
from tests.catalogue_data import Catalogue
from tests.factories import Factory, unit

D = Decimal
MAX_POSITIONS, MAX_PAYMENTS = 1000, 100  # GATEWAY_MAX_POSITIONS and GATEWAY_MAX_PAYMENTS by default
CHF, EUR = D("0.05"), D("0.01")


# money


@pytest.mark.parametrize(
    ("amount", "step", "expected"),
    [
        ("191.52", CHF, "191.50"),
        ("191.53", CHF, "191.55"),
        ("191.525", CHF, "191.55"),  # exactly half a step: up
        ("191.5249", CHF, "191.50"),
        ("191.575", CHF, "191.60"),
        ("191.57", CHF, "191.55"),
        ("191.58", CHF, "191.60"),
        ("0.025", CHF, "0.05"),  # half of the smallest step: up, not to 0
        ("0.0249", CHF, "0.00"),
        ("0", CHF, "0.00"),
        ("-0.025", CHF, "-0.05"),  # half-up means away from zero
        ("-191.52", CHF, "-191.50"),
        ("191.525", EUR, "191.53"),
        ("191.524", EUR, "191.52"),
        ("0.005", EUR, "0.01"),
        ("2.675", EUR, "2.68"),  # exact decimal: no binary float surprise
        ("100", EUR, "100.00"),
    ],
)
def test_to_step_rounds_half_up_to_the_currency_step(amount: str, step: Decimal, expected: str) -> None:
    result = to_step(D(amount), step)
    assert result == D(expected)
    assert str(result) == expected  # always two places


@pytest.mark.parametrize(
    ("amount", "expected"),
    [("2.675", "2.68"), ("2.665", "2.67"), ("0.005", "0.01"), ("0.0049", "0.00"), ("-0.005", "-0.01"), ("7", "7.00")],
)
def test_cents_rounds_half_up(amount: str, expected: str) -> None:
    assert str(cents(D(amount))) == expected


@pytest.mark.parametrize(
    ("amount", "expected"),
    [("1.83333", "1.8333"), ("1.66665", "1.6667"), ("0.00005", "0.0001"), ("36.91026827", "36.9103"), ("2", "2.0000")],
)
def test_unit_prices_keep_four_places(amount: str, expected: str) -> None:
    assert str(unit_price(D(amount))) == expected


# validate_header


def invalid(error: DomainError, field: str) -> None:
    assert type(error) is InvalidInput, error
    assert error.field == field
    assert error.code == "invalid_request"


def test_header_with_every_field() -> None:
    header = validate_header(
        {
            "customer_number": "100002",
            "description": "d" * 80,
            "external_number": "e" * 36,
            "reference": "r" * 60,
            "comment": "c" * 255,
            "cost_unit": "k" * 6,
            "currency": " eur ",
            "ordered_at": "2026-11-21T10:00:00Z",
            "delivery_at": "2026-12-01",
            "payment_condition": 255,
            "location": 3,
            "delivery_costs": 12.5,
        }
    )
    assert header == Header(
        customer_number="100002",
        currency="EUR",
        description="d" * 80,
        external_number="e" * 36,
        reference="r" * 60,
        ordered_at=dt.datetime(2026, 11, 21, 10, tzinfo=dt.UTC),
        delivery_at=dt.datetime(2026, 11, 30, 23, tzinfo=dt.UTC),  # midnight in Zurich (CET)
        comment="c" * 255,
        cost_unit="k" * 6,
        payment_condition=255,
        delivery_costs=D("12.5"),
        location=3,
    )


def test_an_empty_header_is_all_none() -> None:
    assert validate_header({}) == Header(customer_number=None, currency=None)
    # Empty or blank text counts as no value.
    assert validate_header({"description": "   ", "currency": "", "ordered_at": ""}) == Header(None, None)


@pytest.mark.parametrize(
    ("name", "limit"),
    [
        ("customer_number", 8),
        ("description", 80),
        ("external_number", 36),
        ("reference", 60),
        ("comment", 255),
        ("cost_unit", 6),
    ],
)
def test_header_text_lengths(name: str, limit: int) -> None:
    assert getattr(validate_header({name: "x" * limit}), name) == "x" * limit
    with pytest.raises(InvalidInput) as raised:
        validate_header({name: "x" * (limit + 1)})
    invalid(raised.value, name)
    assert str(limit) in raised.value.message
    with pytest.raises(InvalidInput) as raised:
        validate_header({name: 12})
    invalid(raised.value, name)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-11-21T10:00:00Z", dt.datetime(2026, 11, 21, 10, tzinfo=dt.UTC)),
        ("2026-11-21T10:00:00+00:00", dt.datetime(2026, 11, 21, 10, tzinfo=dt.UTC)),
        ("2026-11-21T12:30:00+02:00", dt.datetime(2026, 11, 21, 10, 30, tzinfo=dt.UTC)),
        ("2026-11-21T05:00:00-05:00", dt.datetime(2026, 11, 21, 10, tzinfo=dt.UTC)),
        # Without a zone: the ERP's local time, Europe/Zurich (CET in winter, CEST in summer).
        ("2026-11-21T10:00:00", dt.datetime(2026, 11, 21, 9, tzinfo=dt.UTC)),
        ("2026-07-01T10:00:00", dt.datetime(2026, 7, 1, 8, tzinfo=dt.UTC)),
        ("2026-11-21 10:00", dt.datetime(2026, 11, 21, 9, tzinfo=dt.UTC)),
        ("2026-11-21", dt.datetime(2026, 11, 20, 23, tzinfo=dt.UTC)),
        ("2026-01-01", dt.datetime(2025, 12, 31, 23, tzinfo=dt.UTC)),
        (" 2026-11-21T10:00:00Z ", dt.datetime(2026, 11, 21, 10, tzinfo=dt.UTC)),
        # The ends of the range.
        ("0001-01-01T00:00:00Z", dt.datetime(1, 1, 1, tzinfo=dt.UTC)),
        ("0001-01-01T23:59:59+14:00", dt.datetime(1, 1, 1, 9, 59, 59, tzinfo=dt.UTC)),
        ("9999-12-31T23:59:59Z", dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=dt.UTC)),
        ("9999-12-31T09:59:59-14:00", dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=dt.UTC)),
    ],
)
def test_dates_become_utc(value: str, expected: dt.datetime) -> None:
    header = validate_header({"ordered_at": value, "delivery_at": value})
    assert header.ordered_at == expected
    assert header.delivery_at == expected
    assert header.ordered_at is not None and header.ordered_at.utcoffset() == dt.timedelta(0)


@pytest.mark.parametrize(
    "value",
    [
        "21.11.2026",
        "2026-13-01",
        "2026-11-31",
        "tomorrow",
        "2026-11-21T25:00:00",
        20261121,
        True,
        "2" * 33,
        "0000-12-31",
        # Valid times whose UTC form would leave the years 1..9999.
        "9999-12-31T23:59:59-14:00",
        "0001-01-01T00:00:00+14:00",
        "0001-01-01",  # midnight in Zurich, whose local mean time was UTC+0:34 then
    ],
)
@pytest.mark.parametrize("name", ["ordered_at", "delivery_at"])
def test_bad_dates(name: str, value: Any) -> None:
    with pytest.raises(InvalidInput) as raised:
        validate_header({name: value})
    invalid(raised.value, name)
    if isinstance(value, str) and value.startswith(("9999", "0001")):
        assert raised.value.message == f"{value!r} is out of range: in UTC it must fall within the years 1 to 9999"


@pytest.mark.parametrize("value", ["EURO", "XYZ", "E", "€", 978])
def test_a_currency_must_be_iso_4217(value: Any) -> None:
    with pytest.raises(InvalidInput) as raised:
        validate_header({"currency": value})
    invalid(raised.value, "currency")


@pytest.mark.parametrize(
    ("values", "field"),
    [
        ({"payment_condition": 256}, "payment_condition"),
        ({"payment_condition": -1}, "payment_condition"),
        ({"payment_condition": True}, "payment_condition"),
        ({"payment_condition": "1"}, "payment_condition"),
        ({"location": -1}, "location"),
        ({"location": 2**31}, "location"),
        ({"location": 1.5}, "location"),
        ({"delivery_costs": -0.01}, "delivery_costs"),
        ({"delivery_costs": "12"}, "delivery_costs"),
        ({"delivery_costs": float("nan")}, "delivery_costs"),
        ({"delivery_costs": 1e10}, "delivery_costs"),
        ({"delivery_costs": 0.00005}, "delivery_costs"),
    ],
)
def test_bad_header_numbers(values: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        validate_header(values)
    invalid(raised.value, field)


# validate_positions


def test_positions_are_validated_into_records() -> None:
    positions = validate_positions(
        [
            {"article_number": "A-100", "quantity": 3},
            {
                "article_number": "A-200",
                "quantity": 0.1,
                "text": "t" * 2048,
                "price": 1.1,
                "packaging_unit": "KAR",
                "discount_rate": 100,
                "display_number": 20,
            },
        ],
        MAX_POSITIONS,
    )
    assert positions == [
        PositionInput("A-100", D(3)),
        PositionInput("A-200", D("0.1"), "t" * 2048, D("1.1"), "KAR", D(100), 20),
    ]


@pytest.mark.parametrize("entries", [None, []])
def test_positions_are_required(entries: list[Mapping[str, Any]] | None) -> None:
    with pytest.raises(InvalidInput) as raised:
        validate_positions(entries, MAX_POSITIONS)
    invalid(raised.value, "positions")


GOOD: dict[str, Any] = {"article_number": "A-100", "quantity": 1}


@pytest.mark.parametrize(
    ("entry", "field", "message"),
    [
        ({"quantity": 1}, "article_number", "is required"),
        ({"article_number": "  ", "quantity": 1}, "article_number", "is required"),
        ({"article_number": "A" * 16, "quantity": 1}, "article_number", "at most 15"),
        ({"article_number": 100, "quantity": 1}, "article_number", "must be text"),
        ({"article_number": "A-100"}, "quantity", "is required"),
        ({**GOOD, "quantity": "5"}, "quantity", "must be a number"),
        ({**GOOD, "quantity": True}, "quantity", "must be a number"),
        ({**GOOD, "quantity": float("inf")}, "quantity", "must be a number below 10,000,000,000"),
        ({**GOOD, "quantity": float("nan")}, "quantity", "must be a number below 10,000,000,000"),
        # Quantities and amounts are stored as Numeric(14, 4).
        ({**GOOD, "quantity": 1e10}, "quantity", "must be a number below 10,000,000,000"),
        ({**GOOD, "quantity": 0.00001}, "quantity", "has more than 4 decimal places"),
        ({**GOOD, "quantity": 1.23456}, "quantity", "has more than 4 decimal places"),
        ({**GOOD, "price": 0.12345}, "price", "has more than 4 decimal places"),
        ({**GOOD, "discount_rate": 33.33333}, "discount_rate", "has more than 4 decimal places"),
        ({**GOOD, "price": "9.90"}, "price", "must be a number"),
        ({**GOOD, "discount_rate": "10"}, "discount_rate", "must be a number"),
        ({**GOOD, "text": "t" * 2049}, "text", "at most 2048"),
        ({**GOOD, "packaging_unit": "u" * 31}, "packaging_unit", "at most 30"),
        ({**GOOD, "display_number": "1"}, "display_number", "whole number"),
        ({**GOOD, "display_number": 1.5}, "display_number", "whole number"),
        ({**GOOD, "display_number": False}, "display_number", "whole number"),
    ],
)
def test_malformed_positions_are_invalid_input(entry: dict[str, Any], field: str, message: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        validate_positions([GOOD, entry], MAX_POSITIONS)
    invalid(raised.value, f"positions.1.{field}")
    assert message in raised.value.message


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ({**GOOD, "quantity": 0}, "quantity"),
        ({**GOOD, "quantity": -1}, "quantity"),
        ({**GOOD, "quantity": 0.0}, "quantity"),
        ({**GOOD, "discount_rate": 101}, "discount_rate"),
        ({**GOOD, "discount_rate": 100.01}, "discount_rate"),
        ({**GOOD, "discount_rate": -0.5}, "discount_rate"),
        ({**GOOD, "price": -0.01}, "price"),
    ],
)
def test_impossible_positions_are_unprocessable(entry: dict[str, Any], field: str) -> None:
    with pytest.raises(Unprocessable) as raised:
        validate_positions([GOOD, entry], MAX_POSITIONS)
    assert (raised.value.field, raised.value.info) == (f"positions.1.{field}", {"position": 2})
    assert raised.value.code == "unprocessable"


def test_bounds_that_are_allowed() -> None:
    positions = validate_positions(
        [
            {**GOOD, "discount_rate": 0, "price": 0},
            {**GOOD, "discount_rate": 100},
            {**GOOD, "quantity": 0.0001},
            {**GOOD, "quantity": 9999999999.9998, "price": 9999999999},
        ],
        MAX_POSITIONS,
    )
    assert [(p.discount_rate, p.price, p.quantity) for p in positions] == [
        (D(0), D(0), D(1)),
        (D(100), None, D(1)),
        (None, None, D("0.0001")),
        (None, D(9999999999), D("9999999999.9998")),
    ]


# validate_changes (PATCH /www/offerte)


def test_change_rules() -> None:
    changes = validate_changes(
        [
            {"article_number": "A-100", "quantity": 2},  # added
            {"position_number": 1, "quantity": 0},  # deleted
            {"position_number": 2, "quantity": 5, "discount_rate": 10},  # updated
            {"position_number": 3, "quantity": 0, "discount_rate": 150},  # deleted: the discount does not matter
            {"article_number": "A-200", "quantity": 12, "text": "Karton"},
        ],
        MAX_POSITIONS,
    )
    assert changes == [
        PositionChange(None, D(2), "A-100"),
        PositionChange(1, D(0)),
        PositionChange(2, D(5), discount_rate=D(10)),
        PositionChange(3, D(0), discount_rate=D(150)),
        PositionChange(None, D(12), "A-200", "Karton"),
    ]
    assert validate_changes([], MAX_POSITIONS) == []


@pytest.mark.parametrize(
    ("entry", "error", "field"),
    [
        ({"quantity": 2}, InvalidInput, "article_number"),  # an addition needs an article
        ({"article_number": "A-100"}, InvalidInput, "quantity"),
        ({"position_number": 1}, InvalidInput, "quantity"),
        ({"position_number": 1, "quantity": "2"}, InvalidInput, "quantity"),
        ({"position_number": "1", "quantity": 2}, InvalidInput, "position_number"),
        ({"position_number": True, "quantity": 2}, InvalidInput, "position_number"),
        ({"position_number": 1.0, "quantity": 2}, InvalidInput, "position_number"),
        ({"article_number": "A" * 16, "quantity": 2}, InvalidInput, "article_number"),
        ({"position_number": 1, "quantity": 2, "text": "t" * 2049}, InvalidInput, "text"),
        ({"article_number": "A-100", "quantity": 0}, Unprocessable, "quantity"),  # adding nothing
        ({"article_number": "A-100", "quantity": -1}, Unprocessable, "quantity"),
        ({"position_number": 1, "quantity": -1}, Unprocessable, "quantity"),
        ({"position_number": 1, "quantity": 2, "discount_rate": 101}, Unprocessable, "discount_rate"),
        ({"article_number": "A-100", "quantity": 1, "discount_rate": -1}, Unprocessable, "discount_rate"),
    ],
)
def test_bad_changes(entry: dict[str, Any], error: type[DomainError], field: str) -> None:
    with pytest.raises(DomainError) as raised:
        validate_changes([{"position_number": 9, "quantity": 0}, entry], MAX_POSITIONS)
    assert type(raised.value) is error
    assert raised.value.field == f"positions.1.{field}"


# validate_payments


def test_payments() -> None:
    assert validate_payments(None, MAX_PAYMENTS) == []
    assert validate_payments([], MAX_PAYMENTS) == []
    assert validate_payments(
        [
            {"designation": "Dienstleister", "value": "Datatrans"},
            {"designation": "TransID", "value": "v" * 200},
            {"designation": "d" * 255},
            {"designation": "payment_method", "value": ""},
        ],
        MAX_PAYMENTS,
    ) == [
        PaymentInput("Dienstleister", "Datatrans"),
        PaymentInput("TransID", "v" * 200),
        PaymentInput("d" * 255, None),
        PaymentInput("payment_method", None),
    ]


@pytest.mark.parametrize(
    ("entry", "field"),
    [
        ({"value": "x"}, "designation"),
        ({"designation": "", "value": "x"}, "designation"),
        ({"designation": "   "}, "designation"),
        ({"designation": "d" * 256}, "designation"),
        ({"designation": 5}, "designation"),
        ({"designation": "TransID", "value": "v" * 201}, "value"),
        ({"designation": "TransID", "value": 5}, "value"),
    ],
)
def test_bad_payments(entry: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        validate_payments([{"designation": "TransID", "value": "1"}, entry], MAX_PAYMENTS)
    invalid(raised.value, f"payments.1.{field}")


# limits


@pytest.mark.parametrize(
    ("validate", "field", "message"),
    [
        (validate_positions, "positions", "at most 3 positions"),
        (validate_changes, "positions", "at most 3 position changes"),
        (validate_payments, "payments", "at most 3 payments"),
    ],
)
def test_more_entries_than_the_limit_are_refused_before_any_is_looked_at(
    validate: Any, field: str, message: str
) -> None:
    assert len(validate([GOOD | {"designation": "TransID"}] * 3, 3)) == 3
    # Malformed entries: the count is refused first, so a huge list costs nothing to refuse.
    with pytest.raises(InvalidInput) as raised:
        validate([{"quantity": "x"}] * 4, 3)
    assert (raised.value.message, raised.value.field, raised.value.info) == (message, field, {"limit": 3})


# price_positions


async def price(
    db: Database,
    customer: str | None,
    *positions: PositionInput,
    currency: str | None = None,
    indexes: Sequence[int] | None = None,
) -> list[PricedPosition]:
    async with db.reader() as session:
        view = await resolve_view(SessionReads(session), customer_number=customer, currency=currency)
        return await price_positions(session, positions, view, indexes=indexes)


async def refused(db: Database, customer: str | None, *positions: PositionInput) -> Unprocessable:
    with pytest.raises(Unprocessable) as raised:
        await price(db, customer, *positions)
    return raised.value


def position(article: str, quantity: str, **fields: Any) -> PositionInput:
    return PositionInput(article, D(quantity), **fields)


def summary(priced: PricedPosition) -> tuple[Decimal, Decimal, Decimal, str, Decimal]:
    return priced.unit_price, priced.total, priced.tax_amount, priced.tax_code, priced.tax_rate


# The default list's tiers for the hammer: quantity, unit price, total, tax (2.6 %).
TIERS = [
    ("0.5", "12.50", "6.25", "0.16"),  # below the first tier: the first tier
    ("1", "12.50", "12.50", "0.33"),  # 0.325 rounds up
    ("9", "12.50", "112.50", "2.93"),
    ("10", "11.00", "110.00", "2.86"),  # tiers: from AbAnzahl up to the next tier's
    ("49", "11.00", "539.00", "14.01"),
    ("50", "9.90", "495.00", "12.87"),
    ("1000", "9.90", "9900.00", "257.40"),
]


async def test_tiers_of_the_default_list(db: Database, catalogue: Catalogue) -> None:
    priced = await price(db, "100002", *(position("A-100", quantity) for quantity, *_ in TIERS))
    assert [(p.quantity, *summary(p)[:3]) for p in priced] == [tuple(map(D, case)) for case in TIERS]
    for entry in priced:
        assert (entry.tax_code, entry.tax_rate, entry.text, entry.price_given) == ("R26", D("2.6"), "Hammer", False)
        assert (entry.packaging_unit, entry.packaging_quantity, entry.packaging_unit_price) == (None, None, None)


async def test_the_customer_list_wins_and_its_language_names_the_position(db: Database, catalogue: Catalogue) -> None:
    (wv,) = await price(db, "100001", position("A-100", "50"))
    assert summary(wv) == (D("10.00"), D("500.00"), D("13.00"), "R26", D("2.6"))
    assert wv.text == "Marteau"
    # The gross list has no hammer price: the default list's tiers apply, net.
    (gross_customer,) = await price(db, "100003", position("A-100", "10"))
    assert summary(gross_customer) == (D("11.00"), D("110.00"), D("2.86"), "R26", D("2.6"))
    assert gross_customer.text == "Martello"
    # Without a customer: the default list, German.
    (anonymous,) = await price(db, None, position("A-100", "1"))
    assert (anonymous.total, anonymous.text) == (D("12.50"), "Hammer")
    # Another currency has its own prices.
    (euro,) = await price(db, "100002", position("A-100", "2"), currency="EUR")
    assert (euro.unit_price, euro.total) == (D("13.00"), D("26.00"))
    # Text and ordering number as sent win.
    (named,) = await price(db, "100001", position("A-100", "1", text="Spezialhammer", display_number=40))
    assert (named.text, named.display_number) == ("Spezialhammer", 40)


# Screws in packaging units: unit asked for, quantity in pieces; then unit, packaging quantity, packaging unit
# price, unit price, total, tax (8.1 %).
UNITS = [
    (None, "5", ("STK", "5", "2.00", "2.00", "10.00", "0.81")),  # the unit of factor 1
    ("STK", "7", ("STK", "7", "2.00", "2.00", "14.00", "1.13")),
    ("KAR", "24", ("KAR", "2", "22.00", "1.8333", "44.00", "3.56")),
    ("kar", "48", ("KAR", "4", "22.00", "1.8333", "88.00", "7.13")),  # 7.128
    (" Kar ", "60", ("KAR", "5", "20.00", "1.6667", "100.00", "8.10")),  # second tier, counted in cartons
    ("KAR", "600", ("KAR", "50", "20.00", "1.6667", "1000.00", "81.00")),
]


async def test_packaging_units(db: Database, catalogue: Catalogue) -> None:
    priced = await price(
        db, "100002", *(position("A-200", quantity, packaging_unit=code) for code, quantity, _ in UNITS)
    )
    for (_, quantity, expected), entry in zip(UNITS, priced, strict=True):
        assert (
            entry.packaging_unit,
            entry.packaging_quantity,
            entry.packaging_unit_price,
            entry.unit_price,
            entry.total,
            entry.tax_amount,
        ) == (expected[0], *(D(value) for value in expected[1:])), quantity
        assert (entry.quantity, entry.tax_code, entry.tax_rate, entry.text) == (
            D(quantity),
            "N81",
            D("8.1"),
            "Schrauben",
        )
    # An article whose units all show: without a unit, the one of factor 1.
    (dowels,) = await price(db, "100002", position("A-600", "250"))
    assert (dowels.packaging_unit, dowels.packaging_quantity, dowels.total, dowels.tax_amount, dowels.text) == (
        "STK",
        D(250),
        D("25.00"),
        D("2.03"),  # 2.025 rounds up
        "Dübel",
    )


REFUSALS = [
    ("A-200", "480", "PAL", "packaging_unit", "not offered"),  # exists, but WEBSHOPVPE hides it
    ("A-200", "12", "BOX", "packaging_unit", "not offered"),
    ("A-100", "1", "STK", "packaging_unit", "not offered"),  # the hammer has no units at all
    ("A-200", "13", "KAR", "quantity", "multiple of 12 (KAR)"),
    ("A-200", "6", "KAR", "quantity", "multiple of 12 (KAR)"),
    ("A-200", "2.5", None, "quantity", "multiple of 1 (STK)"),  # the factor-1 unit counts whole pieces
    ("A-600", "150", "BTL", "quantity", "multiple of"),
    ("A-600", "200", "BTL", "article_number", "has no price"),  # a shown unit without a price
    ("A-300", "1", None, "article_number", "has no price"),  # no price at all
    ("A-500", "1", None, "article_number", "has no price"),  # only WV and the gross list have drill prices
    ("A-100", "2000000000", None, "quantity", "larger than the ERP can hold"),  # 19,800,000,000.00
    ("A-400", "1", None, "article_number", "does not exist or is not offered"),  # not exposed
    ("NOPE", "1", None, "article_number", "does not exist or is not offered"),
]


async def test_refusals_name_the_position(db: Database, catalogue: Catalogue) -> None:
    good = position("A-100", "1")
    for article, quantity, packaging, field, words in REFUSALS:
        error = await refused(db, "100002", good, good, position(article, quantity, packaging_unit=packaging))
        assert (error.field, error.info) == (f"positions.2.{field}", {"position": 3}), article
        assert words in error.message, error.message
        assert error.code == "unprocessable"


async def test_without_a_unit_an_article_is_counted_in_its_only_one(
    db: Database, factory: Factory, catalogue: Catalogue
) -> None:
    # Like the demo's A-000048: pieces exist, but WEBSHOPVPE offers cartons only.
    ties = await factory.article("A-800", attributes={"WEBSHOPVPE": "KAR"}, units=[unit("STK"), unit("KAR", "12")])
    await factory.price(ties, "24.00", unit="KAR")
    nails = await factory.article("A-900", units=[unit("KAR", "12"), unit("PAL", "480")])
    await factory.price(nails, "18.00", unit="KAR")
    await factory.price(nails, "600.00", unit="PAL")
    cartons, more_cartons, pallet = await price(
        db,
        "100002",
        position("A-800", "36"),
        position("A-800", "24", packaging_unit="kar"),
        position("A-900", "480", packaging_unit="PAL"),
    )
    # 3 KAR * 24.00 = 72.00, 2.00 a piece, tax 5.832 -> 5.83; 2 KAR = 48.00, tax 3.888 -> 3.89
    # 1 PAL = 600.00, 1.25 a piece, tax 48.60
    assert [
        (p.packaging_unit, p.packaging_quantity, p.packaging_unit_price, p.unit_price, p.total, p.tax_amount)
        for p in (cartons, more_cartons, pallet)
    ] == [
        ("KAR", D(3), D("24.00"), D("2.00"), D("72.00"), D("5.83")),
        ("KAR", D(2), D("24.00"), D("2.00"), D("48.00"), D("3.89")),
        ("PAL", D(1), D("600.00"), D("1.25"), D("600.00"), D("48.60")),
    ]
    refusals = [
        (
            position("A-800", "30"),
            "quantity",
            "the quantity must be a multiple of 12 (KAR), the only packaging unit A-800 is offered in",
        ),
        (
            position("A-800", "12", packaging_unit="STK"),
            "packaging_unit",
            "packaging unit 'STK' is not offered for A-800",
        ),
        (
            position("A-900", "480"),
            "packaging_unit",
            "a packaging unit (VPEinheit) is required: A-900 is offered in KAR (12), PAL (480)",
        ),
        # with the unit named, the quantity is checked against it as for any other article
        (position("A-900", "30", packaging_unit="KAR"), "quantity", "the quantity must be a multiple of 12 (KAR)"),
    ]
    for entry, field, message in refusals:
        error = await refused(db, "100002", entry)
        assert (error.field, error.message, error.info) == (f"positions.0.{field}", message, {"position": 1})


async def test_no_price_says_what_is_missing(db: Database, catalogue: Catalogue) -> None:
    pliers = position("A-300", "1")
    cases: list[tuple[str | None, PositionInput, str | None, str]] = [
        (None, pliers, None, "article A-300 has no price per base unit in CHF in the default price list STD"),
        ("100002", pliers, "EUR", "article A-300 has no price per base unit in EUR in the default price list STD"),
        (
            "100001",
            pliers,
            None,
            "article A-300 has no price per base unit in CHF neither in the customer's price list WV "
            "nor in the default price list STD",
        ),
        (
            "100003",
            position("A-600", "200", packaging_unit="BTL"),
            None,
            "article A-600 has no price per BTL in CHF neither in the customer's price list BRUTTO "
            "nor in the default price list STD",
        ),
        # without a unit the screws are counted in STK, which has a price in CHF only
        (
            "100002",
            position("A-200", "7"),
            "EUR",
            "article A-200 has no price per STK in EUR in the default price list STD",
        ),
    ]
    for customer, entry, currency, message in cases:
        with pytest.raises(Unprocessable) as raised:
            await price(db, customer, entry, currency=currency)
        assert (raised.value.field, raised.value.message) == ("positions.0.article_number", message)
    # A document no price list applies to: none is the default, and the customer has no list type.
    async with db.writer() as session, session.begin():
        await session.execute(update(PriceList).values(is_default=False))
    with pytest.raises(Unprocessable) as raised:
        await price(db, "100002", position("A-100", "1"))
    assert raised.value.message == "article A-100 has no price: no price list applies to this document"


async def test_the_multiple_is_named_in_plain_digits(db: Database, catalogue: Catalogue) -> None:
    error = await refused(db, "100002", position("A-600", "150", packaging_unit="BTL"))
    assert error.message == "the quantity must be a multiple of 100 (BTL)"


async def test_indexes_name_the_positions_of_the_request(db: Database, catalogue: Catalogue) -> None:
    with pytest.raises(Unprocessable) as raised:
        await price(db, "100002", position("A-100", "1"), position("A-999", "1"), indexes=[3, 7])
    assert raised.value.field == "positions.7.article_number"
    assert raised.value.info == {"position": 8}


async def test_a_given_price_is_net_per_base_unit(db: Database, catalogue: Catalogue) -> None:
    pliers, screws, drill, hammer = await price(
        db,
        "100003",
        position("A-300", "2", price=D("15.50")),  # no list price needed
        position("A-200", "24", packaging_unit="KAR", price=D("1.5")),
        position("A-500", "1", price=D("30")),  # not gross although the customer's list is
        position("A-100", "50", price=D("0")),
    )
    assert summary(pliers) == (D("15.50"), D("31.00"), D("2.51"), "N81", D("8.1"))
    assert pliers.price_given is True
    assert pliers.text == "Zange"  # no Italian text: German
    assert (screws.packaging_unit_price, screws.unit_price, screws.total, screws.packaging_quantity) == (
        D("18.00"),
        D("1.50"),
        D("36.00"),
        D(2),
    )
    assert summary(drill) == (D("30.00"), D("30.00"), D("2.43"), "N81", D("8.1"))
    assert summary(hammer) == (D("0"), D("0"), D("0"), "R26", D("2.6"))


async def test_discount(db: Database, catalogue: Catalogue) -> None:
    cases = [
        ("10", "15", "93.50", "2.43"),
        ("10", "0", "110.00", "2.86"),
        ("10", "100", "0.00", "0.00"),
        ("3", "33.33", "25.00", "0.65"),  # 25.00125
        ("1", "2.5", "12.19", "0.32"),  # 12.1875, 0.31694
    ]
    priced = await price(db, "100002", *(position("A-100", q, discount_rate=D(rate)) for q, rate, *_ in cases))
    assert [(p.quantity, p.discount_rate, p.total, p.tax_amount) for p in priced] == [tuple(map(D, c)) for c in cases]
    # The unit price is the list price, before the discount.
    assert [p.unit_price for p in priced] == [D("11.00")] * 3 + [D("12.50")] * 2


async def test_a_gross_list_is_turned_into_net_with_the_tax_exactly_the_difference(
    db: Database, catalogue: Catalogue
) -> None:
    quantities = range(1, 31)
    priced = await price(db, "100003", *(position("A-500", str(q)) for q in quantities))
    rate = D("1.081")
    for quantity, entry in zip(quantities, priced, strict=True):
        gross = D("39.90") * quantity
        assert entry.total + entry.tax_amount == gross, quantity
        assert entry.total == cents(gross / rate), quantity
        assert entry.tax_amount == gross - cents(gross / rate), quantity
        # The tax is the rate's share of the net amount, give or take the cent the split needs.
        assert abs(entry.tax_amount - entry.total * D("0.081")) <= D("0.01"), quantity
        assert entry.unit_price == D("36.9103")  # 39.90 / 1.081
        assert (entry.tax_code, entry.tax_rate, entry.text) == ("N81", D("8.1"), "Bohrer")  # no Italian text
    assert summary(priced[0]) == (D("36.9103"), D("36.91"), D("2.99"), "N81", D("8.1"))


async def test_a_gross_price_with_discount(db: Database, catalogue: Catalogue) -> None:
    (priced,) = await price(db, "100003", position("A-500", "3", discount_rate=D(10)))
    # 3 x 39.90 x 0.9 = 107.73 gross: 99.66 net + 8.07 tax.
    assert (priced.total, priced.tax_amount) == (D("99.66"), D("8.07"))
    (reseller,) = await price(db, "100001", position("A-500", "3"))
    assert (reseller.unit_price, reseller.total, reseller.tax_amount) == (D("30.00"), D("90.00"), D("7.29"))
