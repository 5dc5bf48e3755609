"""Customers in the data layer: numbering under concurrency, the REST_Kunde outbox, address validation."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
from collections.abc import Callable, Mapping
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select, text

from datasources.customers.addresses import new_address, update_address
from datasources.customers.customers import designation_of, register_customer
from datasources.customers.records import AddressFields
from datasources.customers.validation import validate_address, validate_customer
from datasources.database import Database
from datasources.errors import InvalidInput
from datasources.models import Address, CompanyAttribute, Customer, NumberSequence, OutboxEvent
from tests.factories import Factory
from tests.http import body

VALUES: dict[str, Any] = {"currency": "CHF", "payment_type": "L", "credit_limit": 1000}
CONTACT: dict[str, Any] = {
    "language": "ger",
    "line1": "Bahnhofstrasse 1",
    "salutation": 1,
    "first_name": "Hans",
    "last_name": "Muster",
    "country": "CH",
    "place": "Zürich",
    "postal_code": "8001",
}
REST_CUSTOMER: dict[str, Any] = {
    "GrundDaten": {"WaehrAbk": "CHF", "FAKTZahlArt": "L"},
    "Adressen": {
        "KontaktAdr": {
            "AdrSprache": "ger",
            "AdrAdresse1": "Bahnhofstrasse 1",
            "AdrAnrede": 0,
            "AdrFirma": "Muster AG",
            "OrtLand": "CH",
            "OrtName": "Zürich",
            "OrtPLZ": "8001",
        }
    },
}


@pytest.fixture
async def reference(factory: Factory) -> None:
    """Currencies and price lists."""
    await factory.reference_data()


async def register(db: Database, values: Mapping[str, Any] = VALUES, **addresses: Any) -> str:
    async with db.writer() as session, session.begin():
        return await register_customer(session, values, addresses or {"contact_address": CONTACT}, user="shop")


async def count(db: Database, model: type[Any]) -> int:
    async with db.reader() as session:
        return int(await session.scalar(select(func.count()).select_from(model)) or 0)


async def outbox(db: Database) -> list[tuple[str, dict[str, Any]]]:
    async with db.reader() as session:
        rows = await session.execute(select(OutboxEvent.event, OutboxEvent.payload).order_by(OutboxEvent.id))
        return [(event, json.loads(payload)) for event, payload in rows]


# Numbering


async def test_fifty_concurrent_registrations_get_distinct_consecutive_numbers(db: Database, reference: None) -> None:
    numbers = await asyncio.gather(*(register(db) for _ in range(50)))
    assert sorted(numbers) == [str(n) for n in range(100001, 100051)]
    assert await count(db, Customer) == 50
    async with db.reader() as session:
        assert await session.get(NumberSequence, "customer") is not None
        last = await session.scalar(select(NumberSequence.last_value).where(NumberSequence.name == "customer"))
    assert last == 100050


async def test_twenty_concurrent_rest_creations_get_distinct_numbers(
    client: httpx.AsyncClient, reference: None, auth: dict[str, str]
) -> None:
    responses = await asyncio.gather(*(client.post("/www/kunden", json=REST_CUSTOMER, headers=auth) for _ in range(20)))
    assert [response.status_code for response in responses] == [201] * 20
    numbers = [body(response)["data"]["DebiNr"] for response in responses]
    assert sorted(numbers) == [str(n) for n in range(100001, 100021)]


async def test_numbering_skips_numbers_that_exist_already(db: Database, factory: Factory, reference: None) -> None:
    await factory.customer("100001")
    await factory.customer("100003")
    assert await register(db) == "100002"
    assert await register(db) == "100004"


async def test_numbering_skips_a_whole_window_of_taken_numbers(db: Database, factory: Factory, reference: None) -> None:
    await factory.add(*(Customer(number=str(n), currency="CHF") for n in range(100001, 100001 + 70)))
    assert await register(db) == "100071"


async def test_addresses_are_numbered_contact_delivery_billing(db: Database, reference: None) -> None:
    delivery = {**CONTACT, "last_name": "Lieferung"}
    billing = {**CONTACT, "last_name": "Rechnung"}
    for _ in range(10):
        number = await register(db, contact_address=CONTACT, delivery_address=delivery, billing_address=billing)
        async with db.reader() as session:
            customer = await session.get(Customer, number)
            assert customer is not None
            ids = [customer.contact_address_id, customer.delivery_address_id, customer.billing_address_id]
            last_names = list(await session.scalars(select(Address.last_name).where(Address.customer_number == number)))
        assert ids == sorted(ids, key=lambda i: i or 0)
        assert set(last_names) == {"Lieferung", "Muster", "Rechnung"}


async def test_a_failed_registration_takes_no_number(db: Database, reference: None) -> None:
    with pytest.raises(InvalidInput):
        await register(db, {**VALUES, "currency": "USD"})
    assert await count(db, Customer) == 0
    assert await count(db, Address) == 0
    assert await register(db) == "100001"


# Outbox


def contents_case(contents: str | None) -> str:
    return "no attribute" if contents is None else repr(contents)


@pytest.mark.parametrize(
    ("contents", "recorded"),
    [
        (None, False),
        ("REST_Kunde", True),
        ("*", True),
        ("REST_Auft", False),
        ("rest_auft, REST_KUNDE", True),
        ("", False),
    ],
    ids=contents_case,
)
async def test_the_company_attribute_enables_rest_kunde(
    db: Database, factory: Factory, reference: None, contents: str | None, recorded: bool
) -> None:
    if contents is not None:
        await factory.add(CompanyAttribute(key="RESTEVENTS", contents=contents))
    number = await register(db)
    events = await outbox(db)
    if not recorded:
        assert events == []
        return
    assert len(events) == 1
    event, payload = events[0]
    assert event == "REST_Kunde"
    time = payload.pop("time")
    assert payload == {"event": "REST_Kunde", "DebiNr": number, "user": "shop"}
    assert isinstance(time, str) and time.endswith("Z")
    stamp = dt.datetime.strptime(time, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.UTC)
    assert abs(dt.datetime.now(dt.UTC) - stamp) < dt.timedelta(minutes=1)


async def test_an_invalid_customer_records_no_event(db: Database, factory: Factory, reference: None) -> None:
    await factory.add(CompanyAttribute(key="RESTEVENTS", contents="REST_Kunde"))
    with pytest.raises(InvalidInput):
        await register(db, {**VALUES, "payment_methods": "X"})
    with pytest.raises(InvalidInput):
        await register(db, VALUES, contact_address={**CONTACT, "postal_code": "9999"})
    assert await outbox(db) == []


async def test_the_event_is_rolled_back_with_its_customer(db: Database, factory: Factory, reference: None) -> None:
    await factory.add(CompanyAttribute(key="RESTEVENTS", contents="REST_Kunde"))

    class Abort(Exception):
        pass

    with pytest.raises(Abort):
        async with db.writer() as session, session.begin():
            await register_customer(session, VALUES, {"contact_address": CONTACT}, user="shop")
            raise Abort
    assert await outbox(db) == []
    assert await count(db, Customer) == 0
    assert await register(db) == "100001"


async def test_the_rest_event_names_the_tokens_user(
    client: httpx.AsyncClient,
    db: Database,
    factory: Factory,
    reference: None,
    token_for: Callable[..., dict[str, str]],
) -> None:
    await factory.add(CompanyAttribute(key="RESTEVENTS", contents="REST_Kunde"))
    response = await client.post("/www/kunden", json=REST_CUSTOMER, headers=token_for("shop", name="webshop"))
    assert response.status_code == 201, response.text
    [(event, payload)] = await outbox(db)
    assert (event, payload["DebiNr"], payload["user"]) == ("REST_Kunde", "100001", "webshop")


# validate_address


def refused(values: Mapping[str, Any], field: str, *, prefix: str = "") -> str:
    with pytest.raises(InvalidInput) as caught:
        validate_address(values, prefix=prefix)
    assert caught.value.field == field
    assert caught.value.code == "invalid_request"
    return caught.value.message


@pytest.mark.parametrize("name", ["language", "line1", "salutation", "country", "place", "postal_code"])
@pytest.mark.parametrize("value", [None, "", "   "])
def test_required_fields(name: str, value: str | None) -> None:
    assert refused({**CONTACT, name: value}, name) == "is required"
    missing = {key: v for key, v in CONTACT.items() if key != name}
    assert refused(missing, f"contact_address.{name}", prefix="contact_address") == "is required"


@pytest.mark.parametrize(
    ("name", "limit"),
    [
        ("company", 36),
        ("company2", 36),
        ("first_name", 36),
        ("last_name", 36),
        ("line1", 60),
        ("line2", 60),
        ("fax", 28),
        ("mobile", 28),
        ("phone1", 28),
        ("phone2", 28),
        ("place", 48),
        ("postal_code", 10),
    ],
)
def test_lengths_at_the_limit(name: str, limit: int) -> None:
    # Outside Switzerland, so that no locality check gets in the way of the place and postal code.
    base = {**CONTACT, "country": "DE"}
    fields = validate_address({**base, name: "x" * limit})
    assert getattr(fields, name) == "x" * limit
    message = refused({**base, name: "x" * (limit + 1)}, name)
    assert message == f"must have at most {limit} characters"


def test_email_length_limit() -> None:
    at_limit = "a" * 245 + "@muster.ch"
    assert len(at_limit) == 255
    assert validate_address({**CONTACT, "email": at_limit}).email == at_limit
    assert refused({**CONTACT, "email": "a" + at_limit}, "email") == "must have at most 255 characters"


@pytest.mark.parametrize("salutation", [0, 1, 2])
def test_salutations(salutation: int) -> None:
    assert validate_address({**CONTACT, "salutation": salutation}).salutation == salutation


@pytest.mark.parametrize("salutation", [3, -1, "1", True, False])
def test_other_salutations_are_refused(salutation: object) -> None:
    message = refused({**CONTACT, "salutation": salutation}, "salutation")
    assert message == "must be 0 (company or general), 1 (Mr) or 2 (Ms)"


def test_a_company_or_a_last_name_is_required() -> None:
    person = {key: v for key, v in CONTACT.items() if key != "last_name"}
    message = refused(person, "contact_address.last_name", prefix="contact_address")
    assert message == "a company name or a last name is required"
    assert refused({**person, "last_name": "  "}, "last_name") == "a company name or a last name is required"
    company = validate_address({**person, "salutation": 0, "company": "Muster AG"})
    assert (company.company, company.last_name) == ("Muster AG", None)
    assert validate_address(CONTACT).last_name == "Muster"


@pytest.mark.parametrize("email", ["hans@muster.ch", "h.muster+shop@mail.muster.ch"])
def test_plausible_emails(email: str) -> None:
    assert validate_address({**CONTACT, "email": email}).email == email


@pytest.mark.parametrize("email", ["hans", "hans@muster", "hans muster@muster.ch", "a@b@muster.ch", "@muster.ch"])
def test_implausible_emails(email: str) -> None:
    assert refused({**CONTACT, "email": email}, "email") == "is not a plausible e-mail address"


def test_text_must_be_text() -> None:
    assert refused({**CONTACT, "line2": 5}, "line2") == "must be text"


def test_iso_codes_are_normalised() -> None:
    fields = validate_address({**CONTACT, "language": " GER ", "country": "ch"})
    assert (fields.language, fields.country) == ("ger", "CH")


@pytest.mark.parametrize(
    ("name", "value"), [("language", "deu"), ("language", "xx"), ("country", "XX"), ("country", "CHE")]
)
def test_bad_iso_codes_are_refused(name: str, value: str) -> None:
    message = refused({**CONTACT, name: value}, f"billing_address.{name}", prefix="billing_address")
    assert repr(value) in message


def test_text_is_kept_as_sent() -> None:
    values = {
        **CONTACT,
        "line1": "  Bahnhofstrasse 1 ",
        "line2": " Postfach ",
        "first_name": " hans",
        "email": "Hans@Muster.CH",
        "postal_code": " 8001 ",
        "company2": "",
        "fax": "   ",
    }
    assert validate_address(values) == AddressFields(
        language="ger",
        line1="  Bahnhofstrasse 1 ",
        line2=" Postfach ",
        salutation=1,
        first_name=" hans",
        last_name="Muster",
        email="Hans@Muster.CH",
        country="CH",
        place="Zürich",
        postal_code="8001",  # the code alone is trimmed
        company2=None,  # empty text is no value
        fax=None,
    )


def test_swiss_places_are_checked_by_default() -> None:
    assert validate_address({**CONTACT, "place": "Zurich"}).place == "Zürich"
    assert validate_address({**CONTACT, "place": "zürich"}).place == "Zürich"
    message = refused({**CONTACT, "postal_code": "9999"}, "postal_code")
    assert message == "'9999' is not a Swiss postal code"
    refused({**CONTACT, "postal_code": "80011"}, "contact_address.postal_code", prefix="contact_address")


def test_other_countries_are_not_checked_by_default() -> None:
    berlin = {**CONTACT, "country": "DE", "postal_code": "10115", "place": "berlin"}
    assert validate_address(berlin).place == "berlin"
    assert validate_address({**berlin, "check": 1}).place == "berlin"  # no directory outside CH
    assert validate_address({**berlin, "check": 0}).place == "berlin"


def test_an_explicit_check_0_keeps_a_swiss_place() -> None:
    assert validate_address({**CONTACT, "place": "Zurich", "check": 0}).place == "Zurich"
    assert validate_address({**CONTACT, "postal_code": "9999", "check": 0}).postal_code == "9999"
    assert validate_address({**CONTACT, "place": "Zurich", "check": 1}).place == "Zürich"


@pytest.mark.parametrize("check", [2, -1, "1", True])
def test_other_checks_are_refused(check: object) -> None:
    assert refused({**CONTACT, "check": check}, "check") == "must be 0 or 1"


async def test_a_new_customer_is_stored_as_the_orm_stored_it(db: Database, reference: None) -> None:
    """Its rows are written by compiled statements (datasources/transaction.py): every column as the ORM wrote
    it, the timestamps and the numbers aside. The reference is the ORM's way, as customers were written before."""
    delivery = {**CONTACT, "line1": "Hauptgasse 2", "salutation": 2, "first_name": "Anna"}
    values = {**VALUES, "comment": "web", "payment_methods": "r,K", "tax_number": "CHE-1"}
    number = await register(db, values, contact_address=CONTACT, delivery_address=delivery)
    async with db.writer() as session, session.begin():
        fields, address = validate_customer(values), validate_address(CONTACT)
        by_orm = Customer(
            number="999999",
            designation=designation_of(address),
            language=fields.language or address.language,
            currency=fields.currency,
            payment_type=fields.payment_type,
            expenses=fields.expenses,
            shipping_type=fields.shipping_type,
            transport_insurance_type=fields.transport_insurance_type,
            comment=fields.comment,
            tax_number=fields.tax_number,
            company_url=fields.company_url,
            credit_limit=fields.credit_limit,
            payment_methods=fields.payment_methods,
        )
        session.add(by_orm)
        await session.flush()
        rows = [new_address(address, "999999"), new_address(validate_address(delivery), "999999")]
        session.add_all(rows)
        await session.flush()
        by_orm.contact_address_id, by_orm.delivery_address_id, by_orm.billing_address_id = (
            rows[0].id,
            rows[1].id,
            rows[0].id,
        )

    def stored(table: str, key: str, value: str) -> Any:
        return text(f"SELECT * FROM {table} WHERE {key} = :value ORDER BY 1").bindparams(value=value)  # noqa: S608

    async with db.reader() as session:
        compiled = (await session.execute(stored("customer", "number", number))).mappings().one()
        orm = (await session.execute(stored("customer", "number", "999999"))).mappings().one()
        compiled_addresses = (await session.execute(stored("address", "customer_number", number))).mappings().all()
        orm_addresses = (await session.execute(stored("address", "customer_number", "999999"))).mappings().all()
    ids = {"number", "contact_address_id", "delivery_address_id", "billing_address_id", "created_at"}
    assert {k: v for k, v in compiled.items() if k not in ids} == {k: v for k, v in orm.items() if k not in ids}
    assert compiled["created_at"] is not None
    assert compiled["billing_address_id"] == compiled["contact_address_id"] != compiled["delivery_address_id"]

    def address_columns(row: Any) -> dict[str, Any]:
        return {k: v for k, v in row.items() if k not in {"id", "customer_number", "modified_at"}}

    assert [address_columns(row) for row in compiled_addresses] == [address_columns(row) for row in orm_addresses]
    assert [row["id"] for row in compiled_addresses] == [
        compiled["contact_address_id"],
        compiled["delivery_address_id"],
    ]


async def test_an_address_change_stamps_its_time_and_keeps_its_customer(db: Database, reference: None) -> None:
    number = await register(db)
    columns = (Address.id, Address.customer_number, Address.line1, Address.line2, Address.modified_at)
    async with db.reader() as session:
        before = (await session.execute(select(*columns).where(Address.customer_number == number))).one()
    await asyncio.sleep(0.002)
    record = await db.write(lambda session: update_address(session, before.id, {"line2": "c/o Muster"}))
    async with db.reader() as session:
        after = (await session.execute(select(*columns).where(Address.id == before.id))).one()
    assert (record.id, record.customer_number, record.fields.line2) == (before.id, number, "c/o Muster")
    assert (after.customer_number, after.line1, after.line2) == (number, before.line1, "c/o Muster")
    assert after.modified_at > before.modified_at
    # A change to what is stored already changes nothing, not even the time.
    await db.write(lambda session: update_address(session, before.id, {"line2": "c/o Muster"}))
    async with db.reader() as session:
        assert (await session.execute(select(*columns).where(Address.id == before.id))).one() == after
