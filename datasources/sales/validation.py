"""The rules of GrundDaten, Positionen and Zahlung of offers and orders.

Fields are named by their Python path (`positions.2.quantity`); the schema renders it in camelCase and
the REST layer in the ERP's names. Malformed input is InvalidInput (400); input that is well-formed but
impossible, such as a quantity of 0, is Unprocessable (422) and names the position. How many positions
and payments a document may have is the caller's (configured) limit, checked before any entry is.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any
from zoneinfo import ZoneInfo

from datasources import iso
from datasources.errors import InvalidInput, Unprocessable
from datasources.sales.records import Header, PaymentInput, PositionChange, PositionInput

# A time without a zone is the ERP's local time.
ERP_ZONE = ZoneInfo("Europe/Zurich")
HEADER_LENGTHS = {
    "customer_number": 8,
    "description": 80,
    "external_number": 36,
    "reference": 60,
    "comment": 255,
    "cost_unit": 6,
}
POSITION_LENGTHS = {"article_number": 15, "text": 2048, "packaging_unit": 30}


def text(values: Mapping[str, Any], name: str, limit: int, *, path: str = "") -> str | None:
    value = values.get(name)
    where = f"{path}{name}"
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if not isinstance(value, str):
        raise InvalidInput("must be text", field=where)
    if len(value) > limit:
        raise InvalidInput(f"must have at most {limit} characters", field=where)
    return value


# Quantities and amounts are stored as Numeric(14, 4).
MAX_NUMBER = Decimal(10) ** 10
MAX_PLACES = 4


def decimal(value: Any, where: str) -> Decimal | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise InvalidInput("must be a number", field=where)
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        raise InvalidInput("must be a number", field=where) from None
    if not number.is_finite() or abs(number) >= MAX_NUMBER:
        raise InvalidInput(f"must be a number below {MAX_NUMBER:,}", field=where)
    if -number.as_tuple().exponent > MAX_PLACES:  # type: ignore[operator]
        raise InvalidInput(f"has more than {MAX_PLACES} decimal places", field=where)
    return number


def moment(value: Any, where: str) -> dt.datetime | None:
    """ISO 8601 date or date and time; without a zone it is the ERP's local time (Europe/Zurich). Any
    year from 1 to 9999 is accepted as long as the time, turned into UTC, stays within those years."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > 32:
        raise InvalidInput("must be an ISO 8601 date, e.g. 2026-11-21T10:00:00Z", field=where)
    try:
        parsed = dt.datetime.fromisoformat(value.strip())
    except ValueError:
        raise InvalidInput(f"{value!r} is not an ISO 8601 date", field=where) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=ERP_ZONE)
    try:
        return parsed.astimezone(dt.UTC)
    except OverflowError:  # 9999-12-31T23:59:59-14:00 is in the year 10000 in UTC
        raise InvalidInput(
            f"{value!r} is out of range: in UTC it must fall within the years 1 to 9999", field=where
        ) from None


def _small_int(values: Mapping[str, Any], name: str, low: int, high: int) -> int | None:
    value = values.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(f"must be a whole number from {low} to {high}", field=name)
    return value


def validate_header(values: Mapping[str, Any]) -> Header:
    texts = {name: text(values, name, limit) for name, limit in HEADER_LENGTHS.items()}
    currency = values.get("currency")
    delivery_costs = decimal(values.get("delivery_costs"), "delivery_costs")
    if delivery_costs is not None and delivery_costs < 0:
        raise InvalidInput("cannot be negative", field="delivery_costs")
    return Header(
        currency=iso.currency(str(currency), field="currency") if currency else None,
        ordered_at=moment(values.get("ordered_at"), "ordered_at"),
        delivery_at=moment(values.get("delivery_at"), "delivery_at"),
        payment_condition=_small_int(values, "payment_condition", 0, 255),
        location=_small_int(values, "location", 0, 2**31 - 1),
        delivery_costs=delivery_costs,
        **texts,
    )


def check_count(entries: Sequence[object] | None, limit: int, field: str, what: str) -> None:
    """More entries than the limit are refused before any of them is looked at: the work stays bounded."""
    if entries is not None and len(entries) > limit:
        raise InvalidInput(f"at most {limit} {what}", field=field, info={"limit": limit})


def validate_positions(entries: Sequence[Mapping[str, Any]] | None, limit: int) -> list[PositionInput]:
    if not entries:
        raise InvalidInput("at least one position is required", field="positions")
    check_count(entries, limit, "positions", "positions")
    return [_position(entry, index) for index, entry in enumerate(entries)]


def _position(entry: Mapping[str, Any], index: int) -> PositionInput:
    path = f"positions.{index}."
    texts = {name: text(entry, name, limit, path=path) for name, limit in POSITION_LENGTHS.items()}
    article = texts.pop("article_number")
    if article is None:
        raise InvalidInput("is required", field=f"{path}article_number")
    quantity = decimal(entry.get("quantity"), f"{path}quantity")
    if quantity is None:
        raise InvalidInput("is required", field=f"{path}quantity")
    display = entry.get("display_number")
    if display is not None and (isinstance(display, bool) or not isinstance(display, int)):
        raise InvalidInput("must be a whole number", field=f"{path}display_number")
    position = PositionInput(
        article_number=article,
        quantity=quantity,
        price=decimal(entry.get("price"), f"{path}price"),
        discount_rate=decimal(entry.get("discount_rate"), f"{path}discount_rate"),
        display_number=display,
        **texts,
    )
    check_amounts(position.quantity, position.discount_rate, index)
    if position.price is not None and position.price < 0:
        raise Unprocessable("a price cannot be negative", field=f"{path}price", info={"position": index + 1})
    return position


def refuse_prices(positions: Sequence[PositionInput]) -> None:
    """Offers are priced by the rules stored in the ERP only; the specification gives them no Preis."""
    for index, position in enumerate(positions):
        if position.price is not None:
            raise InvalidInput(
                "offers are priced by the ERP: a position of an offer takes no price", field=f"positions.{index}.price"
            )


def check_amounts(quantity: Decimal, discount_rate: Decimal | None, index: int) -> None:
    """Well-formed but impossible amounts; `index` is the position's place in the request."""
    path, position = f"positions.{index}.", {"position": index + 1}
    if quantity <= 0:
        raise Unprocessable("the quantity must be above 0", field=f"{path}quantity", info=position)
    if discount_rate is not None and not 0 <= discount_rate <= 100:
        raise Unprocessable("the discount must be from 0 to 100 percent", field=f"{path}discount_rate", info=position)


def validate_changes(entries: Sequence[Mapping[str, Any]], limit: int) -> list[PositionChange]:
    check_count(entries, limit, "positions", "position changes")
    changes = []
    for index, entry in enumerate(entries):
        path = f"positions.{index}."
        number = entry.get("position_number")
        if number is not None and (isinstance(number, bool) or not isinstance(number, int)):
            raise InvalidInput("must be a whole number", field=f"{path}position_number")
        quantity = decimal(entry.get("quantity"), f"{path}quantity")
        if quantity is None:
            raise InvalidInput("is required", field=f"{path}quantity")
        change = PositionChange(
            position_number=number,
            quantity=quantity,
            article_number=text(entry, "article_number", 15, path=path),
            text=text(entry, "text", 2048, path=path),
            discount_rate=decimal(entry.get("discount_rate"), f"{path}discount_rate"),
        )
        if number is None:
            if change.article_number is None:
                raise InvalidInput("a new position needs an article", field=f"{path}article_number")
            check_amounts(change.quantity, change.discount_rate, index)
        elif quantity != 0:
            check_amounts(change.quantity, change.discount_rate, index)
        changes.append(change)
    return changes


def validate_payments(entries: Sequence[Mapping[str, Any]] | None, limit: int) -> list[PaymentInput]:
    """Zahlung entries, kept as sent. The reserved names Dienstleister, TransID and payment_method are
    ordinary entries here; the ERP assigns payments by them later."""
    check_count(entries, limit, "payments", "payments")
    payments = []
    for index, entry in enumerate(entries or ()):
        path = f"payments.{index}."
        designation = text(entry, "designation", 255, path=path)
        if designation is None:
            raise InvalidInput("is required", field=f"{path}designation")
        payments.append(PaymentInput(designation, text(entry, "value", 200, path=path)))
    return payments
