"""What a schema cannot say about a valid /www request, put into schemathesis' positive cases before they
are sent, so that positive_data_acceptance judges everything else (loaded with schemathesis_hooks.py).

Each change is a rule of the ERP's data or of the README that OpenAPI cannot express:
- the currencies the ERP keeps: a customer's WaehrAbk must be one (the demo has CHF and EUR);
- the Swiss postal directory: a Swiss address's OrtPLZ must fit its OrtName unless AdrCheck is 0, and a
  PATCH may not say whether the stored address is Swiss, so every address naming a place turns it off;
- a company or a last name: a PATCH that blanks one cannot know whether the stored address has the other;
- four decimal places of amounts (`multipleOf: 0.0001` is not exact for binary floats);
- the address search's "at least one field";
- PATCH /www/offerte's KundNr, which the query and the body may both give, but then alike.
Negative cases are sent as they are.
"""

from __future__ import annotations

import math
from typing import Any

import schemathesis

ERP_CURRENCIES = ("CHF", "EUR")
STEP = 0.0001  # amounts and quantities have four decimal places
LARGEST = 10**10  # every decimal is below
SEARCH = "/www/adressensuche"
PLACE = {"OrtLand", "OrtPLZ", "OrtName"}
NAMES = {"AdrFirma", "AdrName"}


@schemathesis.hook("before_call")
def with_erp_data(ctx: Any, case: Any, **kwargs: Any) -> None:
    if case.meta is None or not case.meta.generation.mode.is_positive:
        return
    if isinstance(case.body, dict):
        case.body = erp_data(case.body)
        grund = case.body.get("GrundDaten")
        customer = (case.query or {}).get("KundNr")
        if customer is not None and isinstance(grund, dict) and "KundNr" in grund:
            grund["KundNr"] = customer  # PATCH /www/offerte: the query's and the body's KundNr must agree
    if case.path == SEARCH and not any(str(value).strip() for value in (case.query or {}).values()):
        case.query = {**(case.query or {}), "OrtPLZ": "3011"}


def erp_data(value: Any) -> Any:
    """The body with the ERP's data where a schema-valid value may name something the ERP lacks."""
    if isinstance(value, list):
        return [erp_data(item) for item in value]
    if isinstance(value, float):
        return four_places(value)
    if not isinstance(value, dict):
        return value
    record = {name: erp_data(item) for name, item in value.items()}
    currency = record.get("WaehrAbk")
    if isinstance(currency, str) and currency.strip() and currency.strip().upper() not in ERP_CURRENCIES:
        record["WaehrAbk"] = ERP_CURRENCIES[0]
    if PLACE & record.keys():  # the address may be Swiss, as sent or (PATCH) as stored
        record["AdrCheck"] = 0
    if NAMES & record.keys() and not any(_visible(record.get(name)) for name in NAMES):
        record["AdrName"] = "Muster"  # a PATCH that blanks one may leave the stored address with neither
    return record


def _visible(text: Any) -> bool:
    return isinstance(text, str) and bool(text.strip())


def four_places(number: float) -> float:
    """Rounded to four places, but neither to 0 (a bound of its own: Menge > 0) nor up to 10^10."""
    rounded = round(number, 4)
    if rounded == 0 and number != 0:
        return math.copysign(STEP, number)
    if abs(rounded) >= LARGEST:
        return math.copysign(LARGEST - 1, number)
    return rounded
