"""Offers and orders over /graphql: creation with outcomes and typed errors, reads, changes, conversion, scopes
and statements per document."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
from sqlalchemy import func, select

from datasources.database import Database
from datasources.models import CompanyAttribute, OutboxEvent, SalesDocument
from tests.catalogue_data import Catalogue
from tests.factories import Factory
from tests.http import statement_count

DOCUMENT = """fragment Document on SalesDocument {
    number kind customerNumber status template description externalNumber reference orderedAt deliveryAt
    currency comment costUnit paymentCondition paymentConditionText deliveryCosts location
    netTotal taxTotal grossTotal roundingAmount orderNumber offerNumber
    contactAddress { number customerNumber language lastName place }
    deliveryAddress { number } billingAddress { number }
    positions { number displayNumber articleNumber text quantity priceBasis unitPrice total taxAmount
        packagingQuantity packagingUnitPrice packagingUnit taxRate discountRate discountDesignation }
    taxSummary { section currency tax rate designation net code taxClass turnoverLine salesTaxLine inputTaxLine }
    payments { designation value key } }"""
ERRORS = "errors { field code message info }"
ORDER_CREATE = (
    "mutation($input: DocumentInput!, $key: String) { orderCreate(input: $input, idempotencyKey: $key) {"
    f" order {{ ...Document }} outcome {ERRORS} }} }}" + DOCUMENT
)
OFFER_CREATE = (
    f"mutation($input: DocumentInput!) {{ offerCreate(input: $input) {{ offer {{ ...Document }} {ERRORS} }} }}"
    + DOCUMENT
)
OFFER_UPDATE = (
    "mutation($number: String!, $input: OfferUpdateInput!) { offerUpdate(number: $number, input: $input) {"
    f" offer {{ ...Document }} {ERRORS} }} }}" + DOCUMENT
)
OFFER_CONVERT = (
    "mutation($input: OfferConvertInput!) { offerConvert(input: $input) {"
    f" order {{ ...Document }} outcome {ERRORS} }} }}" + DOCUMENT
)
READ = "query($n: String!) { order(number: $n) { ...Document } offer(number: $n) { ...Document } }" + DOCUMENT

HAMMER: dict[str, Any] = {"articleNumber": "A-100", "quantity": 1}
CARTONS: dict[str, Any] = {"articleNumber": "A-200", "quantity": 24, "packagingUnit": "KAR"}
DOWELS: dict[str, Any] = {"articleNumber": "A-600", "quantity": 250}
CONTACT: dict[str, Any] = {
    "language": "fre",
    "line1": "Rue du Rhône 1",
    "salutation": 2,
    "lastName": "Dupont",
    "country": "FR",
    "place": "Lyon",
    "postalCode": "69001",
}
PAYMENTS: list[dict[str, Any]] = [
    {"designation": "Dienstleister", "value": "Datatrans"},
    {"designation": "TransID", "value": "T-1"},
]

# The positions of ORDER as the document shows them.
POSITIONS: list[dict[str, Any]] = [
    {
        "number": 1,
        "displayNumber": 10,
        "articleNumber": "A-100",
        "text": "Hammer",
        "quantity": 10.0,
        "priceBasis": 1.0,
        "unitPrice": 11.0,
        "total": 110.0,
        "taxAmount": 2.86,
        "packagingQuantity": None,
        "packagingUnitPrice": None,
        "packagingUnit": None,
        "taxRate": 2.6,
        "discountRate": None,
        "discountDesignation": None,
    },
    {
        "number": 2,
        "displayNumber": 20,
        "articleNumber": "A-200",
        "text": "Schrauben im Karton",
        "quantity": 24.0,
        "priceBasis": 1.0,
        "unitPrice": 1.8333,
        "total": 44.0,
        "taxAmount": 3.56,
        "packagingQuantity": 2.0,
        "packagingUnitPrice": 22.0,
        "packagingUnit": "KAR",
        "taxRate": 8.1,
        "discountRate": None,
        "discountDesignation": None,
    },
    {
        "number": 3,
        "displayNumber": None,
        "articleNumber": "A-600",
        "text": "Dübel",
        "quantity": 250.0,
        "priceBasis": 1.0,
        "unitPrice": 0.1,
        "total": 22.5,
        "taxAmount": 1.82,
        "packagingQuantity": 250.0,
        "packagingUnitPrice": 0.1,
        "packagingUnit": "STK",
        "taxRate": 8.1,
        "discountRate": 10.0,
        "discountDesignation": None,
    },
]
TAX_SUMMARY: list[dict[str, Any]] = [
    {
        "section": "UST-Rekap",
        "currency": "CHF",
        "tax": 5.38,
        "rate": 8.1,
        "designation": "Normalsatz",
        "net": 66.5,
        "code": "N81",
        "taxClass": "C",
        "turnoverLine": "200",
        "salesTaxLine": "303",
        "inputTaxLine": "400",
    },
    {
        "section": "UST-Rekap",
        "currency": "CHF",
        "tax": 2.86,
        "rate": 2.6,
        "designation": "Reduzierter Satz",
        "net": 110.0,
        "code": "R26",
        "taxClass": "C",
        "turnoverLine": "200",
        "salesTaxLine": "313",
        "inputTaxLine": "400",
    },
]
ORDER: dict[str, Any] = {
    "customerNumber": "100002",
    "externalNumber": "SHOP-1",
    "description": "Webshop-Bestellung",
    "reference": "Ref 7",
    "orderedAt": "2026-11-21T10:00:00",
    "deliveryAt": "2026-12-01T08:00:00+01:00",
    "comment": "Bitte klingeln",
    "costUnit": "KT1",
    "paymentCondition": 1,
    "deliveryCosts": 9.5,
    "location": 2,
    "contactAddress": CONTACT,
    "positions": [
        {**HAMMER, "quantity": 10, "displayNumber": 10},
        {**CARTONS, "displayNumber": 20, "text": "Schrauben im Karton"},
        {**DOWELS, "discountRate": 10},
    ],
    "payments": PAYMENTS,
}


async def graphql(client: httpx.AsyncClient, headers: dict[str, str], query: str, **variables: Any) -> dict[str, Any]:
    response = await client.post("/graphql", json={"query": query, "variables": variables}, headers=headers)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


async def mutate(
    client: httpx.AsyncClient, auth: dict[str, str], query: str, name: str, **variables: Any
) -> dict[str, Any]:
    result = await graphql(client, auth, query, **variables)
    assert "errors" not in result, result
    payload: dict[str, Any] = result["data"][name]
    return payload


async def order_create(
    client: httpx.AsyncClient, auth: dict[str, str], input: dict[str, Any], key: str | None = None
) -> dict[str, Any]:
    return await mutate(client, auth, ORDER_CREATE, "orderCreate", input=input, key=key)


async def offer_create(client: httpx.AsyncClient, auth: dict[str, str], input: dict[str, Any]) -> dict[str, Any]:
    return await mutate(client, auth, OFFER_CREATE, "offerCreate", input=input)


async def offer_update(
    client: httpx.AsyncClient, auth: dict[str, str], number: str, input: dict[str, Any]
) -> dict[str, Any]:
    return await mutate(client, auth, OFFER_UPDATE, "offerUpdate", number=number, input=input)


async def offer_convert(client: httpx.AsyncClient, auth: dict[str, str], input: dict[str, Any]) -> dict[str, Any]:
    return await mutate(client, auth, OFFER_CONVERT, "offerConvert", input=input)


async def count(db: Database, model: type[Any]) -> int:
    async with db.reader() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


def error(field: str | None, code: str, message: str, info: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"field": field, "code": code, "message": message, "info": info or {}}


# orderCreate


async def test_order_create_returns_the_order_then_existing_then_replayed(
    client: httpx.AsyncClient, db: Database, factory: Factory, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    await factory.add(CompanyAttribute(key="RESTEVENTS", contents="REST_Auft"))
    payload = await order_create(client, auth, ORDER)
    assert (payload["outcome"], payload["errors"]) == ("CREATED", [])
    order = payload["order"]
    contact = order.pop("contactAddress")
    assert contact == {
        "number": contact["number"],
        "customerNumber": "100002",
        "language": "fre",
        "lastName": "Dupont",
        "place": "Lyon",
    }
    assert order == {
        "number": "500001",
        "kind": "ORDER",
        "customerNumber": "100002",
        "status": "N",
        "template": False,
        "description": "Webshop-Bestellung",
        "externalNumber": "SHOP-1",
        "reference": "Ref 7",
        "orderedAt": "2026-11-21T09:00:00Z",  # Zurich time without a zone
        "deliveryAt": "2026-12-01T07:00:00Z",
        "currency": "CHF",
        "comment": "Bitte klingeln",
        "costUnit": "KT1",
        "paymentCondition": 1,
        "paymentConditionText": "30 jours net",  # in the contact address's language
        "deliveryCosts": 9.5,
        "location": 2,
        # Net 110.00 + 44.00 + 22.50 = 176.50 and tax 2.86 + 3.56 + 1.82 = 8.24 (the summary's 5.38 + 2.86),
        # to the cent; payable 184.74 in CHF steps of 0.05: 184.75, rounded up by 0.01 (EN 16931 BT-114).
        "netTotal": 176.5,
        "taxTotal": 8.24,
        "grossTotal": 184.75,
        "roundingAmount": 0.01,
        "orderNumber": None,
        "offerNumber": None,
        # The customer has no standard addresses; only the contact address was given.
        "deliveryAddress": None,
        "billingAddress": None,
        "positions": POSITIONS,
        "taxSummary": TAX_SUMMARY,
        "payments": [
            {"designation": "Dienstleister", "value": "Datatrans", "key": "Z1"},
            {"designation": "TransID", "value": "T-1", "key": "Z2"},
        ],
    }
    # The same request with the customer's AuftBestellNr again: the existing order.
    again = await order_create(client, auth, ORDER)
    assert (again["outcome"], again["errors"], again["order"]) == ("EXISTING", [], {**order, "contactAddress": contact})
    # Another request with it is a conflict naming the order.
    other = await order_create(client, auth, {**ORDER, "positions": [HAMMER], "description": "anders"})
    assert other == {
        "order": None,
        "outcome": None,
        "errors": [
            error(
                "externalNumber",
                "CONFLICT",
                "the customer's order 500001 has AuftBestellNr 'SHOP-1' already; this request differs from the one "
                "that placed it",
                {"AuftNr": "500001"},
            )
        ],
    }
    # An Idempotency-Key: the first answer again.
    simple = {"customerNumber": "100001", "positions": [HAMMER]}
    first = await order_create(client, auth, simple, key="checkout-42")
    repeat = await order_create(client, auth, simple, key="checkout-42")
    assert [(p["outcome"], p["order"]["number"]) for p in (first, repeat)] == [
        ("CREATED", "500002"),
        ("REPLAYED", "500002"),
    ]
    assert repeat["order"] == first["order"]
    assert await count(db, SalesDocument) == 2
    async with db.reader() as session:
        events = [json.loads(p) for p in await session.scalars(select(OutboxEvent.payload).order_by(OutboxEvent.id))]
    assert [(e["AuftNr"], e["KundNr"], e["user"]) for e in events] == [
        ("500001", "100002", "shop-client"),
        ("500002", "100001", "shop-client"),
    ]
    # Reading it back gives the same document.
    read = await graphql(client, auth, READ, n="500001")
    assert read["data"]["offer"] is None
    assert read["data"]["order"] == {**order, "contactAddress": contact}


async def test_refusals_are_typed_errors(
    client: httpx.AsyncClient, db: Database, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    base: dict[str, Any] = {"customerNumber": "100002", "positions": [HAMMER]}
    cases: list[tuple[dict[str, Any], dict[str, Any]]] = [
        ({"customerNumber": "100002"}, error("positions", "INVALID_REQUEST", "at least one position is required")),
        ({**base, "positions": []}, error("positions", "INVALID_REQUEST", "at least one position is required")),
        (
            {**base, "positions": [{**HAMMER, "quantity": 0}]},
            error("positions.0.quantity", "UNPROCESSABLE", "the quantity must be above 0", {"position": 1}),
        ),
        (
            {**base, "positions": [HAMMER, {**HAMMER, "discountRate": 101}]},
            error(
                "positions.1.discountRate",
                "UNPROCESSABLE",
                "the discount must be from 0 to 100 percent",
                {"position": 2},
            ),
        ),
        (
            {**base, "positions": [{"articleNumber": "A-100"}]},
            error("positions.0.quantity", "INVALID_REQUEST", "is required"),
        ),
        (
            {**base, "positions": [{"quantity": 1}]},
            error("positions.0.articleNumber", "INVALID_REQUEST", "is required"),
        ),
        (
            {**base, "positions": [HAMMER, {"articleNumber": "NOPE", "quantity": 1}]},
            error(
                "positions.1.articleNumber",
                "UNPROCESSABLE",
                "article 'NOPE' does not exist or is not offered",
                {"position": 2},
            ),
        ),
        (
            {**base, "positions": [{**CARTONS, "quantity": 13}]},
            error(
                "positions.0.quantity", "UNPROCESSABLE", "the quantity must be a multiple of 12 (KAR)", {"position": 1}
            ),
        ),
        (
            {**base, "positions": [{**CARTONS, "packagingUnit": "PAL", "quantity": 480}]},
            error(
                "positions.0.packagingUnit",
                "UNPROCESSABLE",
                "packaging unit 'PAL' is not offered for A-200",
                {"position": 1},
            ),
        ),
        (
            {**base, "positions": [{"articleNumber": "A-300", "quantity": 1}]},
            error(
                "positions.0.articleNumber",
                "UNPROCESSABLE",
                "article A-300 has no price per base unit in CHF in the default price list STD",
                {"position": 1},
            ),
        ),
        (
            {**base, "customerNumber": "999999"},
            error("customerNumber", "NOT_FOUND", "customer '999999' does not exist"),
        ),
        ({"positions": [HAMMER]}, error("customerNumber", "INVALID_REQUEST", "is required")),
        ({**base, "currency": "USD"}, error("currency", "INVALID_REQUEST", "USD is not a currency of the ERP")),
        ({**base, "currency": "XYZ"}, error("currency", "INVALID_REQUEST", "'XYZ' is not an ISO 4217 currency code")),
        (
            {**base, "orderedAt": "21.11.2026"},
            error("orderedAt", "INVALID_REQUEST", "'21.11.2026' is not an ISO 8601 date"),
        ),
        ({**base, "description": "x" * 81}, error("description", "INVALID_REQUEST", "must have at most 80 characters")),
        ({**base, "payments": [{"value": "x"}]}, error("payments.0.designation", "INVALID_REQUEST", "is required")),
        (
            {**base, "positions": [{**HAMMER, "quantity": 0.00001}]},
            error("positions.0.quantity", "INVALID_REQUEST", "has more than 4 decimal places"),
        ),
        # Address errors name the input field.
        (
            {**base, "contactAddress": {**CONTACT, "line1": None}},
            error("contactAddress.line1", "INVALID_REQUEST", "is required"),
        ),
        (
            {**base, "billingAddress": {**CONTACT, "language": "deu"}},
            error(
                "billingAddress.language",
                "INVALID_REQUEST",
                "'deu' is not an ISO 639-2/B language code (e.g. ger, fre, ita, eng)",
            ),
        ),
    ]
    for input, expected in cases:
        payload = await order_create(client, auth, input)
        assert payload == {"order": None, "outcome": None, "errors": [expected]}, input
    assert await count(db, SalesDocument) == 0
    # An Idempotency-Key used for another request.
    assert (await order_create(client, auth, base, key="k"))["outcome"] == "CREATED"
    payload = await order_create(client, auth, {**base, "positions": [DOWELS]}, key="k")
    assert payload["errors"] == [
        error("idempotencyKey", "CONFLICT", "this Idempotency-Key was used for another request", {"AuftNr": "500001"})
    ]
    assert await count(db, SalesDocument) == 1


# Offers


async def test_offers_are_created_changed_and_converted(
    client: httpx.AsyncClient, db: Database, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    created = await offer_create(
        client, auth, {"positions": [HAMMER, CARTONS], "description": "Vorlage", "paymentCondition": 2}
    )
    assert created["errors"] == []
    template = created["offer"]
    assert {
        key: template[key]
        for key in (
            "number",
            "kind",
            "customerNumber",
            "status",
            "template",
            "netTotal",
            "taxTotal",
            "grossTotal",
            "roundingAmount",
        )
    } == {
        "number": "300001",
        "kind": "OFFER",
        "customerNumber": None,
        "status": "P",
        "template": True,
        "netTotal": 56.5,  # 12.50 + 44.00
        "taxTotal": 3.89,  # 0.33 + 3.56
        "grossTotal": 60.4,  # payable 60.39 -> 60.40
        "roundingAmount": 0.01,
    }
    # Without a contact address the payment condition's text is German.
    assert (template["paymentConditionText"], template["contactAddress"]) == ("10 Tage 2 % Skonto", None)
    assert [p["text"] for p in template["positions"]] == ["Hammer", "Schrauben"]
    # An offer of a customer is no template; its text follows the contact address's language, else German.
    assigned = (
        await offer_create(
            client,
            auth,
            {"customerNumber": "100001", "positions": [HAMMER], "contactAddress": CONTACT, "paymentCondition": 2},
        )
    )["offer"]
    assert (assigned["number"], assigned["template"], assigned["customerNumber"]) == ("300002", False, "100001")
    # Condition 2 has no French text: German.
    assert (assigned["positions"][0]["unitPrice"], assigned["paymentConditionText"]) == (10.0, "10 Tage 2 % Skonto")
    # Reading: an offer number is no order number, unknown numbers are null.
    read = await graphql(client, auth, READ, n="300001")
    assert (read["data"]["order"], read["data"]["offer"]) == (None, template)
    assert (await graphql(client, auth, READ, n="399999"))["data"] == {"order": None, "offer": None}

    # offerUpdate: assign the template, change, delete and add positions; totals are recomputed.
    updated = await offer_update(
        client,
        auth,
        "300001",
        {
            "customerNumber": "100002",
            "positions": [
                {"positionNumber": 1, "quantity": 10},
                {"positionNumber": 2, "quantity": 0},
                {"articleNumber": "A-600", "quantity": 100, "discountRate": 50},
            ],
            "deliveryAddress": CONTACT,
        },
    )
    assert updated["errors"] == []
    offer = updated["offer"]
    assert (offer["customerNumber"], offer["template"]) == ("100002", False)
    assert [(p["number"], p["articleNumber"], p["quantity"], p["total"]) for p in offer["positions"]] == [
        (1, "A-100", 10.0, 110.0),
        (3, "A-600", 100.0, 5.0),
    ]
    # net 110.00 + 5.00 (100 x 0.10 x 0.5) = 115.00; tax 2.86 + 0.41 (0.405) = 3.27; payable 118.27 -> 118.25
    assert (offer["netTotal"], offer["taxTotal"], offer["grossTotal"], offer["roundingAmount"]) == (
        115.0,
        3.27,
        118.25,
        -0.02,
    )
    assert [line["code"] for line in offer["taxSummary"]] == ["N81", "R26"]
    # The customer has no standard addresses; the delivery address was given.
    assert (offer["contactAddress"], offer["billingAddress"]) == (None, None)
    assert offer["deliveryAddress"] is not None
    refusals: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        ("300001", {"customerNumber": "100001"}, {"code": "CONFLICT", "info": {"KundNr": "100002"}}),
        (
            "300001",
            {"positions": [{"positionNumber": 2, "quantity": 1}]},
            {"code": "UNPROCESSABLE", "field": "positions.0.positionNumber", "info": {"position": 1}},
        ),
        ("399999", {"positions": [HAMMER]}, {"code": "NOT_FOUND", "message": "offer '399999' does not exist"}),
    ]
    for number, input, expected in refusals:
        payload = await offer_update(client, auth, number, input)
        assert payload["offer"] is None
        (got,) = payload["errors"]
        assert {key: got[key] for key in expected} == expected, input

    # offerConvert: once.
    converted = await offer_convert(
        client, auth, {"offerNumber": "300001", "customerNumber": "100002", "payments": PAYMENTS}
    )
    assert (converted["outcome"], converted["errors"]) == ("CREATED", [])
    order = converted["order"]
    assert (order["number"], order["kind"], order["status"], order["offerNumber"]) == ("500001", "ORDER", "N", "300001")
    assert order["positions"] == offer["positions"]
    assert (order["netTotal"], order["taxTotal"], order["grossTotal"], order["roundingAmount"]) == (
        115.0,
        3.27,
        118.25,
        -0.02,
    )
    assert [p["key"] for p in order["payments"]] == ["Z1", "Z2"]
    assert (await graphql(client, auth, READ, n="300001"))["data"]["offer"]["orderNumber"] == "500001"
    again = await offer_convert(client, auth, {"offerNumber": "300001", "customerNumber": "100002"})
    assert again == {
        "order": None,
        "outcome": None,
        "errors": [
            error(
                "offerNumber", "CONFLICT", "offer 300001 was converted into order 500001 already", {"AuftNr": "500001"}
            )
        ],
    }
    changed = await offer_update(client, auth, "300001", {"positions": [{"positionNumber": 1, "quantity": 2}]})
    assert [(e["code"], e["info"]) for e in changed["errors"]] == [("CONFLICT", {"AuftNr": "500001"})]
    # Another customer's offer; a template that does not match; unknown numbers.
    third = (await offer_create(client, auth, {"positions": [HAMMER]}))["offer"]["number"]
    for input, expected in (
        (
            {"offerNumber": "300002", "customerNumber": "100002"},
            {"field": "customerNumber", "code": "CONFLICT", "info": {"KundNr": "100001"}},
        ),
        (
            {"offerNumber": third, "customerNumber": "100003"},
            {"field": "customerNumber", "code": "CONFLICT", "info": {"differs": ["price list"]}},
        ),
        ({"offerNumber": "399999", "customerNumber": "100002"}, {"field": "offerNumber", "code": "NOT_FOUND"}),
        ({"offerNumber": third, "customerNumber": "999999"}, {"field": "customerNumber", "code": "NOT_FOUND"}),
        ({"customerNumber": "100002"}, {"field": "offerNumber", "code": "INVALID_REQUEST", "message": "is required"}),
        ({"offerNumber": third}, {"field": "customerNumber", "code": "INVALID_REQUEST", "message": "is required"}),
    ):
        payload = await offer_convert(client, auth, input)
        assert payload["order"] is None
        (got,) = payload["errors"]
        assert {key: got[key] for key in expected} == expected, input
    assert await count(db, SalesDocument) == 4


async def test_an_offer_position_with_a_price_is_refused(
    client: httpx.AsyncClient, db: Database, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    payload = await offer_create(client, auth, {"positions": [HAMMER, {**HAMMER, "price": 9.9}]})
    assert payload == {
        "offer": None,
        "errors": [
            error(
                "positions.1.price",
                "INVALID_REQUEST",
                "offers are priced by the ERP: a position of an offer takes no price",
            )
        ],
    }
    assert await count(db, SalesDocument) == 0


# Scopes


async def test_the_catalogue_scope_cannot_use_offers_and_orders(
    client: httpx.AsyncClient, db: Database, token_for: Callable[..., dict[str, str]]
) -> None:
    reader = token_for("catalogue")
    denied = {"code": "insufficient_scope"}
    for query, variables, name in (
        (ORDER_CREATE, {"input": {"customerNumber": "100002", "positions": [HAMMER]}}, "orderCreate"),
        (OFFER_CREATE, {"input": {"positions": [HAMMER]}}, "offerCreate"),
        (OFFER_UPDATE, {"number": "300001", "input": {}}, "offerUpdate"),
        (OFFER_CONVERT, {"input": {"offerNumber": "300001", "customerNumber": "100002"}}, "offerConvert"),
    ):
        result = await graphql(client, reader, query, **variables)
        assert result["data"] is None, name
        assert [(e["message"], e["extensions"]) for e in result["errors"]] == [("the shop scope is required", denied)]
    read = await graphql(client, reader, READ, n="500001")
    assert read["data"] == {"order": None, "offer": None}
    assert sorted((e["path"], e["extensions"]["code"]) for e in read["errors"]) == [
        (["offer"], "insufficient_scope"),
        (["order"], "insufficient_scope"),
    ]
    assert await count(db, SalesDocument) == 0


# Statements


DETAIL = """query($n: String!) { order(number: $n) {
    positions { number } payments { key } contactAddress { number } deliveryAddress { number }
    billingAddress { number } } }"""


async def test_order_statements_do_not_grow_with_its_positions(
    client: httpx.AsyncClient, catalogue: Catalogue, auth: dict[str, str]
) -> None:
    addresses = {
        "contactAddress": CONTACT,
        "deliveryAddress": {**CONTACT, "lastName": "Livraison"},
        "billingAddress": {**CONTACT, "lastName": "Facture"},
    }
    small = {"customerNumber": "100002", "positions": [HAMMER], "payments": PAYMENTS[:1], **addresses}
    large = {
        **small,
        "positions": [{**HAMMER, "quantity": n} for n in range(1, 13)],
        "payments": PAYMENTS * 3,
    }
    numbers = [(await order_create(client, auth, input))["order"]["number"] for input in (small, large)]
    counts = []
    for number, positions, payments in zip(numbers, (1, 12), (1, 6), strict=True):
        response = await client.post("/graphql", json={"query": DETAIL, "variables": {"n": number}}, headers=auth)
        assert response.status_code == 200
        order = response.json()["data"]["order"]
        assert (len(order["positions"]), len(order["payments"])) == (positions, payments)
        assert len({order[role]["number"] for role in ("contactAddress", "deliveryAddress", "billingAddress")}) == 3
        counts.append(statement_count(response))
    assert counts[0] == counts[1]
