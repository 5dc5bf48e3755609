"""A document's input value built from what graphql-core coerced (schema/input_builder.py) is the value
Strawberry's own conversion builds: every field, nulls, unsent fields, nested inputs and lists."""

from __future__ import annotations

from collections.abc import Iterator
from enum import Enum
from typing import Any

import pytest
import strawberry
from strawberry.types.arguments import convert_arguments
from strawberry.types.base import get_object_definition

import schema.execution  # noqa: F401 (the schema's modules import in this order)
from schema.input_builder import build, builds_itself
from schema.sales.inputs import DocumentInput
from schema.sales.mutations import SalesMutation
from schema.schema import build_schema

ADDRESS: dict[str, Any] = {
    "language": "ger",
    "email": "max@example.com",
    "line1": "Friedrichstrasse 10",
    "line2": None,
    "salutation": 1,
    "firstName": "Max",
    "lastName": "Muster",
    "country": "DE",
    "place": "Berlin",
    "postalCode": "10117",
    "check": 0,
}
EVERY_FIELD: dict[str, Any] = {
    "customerNumber": "100002",
    "description": "Bürostühle",
    "externalNumber": "PO-1",
    "reference": None,
    "orderedAt": "2026-11-27T10:00:00Z",
    "deliveryAt": None,
    "currency": "EUR",
    "comment": "bitte klingeln",
    "costUnit": "KT1",
    "paymentCondition": 3,
    "deliveryCosts": 12.5,
    "location": 2,
    "contactAddress": ADDRESS,
    "deliveryAddress": {"lastName": "Livraison"},
    "billingAddress": None,
    "positions": [
        {
            "articleNumber": "A-100",
            "quantity": 2.0,
            "text": "Hammer",
            "price": 12.3456,
            "packagingUnit": "KAR",
            "discountRate": 5.0,
            "displayNumber": 7,
        },
        {"articleNumber": "A-200", "quantity": 24.0, "text": None},
    ],
    "payments": [{"designation": "Dienstleister", "value": "Datatrans"}, {"designation": "TransID", "value": None}],
}


@pytest.fixture(scope="module")
def arguments() -> Any:
    built = build_schema()
    mutation = get_object_definition(SalesMutation, strict=True)
    field = next(f for f in mutation.fields if f.python_name == "order_create")

    def convert(value: dict[str, Any], *, strawberrys: bool = False) -> Any:
        definition = get_object_definition(DocumentInput, strict=True)
        definition.from_input = None if strawberrys else build
        try:
            converted = convert_arguments(
                {"input": value}, field.arguments, built.schema_converter.scalar_registry, built.config
            )
        finally:
            definition.from_input = build
        return converted["input"]

    return convert


def inputs() -> Iterator[dict[str, Any]]:
    yield EVERY_FIELD
    yield {"customerNumber": "100002", "positions": [{"articleNumber": "A-100", "quantity": 1.0}]}
    yield {"positions": None, "payments": None, "contactAddress": None}
    yield {"positions": [], "payments": []}
    yield {}


@pytest.mark.parametrize("value", list(inputs()))
def test_the_built_input_is_strawberrys(arguments: Any, value: dict[str, Any]) -> None:
    built, strawberrys = arguments(value), arguments(value, strawberrys=True)
    assert built == strawberrys
    assert repr(built) == repr(strawberrys)  # the same classes, the same UNSET fields
    if value.get("positions"):
        assert built.positions is not value["positions"]  # a list of its own, as Strawberry makes


def test_a_type_with_fields_it_cannot_build_is_refused_when_planned(arguments: Any) -> None:
    @strawberry.enum
    class Colour(Enum):
        RED = "red"

    @builds_itself
    @strawberry.input
    class Painted:
        colour: Colour | None = None

    with pytest.raises(TypeError, match="left to Strawberry"):
        build(Painted, {"colour": Colour.RED}, _context())


def _context() -> Any:
    from strawberry.schema.config import StrawberryConfig
    from strawberry.types.arguments import InputContext

    return InputContext(info=None, config=StrawberryConfig(), scalar_registry={}, path=())
