"""POST /www/kunden and GET /www/kunden/{DebiNr}."""

from __future__ import annotations

from functools import lru_cache

from starlette.requests import Request
from starlette.responses import Response

from rest_compat.addresses import ADDRESS_INPUT
from rest_compat.articles import ATTRIBUTE
from rest_compat.body import json_object
from rest_compat.errors import ApiError
from rest_compat.execution import base_url, run_operation
from rest_compat.inputs import In, InputShape, raise_payload_errors
from rest_compat.links import link
from rest_compat.params import QueryParams
from rest_compat.responses import JsonResponse
from rest_compat.shapes import Field, Link, Links, Shape

CUSTOMER_INPUT = InputShape(
    {
        "GrundDaten": In(
            "",
            required=True,
            shape=InputShape(
                {
                    "WaehrAbk": In("currency", required=True),
                    "FAKTZahlArt": In("paymentType", required=True),
                    "AdrSprache": In("language"),
                    "AUFT_SPESEN": In("expenses"),
                    "VBTyp": In("shippingType"),
                    "TVTyp": In("transportInsuranceType"),
                    "Kommentar": In("comment"),
                    "SteuerNummer": In("taxNumber"),
                    "FirmenURL": In("companyUrl"),
                    "KreditLimit": In("creditLimit", int),
                    "ZahlungsMethode": In("paymentMethods"),
                },
                graphql_type="CustomerCreateInput",
            ),
        ),
        "Adressen": In(
            "",
            required=True,
            shape=InputShape(
                {
                    "KontaktAdr": In("contactAddress", shape=ADDRESS_INPUT, required=True),
                    "LiefAdr": In("deliveryAddress", shape=ADDRESS_INPUT),
                    "RechAdr": In("billingAddress", shape=ADDRESS_INPUT),
                },
                graphql_type="CustomerCreateInput",
            ),
        ),
    },
    graphql_type="CustomerCreateInput",
)

CREATE = (
    "mutation CustomerCreate($input: CustomerCreateInput!) { customerCreate(input: $input) "
    "{ customer { number } errors { field code message info } } }"
)


def _order_links(base: str, number: str) -> list[Link]:
    return [link(f"{base}/www/auftrag/{number}", "auftrag")]


def _customer_links(base: str, number: str) -> list[Link]:
    return [
        link(f"{base}/www/kunden/{number}", "kunden"),
        link(f"{base}/www/adressen?debinr={number}", "adressen"),
    ]


ORDER_ENTRY = Shape(
    {
        "PlanStatus": Field("planStatus"),
        "AuftErf": Field("capturedAt"),
        "AuftNr": Field("number"),
        "links": Links(("number",), _order_links),
    }
)

CUSTOMER = Shape(
    {
        "status": Field("status"),
        "WaehrAbk": Field("currency"),
        "BrancheID": Field("industry"),
        "AdrSprache": Field("language"),
        "KundLief": Field("deliveryAddressId"),
        "KundRech": Field("billingAddressId"),
        "KundKontakt": Field("contactAddressId"),
        "VBTyp": Field("shippingType"),
        "ZahlungsMethode": Field("paymentMethods", omit_null=True),
        "KundBez": Field("designation"),
        "Kommentar": Field("comment"),
        "attributes": Field("attributes", shape=ATTRIBUTE),
        "links": Links(("number",), _customer_links),
        "Auftrag": Field("orders", shape=ORDER_ENTRY, arguments="limit: $order, status: $status"),
    }
)
PLAN_STATUSES = ("N", "O", "A")
# The GraphQL fields of the types these shapes show that REST leaves out, and why: every other field of those
# types must be in a shape (tests/rest_compat/test_field_coverage.py), so a new field is a decision.
GRAPHQL_ONLY = {
    "Customer": {
        "addresses": "GET /www/adressen?debinr= lists them",
        "creditLimit": "KreditLimit is input only in the specification (POST /www/kunden)",
    }
}


@lru_cache(maxsize=64)
def detail_operation(fields: tuple[str, ...] | None) -> tuple[Shape, str]:
    shape = CUSTOMER.select(fields)
    # GraphQL refuses declared variables that are never used: the order list's only when it is selected.
    declared = (
        "$number: String!, $order: Int!, $status: PlanStatus" if "Auftrag" in shape.fields else "$number: String!"
    )
    return shape, f"query Customer({declared}) {{ customer(number: $number) {shape.selection()} }}"


async def customer_create(request: Request) -> Response:
    variables = {"input": CUSTOMER_INPUT.to_graphql(await json_object(request), request.state.limits)}
    payload = (await run_operation(request, CREATE, variables))["customerCreate"]
    raise_payload_errors(payload, CUSTOMER_INPUT)
    return JsonResponse({"data": {"DebiNr": payload["customer"]["number"]}}, status_code=201)


async def customer_detail(request: Request) -> Response:
    params = QueryParams(request)
    status = params.text("status")
    if status is not None and status.upper() not in PLAN_STATUSES:
        raise ApiError.invalid("status must be O, N or A", field="status")
    shape, document = detail_operation(params.names("fields"))
    variables = {
        "number": request.path_params["DebiNr"],
        "order": params.integer("order", default=0),
        "status": status.upper() if status else None,
    }
    customer = (await run_operation(request, document, variables))["customer"]
    if customer is None:
        raise ApiError.not_found("no such customer", DebiNr=request.path_params["DebiNr"])
    return JsonResponse({"data": shape.reshape(customer, base_url(request))})
