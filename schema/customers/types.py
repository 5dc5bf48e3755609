"""GraphQL types of customers and addresses. Each description names the ERP field it stands for."""

from __future__ import annotations

import dataclasses
from enum import Enum

import strawberry

from datasources.customers.records import AddressRecord, CustomerContents, CustomerRecord, Role, SearchMatch
from datasources.customers.salutations import salutation_text
from datasources.sales import documents
from schema.catalogue.types import Attribute
from schema.context import Context
from schema.scalars import UtcDateTime


@strawberry.type(description="An address record (Adresse).")
class Address:
    number: int = strawberry.field(description="AdrNr.")
    customer_number: str | None = strawberry.field(description="DebiNr of the customer it belongs to.")
    language: str = strawberry.field(description="AdrSprache: ISO 639-2/B.")
    email: str | None = strawberry.field(description="EmailAdress.")
    line1: str = strawberry.field(description="AdrAdresse1: street and house number.")
    line2: str | None = strawberry.field(description="AdrAdresse2.")
    salutation: int = strawberry.field(description="AdrAnrede: 0 company/general, 1 Mr, 2 Ms.")
    fax: str | None = strawberry.field(description="AdrFax.")
    company: str | None = strawberry.field(description="AdrFirma.")
    company2: str | None = strawberry.field(description="AdrFirma2.")
    first_name: str | None = strawberry.field(description="AdrVorname.")
    last_name: str | None = strawberry.field(description="AdrName.")
    mobile: str | None = strawberry.field(description="AdrTelex: mobile number.")
    phone1: str | None = strawberry.field(description="AdrTf1: direct telephone.")
    phone2: str | None = strawberry.field(description="AdrTf2: central telephone.")
    country: str = strawberry.field(description="OrtLand: ISO 3166 alpha-2.")
    place: str = strawberry.field(description="OrtName.")
    postal_code: str = strawberry.field(description="OrtPLZ.")

    @classmethod
    def of(cls, record: AddressRecord) -> Address:
        return cls(number=record.id, customer_number=record.customer_number, **dataclasses.asdict(record.fields))

    @strawberry.field(description="AdrAnredeText: the salutation in the address's language; null for 0.")
    def salutation_text(self) -> str | None:
        return salutation_text(self.salutation, self.language)


@strawberry.type(description="A customer's addresses per role; the standard address of a role comes first.")
class CustomerAddresses:
    contact: list[Address] = strawberry.field(description="KundKontakt.")
    delivery: list[Address] = strawberry.field(description="KundLief.")
    billing: list[Address] = strawberry.field(description="KundRech.")


@strawberry.enum(description="PlanStatus of an order: N new, O open/in progress, A completed.")
class PlanStatus(Enum):
    N = "N"
    O = "O"  # noqa: E741 (the ERP's letter)
    A = "A"


@strawberry.type(description="An order of a customer, as the customer record lists it (Auftrag entry).")
class CustomerOrder:
    number: str = strawberry.field(description="AuftNr.")
    plan_status: PlanStatus = strawberry.field(description="PlanStatus.")
    captured_at: UtcDateTime = strawberry.field(description="AuftErf: when the order was captured.")


@strawberry.type(description="A customer (Kunde, DebiNr).")
class Customer:
    number: str = strawberry.field(description="DebiNr.")
    designation: str = strawberry.field(description="KundBez.")
    language: str = strawberry.field(description="AdrSprache: ISO 639-2/B.")
    currency: str = strawberry.field(description="WaehrAbk: ISO 4217.")
    industry: str | None = strawberry.field(description="BrancheID.")
    shipping_type: str | None = strawberry.field(description="VBTyp: shipping condition type.")
    payment_methods: str | None = strawberry.field(description="ZahlungsMethode: K credit card, R invoice.")
    comment: str | None = strawberry.field(description="Kommentar.")
    credit_limit: int = strawberry.field(description="KreditLimit; 0 = blocked.")
    contact_address_id: int | None = strawberry.field(description="KundKontakt: the standard contact address.")
    delivery_address_id: int | None = strawberry.field(description="KundLief: the standard delivery address.")
    billing_address_id: int | None = strawberry.field(description="KundRech: the standard billing address.")
    # What customerCreate read in its transaction: the fields answer from it, with no database after the
    # commit. Without it (queries) they load through the request's dataloaders.
    contents: strawberry.Private[CustomerContents | None] = None

    @classmethod
    def of(cls, record: CustomerRecord, contents: CustomerContents | None = None) -> Customer:
        fields = dataclasses.asdict(record)
        fields.pop("created_at")
        return cls(**fields, contents=contents)

    @classmethod
    def written(cls, contents: CustomerContents) -> Customer:
        """The customer as the mutation that created it read it, before its commit."""
        return cls.of(contents.record, contents)

    @strawberry.field(description="status: 1 when the credit limit is above 0, else 0.")
    def status(self) -> int:
        return 1 if self.credit_limit > 0 else 0

    @strawberry.field(description="attributes: the customer's PHKey attributes.")
    async def attributes(self, info: strawberry.Info[Context]) -> list[Attribute]:
        if self.contents is not None:
            pairs = self.contents.attributes
        else:
            pairs = await info.context.customers.attributes.load(self.number)
        return [Attribute(key=key, contents=contents) for key, contents in pairs]

    @strawberry.field(description="The customer's addresses per role (GET /www/adressen?debinr=).")
    async def addresses(self, info: strawberry.Info[Context]) -> CustomerAddresses:
        if self.contents is not None:
            by_role = self.contents.addresses
        else:
            by_role = await info.context.customers.addresses.load(self.number)
        return CustomerAddresses(
            contact=[Address.of(r) for r in by_role[Role.CONTACT]],
            delivery=[Address.of(r) for r in by_role[Role.DELIVERY]],
            billing=[Address.of(r) for r in by_role[Role.BILLING]],
        )

    @strawberry.field(
        description="Auftrag: the customer's last `limit` orders, newest first, optionally only those in `status`."
    )
    async def orders(
        self, info: strawberry.Info[Context], limit: int = 0, status: PlanStatus | None = None
    ) -> list[CustomerOrder]:
        if self.contents is not None:
            return []  # a customer created by this request has no orders yet
        async with info.context.db.reader() as session:
            records = await documents.orders_of_customer(session, self.number, limit, status.value if status else None)
        return [
            CustomerOrder(number=r.number, plan_status=PlanStatus(r.status), captured_at=UtcDateTime(r.captured_at))
            for r in records
        ]


@strawberry.type(description="The one customer an address search identified (AdressenSuche).")
class AddressSearchResult:
    customer_number: str = strawberry.field(description="DebiNr.")
    contact_address_id: int | None = strawberry.field(description="KundKontakt.")
    delivery_address_id: int | None = strawberry.field(description="KundLief.")
    billing_address_id: int | None = strawberry.field(description="KundRech.")

    @classmethod
    def of(cls, match: SearchMatch) -> AddressSearchResult:
        return cls(**dataclasses.asdict(match))
