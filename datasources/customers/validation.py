"""The rules of the input address record and of a customer's GrundDaten.

Errors name the field by its Python name, prefixed with where it sits (`contact_address.postal_code`);
the schema renders that path in camelCase and the REST layer in the ERP's names.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from datasources import iso
from datasources.customers.localities import check_swiss_locality
from datasources.customers.records import ADDRESS_TEXT_FIELDS, AddressFields, CustomerFields
from datasources.errors import InvalidInput

ADDRESS_LENGTHS = {
    "email": 255,
    "line1": 60,
    "line2": 60,
    "fax": 28,
    "company": 36,
    "company2": 36,
    "first_name": 36,
    "last_name": 36,
    "mobile": 28,
    "phone1": 28,
    "phone2": 28,
    "place": 48,
    "postal_code": 10,
}
REQUIRED_ADDRESS_FIELDS = ("language", "line1", "salutation", "country", "place", "postal_code")
CUSTOMER_LENGTHS = {
    "payment_type": 1,
    "expenses": 32,
    "shipping_type": 12,
    "transport_insurance_type": 12,
    "comment": 255,
    "tax_number": 20,
    "company_url": 20,
}
PAYMENT_METHODS = ("K", "R")  # K credit card outside the ERP, R invoice through the ERP
# Plausible, not RFC-complete: one @, no spaces, a dot in the domain.
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def _path(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _text(values: Mapping[str, Any], name: str, prefix: str, max_length: int | None) -> str | None:
    value = values.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None  # empty text is no value
    if not isinstance(value, str):
        raise InvalidInput("must be text", field=_path(prefix, name))
    if max_length is not None and len(value) > max_length:
        raise InvalidInput(f"must have at most {max_length} characters", field=_path(prefix, name))
    return value


def validate_address(values: Mapping[str, Any], *, prefix: str = "") -> AddressFields:
    """An input address record, checked and normalised; text is kept exactly as sent."""
    for name in REQUIRED_ADDRESS_FIELDS:
        value = values.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            raise InvalidInput("is required", field=_path(prefix, name))
    text = {name: _text(values, name, prefix, ADDRESS_LENGTHS.get(name)) for name in ADDRESS_TEXT_FIELDS}
    salutation = values["salutation"]
    if salutation not in (0, 1, 2) or isinstance(salutation, bool):
        raise InvalidInput("must be 0 (company or general), 1 (Mr) or 2 (Ms)", field=_path(prefix, "salutation"))
    if text["company"] is None and text["last_name"] is None:
        raise InvalidInput("a company name or a last name is required", field=_path(prefix, "last_name"))
    if text["email"] is not None and not _EMAIL.fullmatch(text["email"]):
        raise InvalidInput("is not a plausible e-mail address", field=_path(prefix, "email"))
    language = iso.language(str(text["language"]), field=_path(prefix, "language"))
    country = iso.country(str(text["country"]), field=_path(prefix, "country"))
    place, postal_code = str(text["place"]), str(text["postal_code"]).strip()
    if _wants_check(values.get("check"), country, prefix):
        try:
            place = check_swiss_locality(postal_code, place)
        except InvalidInput as error:
            raise InvalidInput(error.message, field=_path(prefix, "postal_code")) from None
    fields = {**text, "language": language, "country": country, "place": place, "postal_code": postal_code}
    return AddressFields(salutation=salutation, **fields)  # type: ignore[arg-type]


def _wants_check(check: Any, country: str, prefix: str) -> bool:
    """AdrCheck: default 1 for Swiss addresses, else 0. Only Swiss places have a directory to check."""
    if check is None:
        return country == "CH"
    if check not in (0, 1) or isinstance(check, bool):
        raise InvalidInput("must be 0 or 1", field=_path(prefix, "check"))
    return bool(check) and country == "CH"


def validate_customer(values: Mapping[str, Any]) -> CustomerFields:
    """GrundDaten of a new customer (the currency's existence in the ERP is checked on insert)."""
    text = {name: _text(values, name, "", length) for name, length in CUSTOMER_LENGTHS.items()}
    if text["payment_type"] is None:
        raise InvalidInput("is required", field="payment_type")
    if values.get("currency") in (None, ""):
        raise InvalidInput("is required", field="currency")
    credit_limit = values.get("credit_limit")
    if credit_limit is None:
        credit_limit = 0
    if isinstance(credit_limit, bool) or not isinstance(credit_limit, int) or credit_limit < 0:
        raise InvalidInput("must be a whole number of at least 0 (0 = blocked)", field="credit_limit")
    language = values.get("language")
    return CustomerFields(
        currency=iso.currency(str(values["currency"]), field="currency"),
        language=iso.language(str(language), field="language") if language else None,
        credit_limit=credit_limit,
        payment_methods=_payment_methods(values.get("payment_methods")),
        payment_type=text.pop("payment_type") or "",
        **text,
    )


def _payment_methods(value: Any) -> str | None:
    if value in (None, ""):
        return None
    codes = [code.strip().upper() for code in str(value).split(",") if code.strip()]
    if not codes or any(code not in PAYMENT_METHODS for code in codes):
        raise InvalidInput("is a comma-separated list of K (credit card) and R (invoice)", field="payment_methods")
    return ",".join(dict.fromkeys(codes))
