"""The value lists, patterns and bounds of /www/openapi.json are the domain's: what the document allows,
the domain takes (every value a pattern allows, drawn by hypothesis), and the bounds it states are where
the domain's refusals begin."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from datasources import iso
from datasources.customers.salutations import salutation_text
from datasources.customers.validation import validate_address, validate_customer
from datasources.einvoice.errors import EInvoiceError
from datasources.einvoice.operation import run_operation
from datasources.errors import DomainError, InvalidInput
from datasources.sales import taxes
from datasources.sales.validation import moment, validate_header, validate_positions
from rest_compat.openapi.schemas import (
    BLANK,
    CHANGED_QUANTITY,
    CHOICES,
    DECIMAL,
    ENUMS,
    FORMATS,
    MOMENT,
    NUMBERS,
    REQUIRED_TEXT,
    choice_pattern,
)

ADDRESS = {"language": "ger", "line1": "Weg 1", "last_name": "Muster", "country": "DE", "place": "Berlin"}


@settings(max_examples=300, deadline=None)
@given(st.from_regex(MOMENT["pattern"], fullmatch=True).filter(lambda value: len(value) <= MOMENT["maxLength"]))
def test_every_moment_the_pattern_allows_is_one_the_domain_takes(value: str) -> None:
    moment(value, "ordered_at")


@pytest.mark.parametrize("value", ["2026-11-21", "2026-11-21T10:00:00Z", " 2026-11-21 10:00+01:00 ", ""])
def test_the_moments_of_the_readme_match(value: str) -> None:
    assert re.fullmatch(MOMENT["pattern"], value)


async def test_the_operations_are_the_domains(tmp_path: Path) -> None:
    pattern = choice_pattern(CHOICES["Operation"])
    for name in ("Combine", "extract", " EXTRACT ", "cOmBiNe", "Convert", "Combined", "", " "):
        with pytest.raises(EInvoiceError) as refused:
            await run_operation(name, None, None, work_dir=tmp_path)
        accepted = refused.value.message.startswith("No PDF was sent")  # past the operation, at the PDF
        assert accepted == bool(re.fullmatch(pattern, name)), name


def test_the_value_lists_are_the_domains() -> None:
    texts = {salutation_text(salutation, language) for language in iso.language_codes() for salutation in (0, 1, 2)}
    assert set(ENUMS["AdrAnredeText"]) == texts - {None}
    assert ENUMS["Abschnitt"] == [taxes.SECTION]

    for salutation in (-1, 0, 1, 2, 3):
        for check in (None, -1, 0, 1, 2):
            values = {**ADDRESS, "postal_code": "10115", "salutation": salutation, "check": check}
            try:
                validate_address(values)
            except InvalidInput as refused:
                assert refused.field in ("salutation", "check")
                assert salutation not in ENUMS["AdrAnrede"] or check not in ENUMS["AdrCheck"]
            else:
                assert salutation in ENUMS["AdrAnrede"] and check in (None, *ENUMS["AdrCheck"])


@settings(max_examples=200, deadline=None)
@given(st.from_regex(FORMATS["EmailAdress"]["pattern"], fullmatch=True))
def test_every_e_mail_address_the_pattern_allows_is_one_the_domain_takes(email: str) -> None:
    validate_address({**ADDRESS, "postal_code": "10115", "salutation": 0, "email": email})


@settings(max_examples=200, deadline=None)
@given(st.from_regex(FORMATS["ZahlungsMethode"]["pattern"], fullmatch=True))
def test_every_payment_method_list_the_pattern_allows_is_one_the_domain_takes(methods: str) -> None:
    validate_customer({"payment_type": "B", "currency": "CHF", "payment_methods": methods})


@pytest.mark.parametrize("methods", ["x", "K;R", " ", ",", "KR"])
def test_a_payment_method_list_the_pattern_refuses_is_refused(methods: str) -> None:
    assert not re.fullmatch(FORMATS["ZahlungsMethode"]["pattern"], methods)
    with pytest.raises(InvalidInput):
        validate_customer({"payment_type": "B", "currency": "CHF", "payment_methods": methods})


def test_the_white_space_of_the_patterns_is_python_s() -> None:
    spaces = "".join(chr(code) for code in range(sys.maxunicode + 1) if chr(code).isspace())
    assert re.fullmatch(BLANK, spaces)
    assert not any(re.fullmatch(REQUIRED_TEXT, space) for space in spaces)
    assert re.fullmatch(REQUIRED_TEXT, "\ufeff")  # JSON Schema's \s takes it, Python's strip() does not


def _position(name: str) -> Callable[[Any], object]:
    field = {"Menge": "quantity", "Preis": "price", "GRabSatz": "discount_rate"}[name]

    def check(value: Any) -> object:
        return validate_positions([{"article_number": "A-1", "quantity": 1, field: value}], 10)

    return check


def _header(field: str) -> Callable[[Any], object]:
    return lambda value: validate_header({field: value})


CHECKS: dict[str, Callable[[Any], object]] = {
    "Menge": _position("Menge"),
    "Preis": _position("Preis"),
    "GRabSatz": _position("GRabSatz"),
    "AuftLiefKost": _header("delivery_costs"),
    "KundBedTyp": _header("payment_condition"),
    "StaoNr": _header("location"),
    "KreditLimit": lambda value: validate_customer({"payment_type": "B", "currency": "CHF", "credit_limit": value}),
}


@pytest.mark.parametrize("name", sorted(NUMBERS))
def test_the_bounds_of_a_number_are_where_the_domain_s_refusals_begin(name: str) -> None:
    bounds, check = NUMBERS[name], CHECKS[name]
    whole = name in ("KundBedTyp", "StaoNr", "KreditLimit")
    step = 1 if whole else 0.0001
    for key, inside, outside in (
        ("minimum", 0, -step),
        ("exclusiveMinimum", step, 0),
        ("maximum", 0, step),
        ("exclusiveMaximum", -step, 0),
    ):
        if key in bounds:
            check(bounds[key] + inside)
            with pytest.raises(DomainError):
                check(bounds[key] + outside)


def test_every_decimal_is_below_ten_to_the_tenth_and_a_changed_quantity_may_be_0() -> None:
    check = _header("delivery_costs")
    check(DECIMAL["exclusiveMaximum"] - 1)
    with pytest.raises(InvalidInput):
        check(DECIMAL["exclusiveMaximum"])
    assert CHANGED_QUANTITY["minimum"] == 0
