"""A write answers with what its transaction read before the commit: once the commit is acknowledged, the
answer needs nothing from the database. Proved with a database that fails every statement after a commit,
as one that goes away right after acknowledging it (before, such an order was stored and answered 500).
Every REST write and every mutation, selecting all it can, must still answer in full: exactly what a read
shows once the database is back."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

from datasources.database import Database
from gateway.dispatch import WebhookSettings
from gateway.settings import Settings
from tests.factories import Factory
from tests.http import body, error
from tests.sales_data import CONTACT_FRE, DELIVERY_FRE, build_shop, call, new_customer, set_customer
from tests.schema.test_sales import DOCUMENT, HAMMER, ORDER, READ


class FailingAfterCommit:
    """While armed, every statement after a commit fails as a dropped connection does (an OSError from
    inside SQLAlchemy); `refused` counts the statements that were tried."""

    def __init__(self) -> None:
        self.armed = self.committed = False
        self.refused = 0

    @contextmanager
    def failing(self) -> Iterator[None]:
        self.armed, self.committed, self.refused = True, False, 0
        try:
            yield
        finally:
            self.armed = self.committed = False

    def on_commit(self, conn: Connection) -> None:
        self.committed = self.committed or self.armed

    def on_statement(self, *args: Any) -> None:
        if self.committed:
            self.refused += 1
            raise ConnectionResetError("the database went away after the commit")


async def _no_folding(db: Database) -> None:
    return None


@pytest.fixture
def settings(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    # Nothing of the process's own reads the database meanwhile: not the webhook dispatcher (its REST_Artikel
    # round looks at the change positions after every commit, on SQLite), not the change log's fold (a look
    # every half second, on SQLite). Their reads are no part of any answer.
    monkeypatch.setattr("gateway.app.fold_periodically", _no_folding)
    return dataclasses.replace(settings, webhooks=WebhookSettings(dispatch=False))


@pytest.fixture
def database() -> Iterator[FailingAfterCommit]:
    failing = FailingAfterCommit()
    # On the Engine class: the app's engine is made inside its lifespan.
    event.listen(Engine, "commit", failing.on_commit)
    event.listen(Engine, "before_cursor_execute", failing.on_statement)
    yield failing
    event.remove(Engine, "commit", failing.on_commit)
    event.remove(Engine, "before_cursor_execute", failing.on_statement)


async def written(
    client: httpx.AsyncClient, database: FailingAfterCommit, method: str, url: str, auth: dict[str, str], payload: Any
) -> httpx.Response:
    """The write's answer while every statement after its commit fails; it committed and tried none."""
    with database.failing():
        response = await client.request(method, url, json=payload, headers=auth)
        committed = database.committed
    assert committed, response.text
    assert database.refused == 0, response.text
    return response


@pytest.fixture
async def customer(client: httpx.AsyncClient, factory: Factory, db: Database, auth: dict[str, str]) -> str:
    """A customer with a contact (also billing) and a delivery address and payment condition 1."""
    await build_shop(factory)
    number = await new_customer(client, auth, CONTACT_FRE, DELIVERY_FRE)
    await set_customer(db, number, payment_condition=1)
    return number


OFFER = [
    {"ArtNr": "A-100", "Menge": 10, "VisPosNr": 10},
    {"ArtNr": "A-200", "Menge": 24, "VPEinheit": "KAR", "PosBez": "Schrauben im Karton"},
    {"ArtNr": "A-700", "Menge": 2, "GRabSatz": 5},
]
DELIVERY_OVERRIDE = {**DELIVERY_FRE, "AdrVorname": "Paul", "AdrAdresse1": "Chemin des Vignes 4"}


async def test_the_failing_database_fails_reads_after_a_commit(
    client: httpx.AsyncClient, database: FailingAfterCommit, customer: str, auth: dict[str, str]
) -> None:
    """The control: a read through a session after the commit, as the mutations made before, is refused. (A
    GET of the offer would not be: the reads of documents, customers and the catalogue go through the
    process's compiled reads, datasources/reads, which have connections of their own.)"""
    with database.failing():
        await client.post("/www/offerte", json={"GrundDaten": {"KundNr": customer}, "Positionen": OFFER}, headers=auth)
        read = await client.get(
            "/www/adressensuche", params={"EmailAdress": str(CONTACT_FRE["EmailAdress"])}, headers=auth
        )
    assert read.status_code == 503
    assert body(read)["error"] == "unavailable"
    assert database.refused >= 1
    # The database back: the offer was stored.
    assert len((await call(client, "GET", "/www/offerte?OffertNr=300001", auth, status=200))["data"]["Positionen"]) == 3


# --- REST ---------------------------------------------------------------------------------------------


async def test_post_offerte_answers_the_whole_offer(
    client: httpx.AsyncClient, database: FailingAfterCommit, customer: str, auth: dict[str, str]
) -> None:
    payload = {"GrundDaten": {"KundNr": customer}, "Positionen": OFFER, "Adressen": {"LiefAdr": DELIVERY_OVERRIDE}}
    response = await written(client, database, "POST", "/www/offerte", auth, payload)

    assert response.status_code == 201
    created = body(response)
    offer = (await call(client, "GET", "/www/offerte?OffertNr=300001", auth, status=200))["data"]
    assert created == {"count": 1, "success": True, "data": {k: v for k, v in offer.items() if k != "Zahlung"}}
    assert len(offer["Positionen"]) == 3
    assert len(offer["MWSTRekapitulation"]) == 3
    assert offer["GrundDaten"]["KundBedBez"] == "30 jours net"
    assert offer["Adressen"]["LiefAdr"]["AdrVorname"] == "Paul"


async def test_patch_offerte_answers_the_whole_offer(
    client: httpx.AsyncClient, database: FailingAfterCommit, customer: str, auth: dict[str, str]
) -> None:
    await call(client, "POST", "/www/offerte", auth, {"Positionen": OFFER}, status=201)  # a template
    changes = {
        "GrundDaten": {"KundNr": customer},
        "Positionen": [{"PosNr": 1, "Menge": 0}, {"PosNr": 2, "Menge": 60}, {"ArtNr": "A-600", "Menge": 100}],
    }
    response = await written(client, database, "PATCH", "/www/offerte?OffertNr=300001", auth, changes)

    assert response.status_code == 200
    answer = body(response)
    offer = await call(client, "GET", "/www/offerte?OffertNr=300001", auth, status=200)
    assert answer == offer
    assert [p["PosNr"] for p in offer["data"]["Positionen"]] == [2, 3, 4]
    assert offer["data"]["GrundDaten"]["KundBedBez"] == "30 jours net"
    assert offer["data"]["Adressen"]["KontaktAdr"]["AdrFirma"] == CONTACT_FRE["AdrFirma"]


async def test_post_auftrag_answers_the_order_number(
    client: httpx.AsyncClient, database: FailingAfterCommit, customer: str, auth: dict[str, str]
) -> None:
    payload = {"GrundDaten": {"KundNr": customer}, "Positionen": OFFER, "Zahlung": [{"Bezeichnung": "TransID"}]}
    response = await written(client, database, "POST", "/www/auftrag", auth, payload)

    assert response.status_code == 201
    assert body(response) == {"data": {"AuftNr": "500001"}}
    order = (await call(client, "GET", "/www/auftrag/500001", auth, status=200))["data"]
    assert (len(order["Positionen"]), len(order["Zahlung"])) == (3, 1)


async def test_put_auftrag_answers_the_order_number(
    client: httpx.AsyncClient, database: FailingAfterCommit, customer: str, auth: dict[str, str]
) -> None:
    await call(
        client, "POST", "/www/offerte", auth, {"GrundDaten": {"KundNr": customer}, "Positionen": OFFER}, status=201
    )
    payload = {"GrundDaten": {"KundNr": customer, "OffertNr": "300001"}, "Zahlung": [{"Bezeichnung": "TransID"}]}
    response = await written(client, database, "PUT", "/www/auftrag", auth, payload)

    assert response.status_code == 201
    assert body(response) == {"count": 1, "success": True, "data": {"AuftNr": "500001"}}
    order = (await call(client, "GET", "/www/auftrag/500001", auth, status=200))["data"]
    assert (len(order["Positionen"]), len(order["Zahlung"])) == (3, 1)


async def test_post_kunden_answers_the_customer_number(
    client: httpx.AsyncClient, database: FailingAfterCommit, customer: str, auth: dict[str, str]
) -> None:
    payload = {"GrundDaten": {"WaehrAbk": "CHF", "FAKTZahlArt": "L"}, "Adressen": {"KontaktAdr": CONTACT_FRE}}
    response = await written(client, database, "POST", "/www/kunden", auth, payload)

    assert response.status_code == 201
    assert body(response) == {"data": {"DebiNr": "100005"}}
    assert (await call(client, "GET", "/www/kunden/100005", auth, status=200))["data"]["KundKontakt"] == 3


async def test_patch_adressen_answers_204(
    client: httpx.AsyncClient, database: FailingAfterCommit, customer: str, auth: dict[str, str]
) -> None:
    response = await written(client, database, "PATCH", "/www/adressen/1", auth, {"AdrAdresse2": "2e étage"})

    assert (response.status_code, response.content) == (204, b"")
    assert (await call(client, "GET", "/www/adressen/1", auth, status=200))["data"]["AdrAdresse2"] == "2e étage"


async def test_a_refused_write_is_still_answered_with_its_error(
    client: httpx.AsyncClient, database: FailingAfterCommit, customer: str, auth: dict[str, str]
) -> None:
    """Nothing was committed, so nothing fails: the typed error comes back as always."""
    with database.failing():
        response = await client.post("/www/auftrag", json={"GrundDaten": {"KundNr": customer}}, headers=auth)
    assert response.status_code == 400
    assert body(response) == error("invalid_request", "at least one position is required", field="Positionen")


# --- GraphQL: every mutation, selecting everything it can ----------------------------------------------

ERRORS = "errors { field code message info }"
CUSTOMER = """customer { number designation language currency industry shippingType paymentMethods comment
    creditLimit status contactAddressId deliveryAddressId billingAddressId attributes { key contents }
    addresses { contact { ...Address } delivery { ...Address } billing { ...Address } }
    orders(limit: 5) { number planStatus capturedAt } }"""
ADDRESS = """fragment Address on Address { number customerNumber language email line1 line2 salutation
    salutationText fax company company2 firstName lastName mobile phone1 phone2 country place postalCode }"""
MUTATIONS = {
    "orderCreate": (
        "mutation($input: DocumentInput!) { orderCreate(input: $input) "
        f"{{ order {{ ...Document }} outcome {ERRORS} }} }}" + DOCUMENT
    ),
    "offerCreate": (
        f"mutation($input: DocumentInput!) {{ offerCreate(input: $input) {{ offer {{ ...Document }} {ERRORS} }} }}"
        + DOCUMENT
    ),
    "offerUpdate": (
        'mutation($input: OfferUpdateInput!) { offerUpdate(number: "300001", input: $input) '
        f"{{ offer {{ ...Document }} {ERRORS} }} }}" + DOCUMENT
    ),
    "offerConvert": (
        "mutation($input: OfferConvertInput!) { offerConvert(input: $input) "
        f"{{ order {{ ...Document }} outcome {ERRORS} }} }}" + DOCUMENT
    ),
    "customerCreate": (
        f"mutation($input: CustomerCreateInput!) {{ customerCreate(input: $input) {{ {CUSTOMER} {ERRORS} }} }}"
        + ADDRESS
    ),
    "addressUpdate": (
        "mutation($input: AddressInput!) { addressUpdate(number: 1, input: $input) "
        f"{{ address {{ ...Address }} {ERRORS} }} }}" + ADDRESS
    ),
}
READS = {
    "order": READ,
    "offer": READ,
    "customer": "query($n: String!) { " + CUSTOMER.replace("customer {", "customer(number: $n) {", 1) + " }" + ADDRESS,
    "address": "query { address(number: 1) { ...Address } }" + ADDRESS,
}
GRAPHQL_CONTACT = {
    "language": "fre",
    "line1": "Rue du Rhône 1",
    "salutation": 2,
    "firstName": "Léa",
    "lastName": "Dupont",
    "country": "CH",
    "place": "Genève",
    "postalCode": "1204",
}
GIVEN_PRICE = {**HAMMER, "quantity": 3, "price": 12.3456, "discountRate": 2.5}
NO_VALUE = [{"designation": "TransID"}]
OFFER_INPUT = {key: value for key, value in ORDER.items() if key not in ("externalNumber", "payments")}


async def graphql_written(
    client: httpx.AsyncClient, database: FailingAfterCommit, auth: dict[str, str], mutation: str, input: Any
) -> dict[str, Any]:
    with database.failing():
        response = await client.post(
            "/graphql", json={"query": MUTATIONS[mutation], "variables": {"input": input}}, headers=auth
        )
        committed = database.committed
    assert (committed, database.refused) == (True, 0), response.text
    result = response.json()
    assert response.status_code == 200 and "errors" not in result, result
    payload: dict[str, Any] = result["data"][mutation]
    assert payload["errors"] == []
    return payload


async def read(client: httpx.AsyncClient, auth: dict[str, str], field: str, **variables: Any) -> Any:
    response = await client.post("/graphql", json={"query": READS[field], "variables": variables}, headers=auth)
    return response.json()["data"][field]


@pytest.mark.parametrize(
    ("mutation", "input", "field", "number", "positions"),
    [
        ("orderCreate", ORDER, "order", "500001", 3),
        # The answer is built from what the order wrote, not read back: a given price with four places and
        # a payment without a value must come out as a later read gives them.
        (
            "orderCreate",
            {**ORDER, "positions": [*ORDER["positions"], GIVEN_PRICE], "payments": NO_VALUE},
            "order",
            "500001",
            4,
        ),
        ("offerCreate", OFFER_INPUT, "offer", "300001", 3),
        (
            "offerUpdate",
            {
                "customerNumber": "100002",
                "positions": [{"positionNumber": 1, "quantity": 0}, {"articleNumber": "A-700", "quantity": 1}],
                "deliveryAddress": {**GRAPHQL_CONTACT, "firstName": "Paul"},
            },
            "offer",
            "300001",
            2,
        ),
        (
            "offerConvert",
            {"offerNumber": "300001", "customerNumber": "100002", "payments": [{"designation": "TransID"}]},
            "order",
            "500001",
            2,
        ),
    ],
)
async def test_sales_mutations_answer_in_full(
    client: httpx.AsyncClient,
    database: FailingAfterCommit,
    customer: str,
    auth: dict[str, str],
    mutation: str,
    input: dict[str, Any],
    field: str,
    number: str,
    positions: int,
) -> None:
    if mutation in ("offerUpdate", "offerConvert"):
        template = {
            "positions": [{"articleNumber": "A-100", "quantity": 1}, {"articleNumber": "A-600", "quantity": 250}]
        }
        await graphql_written(client, database, auth, "offerCreate", template)

    payload = await graphql_written(client, database, auth, mutation, {**input, "customerNumber": customer})

    document = payload[field]
    assert document == await read(client, auth, field, n=number)
    assert (document["number"], len(document["positions"]), len(document["taxSummary"])) == (number, positions, 2)
    assert document["paymentConditionText"] == "30 jours net"
    assert None not in (document["contactAddress"], document["deliveryAddress"], document["billingAddress"])


async def test_customer_create_answers_in_full(
    client: httpx.AsyncClient, database: FailingAfterCommit, factory: Factory, auth: dict[str, str]
) -> None:
    await factory.reference_data()
    input = {
        "currency": "CHF",
        "paymentType": "L",
        "contactAddress": GRAPHQL_CONTACT,
        "deliveryAddress": {**GRAPHQL_CONTACT, "firstName": "Paul"},
    }

    payload = await graphql_written(client, database, auth, "customerCreate", input)

    customer = payload["customer"]
    assert customer == await read(client, auth, "customer", n="100001")
    addresses = customer["addresses"]
    assert [len(addresses[role]) for role in ("contact", "delivery", "billing")] == [1, 1, 1]
    assert addresses["delivery"][0]["firstName"] == "Paul"
    assert addresses["contact"][0]["salutationText"] == "Madame"
    assert (customer["attributes"], customer["orders"]) == ([], [])


async def test_address_update_answers_in_full(
    client: httpx.AsyncClient, database: FailingAfterCommit, customer: str, auth: dict[str, str]
) -> None:
    payload = await graphql_written(client, database, auth, "addressUpdate", {"line2": "2e étage", "salutation": 2})

    address = payload["address"]
    assert address == await read(client, auth, "address")
    assert (address["line2"], address["salutationText"]) == ("2e étage", "Madame")
