"""GET /www/auftrag/{AuftNr}, POST /www/auftrag (new order), PUT /www/auftrag (offer -> order)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from rest_compat.body import json_object
from rest_compat.documents import (
    ADDRESSES,
    ORDER_INPUT,
    PAYLOAD_ERRORS,
    PAYMENT_INPUT,
    PAYMENTS,
    POSITIONS,
    TAX_SUMMARIES,
)
from rest_compat.errors import ApiError
from rest_compat.execution import base_url, run_operation
from rest_compat.inputs import In, InputShape, raise_payload_errors
from rest_compat.responses import JsonResponse
from rest_compat.shapes import Field, Group, Shape

HEADER = Shape(
    {
        "AuftNr": Field("number"),
        "KundNr": Field("customerNumber"),
        "AuftBez": Field("description"),
        "AuftBestellNr": Field("externalNumber"),
        "AuftBestellRef": Field("reference"),
        "AuftBestellTUTC": Field("orderedAt"),
        "AuftLieferTUTC": Field("deliveryAt"),
        "WaehrAbk": Field("currency"),
        "AuftKomment": Field("comment"),
        "KundBedTyp": Field("paymentCondition"),
        "AuftLiefKost": Field("deliveryCosts"),
        "StaoNr": Field("location"),
        "AuftStatus": Field("status"),
        "AuftNetto": Field("netTotal"),
        "AuftWUST": Field("taxTotal"),
        "AuftBrutto": Field("grossTotal"),
    }
)
ORDER = Shape(
    {
        "GrundDaten": Group(HEADER),
        "Adressen": ADDRESSES,
        "Positionen": POSITIONS,
        "MWSTRekapitulation": TAX_SUMMARIES,
        "Zahlung": PAYMENTS,
    }
)
CONVERT_INPUT = InputShape(
    {
        "GrundDaten": In(
            "",
            required=True,
            shape=InputShape(
                {"KundNr": In("customerNumber", required=True), "OffertNr": In("offerNumber", required=True)},
                graphql_type="OfferConvertInput",
            ),
        ),
        "Zahlung": In("payments", shape=PAYMENT_INPUT, many=True, limit="payments"),
    },
    graphql_type="OfferConvertInput",
)

READ = f"query Order($number: String!) {{ order(number: $number) {ORDER.selection()} }}"
CREATE = (
    "mutation OrderCreate($input: DocumentInput!, $key: String) { orderCreate(input: $input, idempotencyKey: $key) "
    f"{{ order {{ number }} outcome {PAYLOAD_ERRORS} }} }}"
)
CONVERT = (
    "mutation OfferConvert($input: OfferConvertInput!) { offerConvert(input: $input) "
    f"{{ order {{ number }} outcome {PAYLOAD_ERRORS} }} }}"
)


async def order_detail(request: Request) -> Response:
    number = request.path_params["AuftNr"]
    order = (await run_operation(request, READ, {"number": number}))["order"]
    if order is None:
        raise ApiError.not_found("no such order", AuftNr=number)
    return JsonResponse({"data": ORDER.reshape(order, base_url(request))})


async def order_create(request: Request) -> Response:
    variables = {
        "input": ORDER_INPUT.to_graphql(await json_object(request), request.state.limits),
        "key": request.headers.get("idempotency-key"),
    }
    payload = (await run_operation(request, CREATE, variables))["orderCreate"]
    raise_payload_errors(payload, ORDER_INPUT, {"idempotencyKey": "Idempotency-Key"})
    # A repeated Idempotency-Key answers as the first request did; the same request again with the
    # customer's AuftBestellNr finds its order: 200.
    status = 200 if payload["outcome"] == "EXISTING" else 201
    return JsonResponse({"data": {"AuftNr": payload["order"]["number"]}}, status_code=status)


async def order_from_offer(request: Request) -> Response:
    variables = {"input": CONVERT_INPUT.to_graphql(await json_object(request), request.state.limits)}
    payload = (await run_operation(request, CONVERT, variables))["offerConvert"]
    raise_payload_errors(payload, CONVERT_INPUT)
    return JsonResponse({"count": 1, "success": True, "data": {"AuftNr": payload["order"]["number"]}}, status_code=201)
