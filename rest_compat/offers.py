"""GET, POST and PATCH /www/offerte."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from rest_compat.body import json_object
from rest_compat.documents import (
    ADDRESSES,
    ADDRESSES_INPUT,
    OFFER_INPUT,
    PAYLOAD_ERRORS,
    PAYMENTS,
    POSITIONS,
    TAX_SUMMARIES,
)
from rest_compat.errors import ApiError
from rest_compat.execution import base_url, run_operation
from rest_compat.inputs import In, InputShape, raise_payload_errors
from rest_compat.params import QueryParams
from rest_compat.responses import JsonResponse
from rest_compat.shapes import Field, Group, Shape

# In the order the specification lists the offer's GrundDaten.
HEADER = Shape(
    {
        "StaoNr": Field("location"),
        "KundNr": Field("customerNumber"),
        "AuftKomment": Field("comment"),
        "Template": Field("template"),
        "KundBedBez": Field("paymentConditionText"),
        "KundBedTyp": Field("paymentCondition"),
        "AuftBestellTUTC": Field("orderedAt"),
        "AuftLieferTUTC": Field("deliveryAt"),
        "AuftLiefKost": Field("deliveryCosts"),
        "AuftStatus": Field("status"),
        "AuftBestellRef": Field("reference"),
        "WaehrAbk": Field("currency"),
        "AuftWUST": Field("taxTotal"),
        "AuftBrutto": Field("grossTotal"),
        "AuftNetto": Field("netTotal"),
        "AuftNr": Field("orderNumber"),
        "AuftBez": Field("description"),
        "AuftBestellNr": Field("externalNumber"),
    }
)
OFFER = Shape(
    {
        "OffertNr": Field("number"),
        "GrundDaten": Group(HEADER),
        "Adressen": ADDRESSES,
        "Positionen": POSITIONS,
        "MWSTRekapitulation": TAX_SUMMARIES,
        "Zahlung": PAYMENTS,
    }
)
# The POST response lists no Zahlung (an offer gets none on creation).
CREATED_OFFER = Shape({name: entry for name, entry in OFFER.fields.items() if name != "Zahlung"})

CHANGE_INPUT = InputShape(
    {
        "GrundDaten": In("", shape=InputShape({"KundNr": In("customerNumber")}, graphql_type="OfferUpdateInput")),
        "Positionen": In(
            "positions",
            many=True,
            limit="positions",
            shape=InputShape(
                {
                    "PosNr": In("positionNumber", int),
                    "ArtNr": In("articleNumber"),
                    "PosBez": In("text"),
                    "Menge": In("quantity", float, required=True),
                    "GRabSatz": In("discountRate", float),
                },
                graphql_type="PositionChangeInput",
            ),
        ),
        "Adressen": ADDRESSES_INPUT,
    },
    graphql_type="OfferUpdateInput",
)

READ = f"query Offer($number: String!) {{ offer(number: $number) {OFFER.selection()} }}"
CREATE = (
    "mutation OfferCreate($input: DocumentInput!) { offerCreate(input: $input) "
    f"{{ offer {CREATED_OFFER.selection()} {PAYLOAD_ERRORS} }} }}"
)
UPDATE = (
    "mutation OfferUpdate($number: String!, $input: OfferUpdateInput!) { offerUpdate(number: $number, input: $input) "
    f"{{ offer {OFFER.selection()} {PAYLOAD_ERRORS} }} }}"
)


def _envelope(offer: dict[str, Any], shape: Shape, request: Request, status: int = 200) -> Response:
    return JsonResponse({"count": 1, "success": True, "data": shape.reshape(offer, base_url(request))}, status)


def _offer_number(params: QueryParams) -> str:
    number = params.text("OffertNr", max_length=16)
    if number is None:
        raise ApiError.invalid("OffertNr is required", field="OffertNr")
    return number


async def offer_detail(request: Request) -> Response:
    number = _offer_number(QueryParams(request))
    offer = (await run_operation(request, READ, {"number": number}))["offer"]
    if offer is None:
        raise ApiError.not_found("no such offer", OffertNr=number)
    return _envelope(offer, OFFER, request)


async def offer_create(request: Request) -> Response:
    variables = {"input": OFFER_INPUT.to_graphql(await json_object(request), request.state.limits)}
    payload = (await run_operation(request, CREATE, variables))["offerCreate"]
    raise_payload_errors(payload, OFFER_INPUT)
    return _envelope(payload["offer"], CREATED_OFFER, request, status=201)


async def offer_update(request: Request) -> Response:
    params = QueryParams(request)
    number = _offer_number(params)
    changes = CHANGE_INPUT.to_graphql(await json_object(request, allow_empty=True), request.state.limits)
    customer = params.text("KundNr", max_length=8)
    if customer is not None:
        if changes.get("customerNumber") not in (None, customer):
            raise ApiError.invalid("KundNr differs between the query and the body", field="KundNr")
        changes["customerNumber"] = customer
    payload = (await run_operation(request, UPDATE, {"number": number, "input": changes}))["offerUpdate"]
    raise_payload_errors(payload, CHANGE_INPUT, {"offerNumber": "OffertNr", "number": "OffertNr"})
    return _envelope(payload["offer"], OFFER, request)
