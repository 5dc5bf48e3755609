"""Customers and addresses over /graphql: creation with typed errors, reads, search, update, scopes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from datasources.database import Database
from datasources.models import (
    Address,
    CompanyAttribute,
    Customer,
    CustomerAddress,
    CustomerAttribute,
    NumberSequence,
    OutboxEvent,
)
from tests.factories import Factory
from tests.http import statement_count

CONTACT: dict[str, Any] = {
    "language": "fre",
    "line1": "Rue du Marché 4",
    "salutation": 0,
    "company": "Schreinerei Holzwurm und Söhne AG",
    "country": "CH",
    "place": "geneve",
    "postalCode": "1201",
}
PERSON: dict[str, Any] = {
    "language": "ger",
    "line1": "Bahnhofstrasse 1",
    "salutation": 2,
    "firstName": "Anna-Katharina",
    "lastName": "Müller-Lüdenscheid",
    "country": "DE",
    "place": "berlin",
    "postalCode": "10115",
}
MINIMAL: dict[str, Any] = {"currency": "CHF", "paymentType": "L", "contactAddress": CONTACT}

CREATE = """mutation($input: CustomerCreateInput!) { customerCreate(input: $input) {
    customer { number designation language currency creditLimit status paymentMethods
        contactAddressId deliveryAddressId billingAddressId
        addresses { contact { number } delivery { number } billing { number } }
        attributes { key contents } orders(limit: 5) { number } }
    errors { field code message info } } }"""


async def graphql(client: httpx.AsyncClient, headers: dict[str, str], query: str, **variables: Any) -> dict[str, Any]:
    response = await client.post("/graphql", json={"query": query, "variables": variables}, headers=headers)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


async def create(client: httpx.AsyncClient, auth: dict[str, str], input: dict[str, Any]) -> dict[str, Any]:
    result = await graphql(client, auth, CREATE, input=input)
    assert "errors" not in result, result
    payload: dict[str, Any] = result["data"]["customerCreate"]
    return payload


async def count(db: Database, model: type[Any]) -> int:
    async with db.reader() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


@pytest.fixture
async def reference(factory: Factory) -> None:
    """Currencies and price lists."""
    await factory.reference_data()


# customerCreate


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (
            # Designation from the company, cut to 24; language from the contact address.
            {"currency": "eur", "paymentMethods": "r, k"},
            {
                "designation": "Schreinerei Holzwurm und",
                "language": "fre",
                "currency": "EUR",
                "creditLimit": 0,
                "status": 0,
                "paymentMethods": "R,K",
            },
        ),
        (
            # Designation from first and last name; the language given wins.
            {"language": " ITA ", "creditLimit": 5000, "paymentMethods": "k,R,k", "contactAddress": PERSON},
            {
                "designation": "Anna-Katharina Müller-Lü",
                "language": "ita",
                "currency": "CHF",
                "creditLimit": 5000,
                "status": 1,
                "paymentMethods": "K,R",
            },
        ),
        (
            {"creditLimit": 1, "paymentMethods": ""},
            {
                "designation": "Schreinerei Holzwurm und",
                "language": "fre",
                "currency": "CHF",
                "creditLimit": 1,
                "status": 1,
                "paymentMethods": None,
            },
        ),
    ],
)
async def test_create_returns_the_new_customer(
    client: httpx.AsyncClient,
    db: Database,
    reference: None,
    auth: dict[str, str],
    extra: dict[str, Any],
    expected: dict[str, Any],
) -> None:
    payload = await create(client, auth, {**MINIMAL, **extra})
    assert payload["errors"] == []
    customer = payload["customer"]
    contact = customer["contactAddressId"]
    assert isinstance(contact, int)
    # Delivery and billing default to the contact address: one address row in three roles.
    assert customer == {
        "number": "100001",
        **expected,
        "contactAddressId": contact,
        "deliveryAddressId": contact,
        "billingAddressId": contact,
        "addresses": {
            "contact": [{"number": contact}],
            "delivery": [{"number": contact}],
            "billing": [{"number": contact}],
        },
        "attributes": [],
        "orders": [],
    }
    assert await count(db, Address) == 1
    assert await count(db, CustomerAddress) == 3


async def test_create_with_own_delivery_and_billing_addresses(
    client: httpx.AsyncClient, db: Database, reference: None, auth: dict[str, str]
) -> None:
    first = await create(client, auth, MINIMAL)
    assert first["customer"]["number"] == "100001"
    payload = await create(client, auth, {**MINIMAL, "deliveryAddress": PERSON, "billingAddress": PERSON})
    customer = payload["customer"]
    assert customer["number"] == "100002"
    ids = [customer[f"{role}AddressId"] for role in ("contact", "delivery", "billing")]
    assert len(set(ids)) == 3
    assert customer["addresses"] == {
        "contact": [{"number": ids[0]}],
        "delivery": [{"number": ids[1]}],
        "billing": [{"number": ids[2]}],
    }
    query = "query($n: Int!) { address(number: $n) { customerNumber place country salutationText } }"
    assert await graphql(client, auth, query, n=ids[0]) == {
        "data": {
            "address": {
                "customerNumber": "100002",
                "place": "Genève",  # AdrCheck, by default for CH
                "country": "CH",
                "salutationText": None,
            }
        }
    }
    assert await graphql(client, auth, query, n=ids[1]) == {
        "data": {
            "address": {
                "customerNumber": "100002",
                "place": "berlin",  # not checked outside CH
                "country": "DE",
                "salutationText": "Frau",
            }
        }
    }
    assert await count(db, Address) == 4


def without(values: dict[str, Any], name: str) -> dict[str, Any]:
    return {key: value for key, value in values.items() if key != name}


@pytest.mark.parametrize(
    ("input", "field", "message"),
    [
        (without(MINIMAL, "contactAddress"), "contactAddress", "the contact address is required"),
        ({**MINIMAL, "contactAddress": None}, "contactAddress", "the contact address is required"),
        (without(MINIMAL, "currency"), "currency", "is required"),
        ({**MINIMAL, "currency": "XYZ"}, "currency", "'XYZ' is not an ISO 4217 currency code"),
        ({**MINIMAL, "currency": "USD"}, "currency", "USD is not a currency of the ERP"),
        (
            {**MINIMAL, "contactAddress": {**CONTACT, "company": "x" * 37}},
            "contactAddress.company",
            "must have at most 36 characters",
        ),
        (
            {**MINIMAL, "deliveryAddress": {**PERSON, "country": "XX"}},
            "deliveryAddress.country",
            "'XX' is not an ISO 3166 alpha-2 country code",
        ),
        (
            {**MINIMAL, "contactAddress": {**CONTACT, "postalCode": "9999"}},
            "contactAddress.postalCode",
            "'9999' is not a Swiss postal code",
        ),
        (
            {**MINIMAL, "billingAddress": without(PERSON, "lastName")},
            "billingAddress.lastName",
            "a company name or a last name is required",
        ),
        (
            {**MINIMAL, "paymentMethods": "X"},
            "paymentMethods",
            "is a comma-separated list of K (credit card) and R (invoice)",
        ),
        (
            {**MINIMAL, "paymentMethods": "K,X"},
            "paymentMethods",
            "is a comma-separated list of K (credit card) and R (invoice)",
        ),
        (
            {**MINIMAL, "creditLimit": -1},
            "creditLimit",
            "must be a whole number of at least 0 (0 = blocked)",
        ),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
async def test_invalid_input_is_a_typed_error_and_writes_nothing(
    client: httpx.AsyncClient,
    db: Database,
    factory: Factory,
    reference: None,
    auth: dict[str, str],
    input: dict[str, Any],
    field: str,
    message: str,
) -> None:
    await factory.add(CompanyAttribute(key="RESTEVENTS", contents="*"))
    payload = await create(client, auth, input)
    assert payload == {
        "customer": None,
        "errors": [{"field": field, "code": "INVALID_REQUEST", "message": message, "info": {}}],
    }
    for model in (Customer, Address, CustomerAddress, OutboxEvent):
        assert await count(db, model) == 0, model
    async with db.reader() as session:
        sequence = await session.get(NumberSequence, "customer")
        assert sequence is not None and sequence.last_value == 100000
    # The number was not consumed.
    assert (await create(client, auth, MINIMAL))["customer"]["number"] == "100001"
    assert await count(db, OutboxEvent) == 1


# customer, address, addressSearch


async def test_unknown_customer_and_address_are_null(
    client: httpx.AsyncClient, reference: None, auth: dict[str, str]
) -> None:
    assert await graphql(client, auth, '{ customer(number: "nope") { number } }') == {"data": {"customer": None}}
    assert await graphql(client, auth, "{ address(number: 999) { number } }") == {"data": {"address": None}}


SEARCH = "query($by: AddressSearchInput!) { addressSearch(by: $by) { customerNumber contactAddressId } }"


async def test_address_search_finds_exactly_one_customer(
    client: httpx.AsyncClient, reference: None, auth: dict[str, str]
) -> None:
    muster = {**PERSON, "lastName": "Muster"}
    await create(client, auth, {**MINIMAL, "contactAddress": muster})
    second = await create(client, auth, {**MINIMAL, "contactAddress": {**muster, "firstName": "Fritz"}})

    none = await graphql(client, auth, SEARCH, by={"lastName": "x"})
    assert none["data"] is None
    assert [error["extensions"] for error in none["errors"]] == [{"code": "not_found", "info": {}}]

    several = await graphql(client, auth, SEARCH, by={"lastName": " muster "})
    assert several["data"] is None
    assert [error["extensions"] for error in several["errors"]] == [{"code": "conflict", "info": {"count": 2}}]

    one = await graphql(client, auth, SEARCH, by={"lastName": "MUSTER", "firstName": "fritz"})
    assert one == {
        "data": {
            "addressSearch": {
                "customerNumber": "100002",
                "contactAddressId": second["customer"]["contactAddressId"],
            }
        }
    }


# addressUpdate

UPDATE = """mutation($n: Int!, $input: AddressInput!) { addressUpdate(number: $n, input: $input) {
    address { number customerNumber line1 line2 place postalCode }
    errors { field code message info } } }"""


async def test_address_update_changes_the_given_fields(
    client: httpx.AsyncClient, reference: None, auth: dict[str, str]
) -> None:
    created = await create(client, auth, MINIMAL)
    number = created["customer"]["contactAddressId"]
    result = await graphql(client, auth, UPDATE, n=number, input={"line2": "x"})
    assert result == {
        "data": {
            "addressUpdate": {
                "address": {
                    "number": number,
                    "customerNumber": "100001",
                    "line1": "Rue du Marché 4",
                    "line2": "x",
                    "place": "Genève",
                    "postalCode": "1201",
                },
                "errors": [],
            }
        }
    }
    read = await graphql(client, auth, "query($n: Int!) { address(number: $n) { line2 } }", n=number)
    assert read == {"data": {"address": {"line2": "x"}}}


async def test_address_update_errors(client: httpx.AsyncClient, reference: None, auth: dict[str, str]) -> None:
    unknown = await graphql(client, auth, UPDATE, n=999, input={"line2": "x"})
    assert unknown == {
        "data": {
            "addressUpdate": {
                "address": None,
                "errors": [{"field": "id", "code": "NOT_FOUND", "message": "address 999 does not exist", "info": {}}],
            }
        }
    }
    created = await create(client, auth, MINIMAL)
    number = created["customer"]["contactAddressId"]
    cleared = await graphql(client, auth, UPDATE, n=number, input={"line1": None})
    assert cleared["data"]["addressUpdate"] == {
        "address": None,
        "errors": [{"field": "line1", "code": "INVALID_REQUEST", "message": "is required", "info": {}}],
    }


# Scopes


async def test_the_catalogue_scope_cannot_use_customers(
    client: httpx.AsyncClient, db: Database, reference: None, token_for: Callable[..., dict[str, str]]
) -> None:
    reader = token_for("catalogue")
    created = await graphql(client, reader, CREATE, input=MINIMAL)
    assert created["data"] is None
    assert [(e["message"], e["extensions"]) for e in created["errors"]] == [
        ("the shop scope is required", {"code": "insufficient_scope"})
    ]
    assert await count(db, Customer) == 0
    read = await graphql(client, reader, '{ customer(number: "100001") { number } }')
    assert read["data"] == {"customer": None}
    assert [e["extensions"] for e in read["errors"]] == [{"code": "insufficient_scope"}]


# Statements

DETAIL = """query($n: String!) { customer(number: $n) {
    addresses { contact { number salutationText } delivery { number } billing { number } }
    attributes { key } } }"""


async def test_customer_statements_do_not_grow_with_its_addresses(
    client: httpx.AsyncClient, factory: Factory, reference: None, auth: dict[str, str]
) -> None:
    await create(client, auth, MINIMAL)
    await create(client, auth, {**MINIMAL, "deliveryAddress": PERSON, "billingAddress": {**PERSON, "lastName": "B"}})
    await factory.add(
        CustomerAttribute(customer_number="100002", key="A1", contents="1"),
        CustomerAttribute(customer_number="100002", key="A2", contents="2"),
    )
    counts = []
    for number, addresses, attributes in (("100001", 1, 0), ("100002", 3, 2)):
        response = await client.post("/graphql", json={"query": DETAIL, "variables": {"n": number}}, headers=auth)
        assert response.status_code == 200
        customer = response.json()["data"]["customer"]
        numbers = {entry["number"] for role in customer["addresses"].values() for entry in role}
        assert (len(numbers), len(customer["attributes"])) == (addresses, attributes)
        counts.append(statement_count(response))
    assert counts[0] == counts[1]
