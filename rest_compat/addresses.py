"""GET/PATCH /www/adressen/{AdrNr}, GET /www/adressen?debinr=, GET /www/adressensuche."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from rest_compat.body import json_object
from rest_compat.errors import ApiError
from rest_compat.execution import base_url, run_operation
from rest_compat.inputs import In, InputShape, raise_payload_errors
from rest_compat.links import link
from rest_compat.params import QueryParams, path_number
from rest_compat.responses import JsonResponse
from rest_compat.shapes import Field, Link, Links, Shape

ADDRESS = Shape(
    {
        "AdrSprache": Field("language"),
        "EmailAdress": Field("email"),
        "AdrAdresse1": Field("line1"),
        "AdrAdresse2": Field("line2"),
        "AdrAnrede": Field("salutation"),
        "AdrAnredeText": Field("salutationText"),
        "AdrFax": Field("fax"),
        "AdrFirma": Field("company"),
        "AdrFirma2": Field("company2"),
        "AdrVorname": Field("firstName"),
        "AdrName": Field("lastName"),
        "AdrTelex": Field("mobile"),
        "AdrTf1": Field("phone1"),
        "AdrTf2": Field("phone2"),
        "OrtLand": Field("country"),
        "OrtName": Field("place"),
        "OrtPLZ": Field("postalCode"),
    }
)


def address_href(base: str, number: object) -> str:
    return f"{base}/www/adressen/{number}"


def _address_links(base: str, number: int) -> list[Link]:
    href = address_href(base, number)
    return [link(href, "adressen"), link(href, "adressen", "PATCH")]


ADDRESS_ENTRY = Shape({"AdrNr": Field("number"), **ADDRESS.fields, "links": Links(("number",), _address_links)})

# The input address record; AdrCheck is input only.
ADDRESS_INPUT = InputShape(
    {
        "AdrSprache": In("language", required=True),
        "EmailAdress": In("email"),
        "AdrAdresse1": In("line1", required=True),
        "AdrAdresse2": In("line2"),
        "AdrAnrede": In("salutation", int, required=True),
        "AdrFax": In("fax"),
        "AdrFirma": In("company"),
        "AdrFirma2": In("company2"),
        "AdrVorname": In("firstName"),
        "AdrName": In("lastName"),
        "AdrTelex": In("mobile"),
        "AdrTf1": In("phone1"),
        "AdrTf2": In("phone2"),
        "OrtLand": In("country", required=True),
        "OrtName": In("place", required=True),
        "OrtPLZ": In("postalCode", required=True),
        "AdrCheck": In("check", int),
    },
    graphql_type="AddressInput",
)
SEARCH_FIELDS = {name: entry.target for name, entry in ADDRESS_INPUT.fields.items() if entry.kind is str}
SEARCH_FIELDS_BACK = {target: name for name, target in SEARCH_FIELDS.items()}

# The GraphQL fields of the types these shapes show that REST leaves out, and why: every other field of those
# types must be in a shape (tests/rest_compat/test_field_coverage.py), so a new field is a decision.
GRAPHQL_ONLY = {"Address": {"customerNumber": "the address is asked for by its AdrNr or by the customer's DebiNr"}}
ROLES = {"KundKontakt": "contact", "KundLief": "delivery", "KundRech": "billing"}

ONE = f"query Address($number: Int!) {{ address(number: $number) {ADDRESS.selection()} }}"
BY_CUSTOMER = (
    "query CustomerAddresses($number: String!) { customer(number: $number) { addresses { "
    + " ".join(f"{role} {ADDRESS_ENTRY.selection()}" for role in ROLES.values())
    + " } } }"
)
UPDATE = (
    "mutation AddressUpdate($number: Int!, $input: AddressInput!) { addressUpdate(number: $number, "
    "input: $input) { address { number } errors { field code message info } } }"
)
SEARCH = (
    "query AddressSearch($by: AddressSearchInput!) { addressSearch(by: $by) "
    "{ customerNumber contactAddressId deliveryAddressId billingAddressId } }"
)


def address_number(request: Request) -> int:
    return path_number(request, "AdrNr", "AdrNr")


async def address_detail(request: Request) -> Response:
    number = address_number(request)
    address = (await run_operation(request, ONE, {"number": number}))["address"]
    if address is None:
        raise ApiError.not_found("no such address", AdrNr=number)
    return JsonResponse({"data": ADDRESS.reshape(address, base_url(request))})


async def addresses_of_customer(request: Request) -> Response:
    number = QueryParams(request).text("debinr")
    if number is None:
        raise ApiError.invalid("debinr is required", field="debinr")
    customer = (await run_operation(request, BY_CUSTOMER, {"number": number}))["customer"]
    if customer is None:
        raise ApiError.not_found("no such customer", field="debinr", DebiNr=number)
    base = base_url(request)
    data = {
        rest: [ADDRESS_ENTRY.reshape(entry, base) for entry in customer["addresses"][role]]
        for rest, role in ROLES.items()
    }
    return JsonResponse({"count": sum(map(len, data.values())), "success": True, "data": data})


async def address_update(request: Request) -> Response:
    number = address_number(request)
    changes = ADDRESS_INPUT.to_graphql(await json_object(request, allow_empty=True), request.state.limits)
    payload = (await run_operation(request, UPDATE, {"number": number, "input": changes}))["addressUpdate"]
    raise_payload_errors(payload, ADDRESS_INPUT, {"id": "AdrNr"})
    return Response(status_code=204, headers={"Cache-Control": "no-store"})


# As the specification names them: RFC 8288 relation types, space-separated, so a client that looks for
# `adressen` or for the role finds the link.
_SEARCH_RELATIONS = (
    ("adressen KundRech", "billing"),
    ("adressen KundKontakt", "contact"),
    ("adressen KundLief", "delivery"),
)


def _search_links(match: Mapping[str, Any], base: str) -> list[Link]:
    links = []
    for rel, role in _SEARCH_RELATIONS:
        href = address_href(base, match[f"{role}AddressId"])
        links += [link(href, rel), link(href, rel, "PATCH")]
    return [*links, link(f"{base}/www/kunden/{match['customerNumber']}", "kunden")]


async def address_search(request: Request) -> Response:
    params = QueryParams(request)
    by = {target: value for name, target in SEARCH_FIELDS.items() if (value := params.text(name)) is not None}
    match = (await run_operation(request, SEARCH, {"by": by}, SEARCH_FIELDS_BACK))["addressSearch"]
    return JsonResponse(
        {
            "data": {
                "KundLief": match["deliveryAddressId"],
                "KundRech": match["billingAddressId"],
                "KundKontakt": match["contactAddressId"],
                "DebiNr": match["customerNumber"],
                "links": _search_links(match, base_url(request)),
            }
        }
    )
