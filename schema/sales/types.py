"""GraphQL types of offers and orders. Each description names the ERP field it stands for."""

from __future__ import annotations

from enum import Enum

import strawberry

from datasources.sales import documents, taxes
from datasources.sales.records import (
    OFFER,
    DocumentContents,
    DocumentRecord,
    PaymentRecord,
    PositionRecord,
    TaxLine,
)
from schema.context import Context
from schema.customers.types import Address
from schema.scalars import UtcDateTime, float_or_none


@strawberry.enum(description="An offer (AuftStatus P) or an order.")
class DocumentKind(Enum):
    OFFER = "offer"
    ORDER = "order"


@strawberry.type(description="A position of an offer or order (Positionen entry).")
class Position:
    number: int = strawberry.field(description="PosNr.")
    display_number: int | None = strawberry.field(description="VisPosNr: ordering number.")
    article_number: str = strawberry.field(description="ArtNr.")
    text: str | None = strawberry.field(description="PosBez.")
    quantity: float = strawberry.field(description="PosAnzBest: quantity in the base unit.")
    price_basis: float = strawberry.field(description="PosPreisBasis.")
    unit_price: float = strawberry.field(description="PosPreisEinzel: net price per base unit.")
    total: float = strawberry.field(description="PosPreisTotal: net total after discount.")
    tax_amount: float = strawberry.field(description="PosPreisWUSTBetrag.")
    packaging_quantity: float | None = strawberry.field(description="VPEAnzBest.")
    packaging_unit_price: float | None = strawberry.field(description="VPEPreisEinzel.")
    packaging_unit: str | None = strawberry.field(description="VPEinheit.")
    tax_rate: float = strawberry.field(description="WUSTSatz in percent.")
    discount_rate: float | None = strawberry.field(description="GRabSatz in percent.")

    @classmethod
    def of(cls, record: PositionRecord) -> Position:
        return cls(
            number=record.position_number,
            display_number=record.display_number,
            article_number=record.article_number,
            text=record.text,
            quantity=float(record.quantity),
            price_basis=float(record.price_basis),
            unit_price=float(record.unit_price),
            total=float(record.total),
            tax_amount=float(record.tax_amount),
            packaging_quantity=float_or_none(record.packaging_quantity),
            packaging_unit_price=float_or_none(record.packaging_unit_price),
            packaging_unit=record.packaging_unit,
            tax_rate=float(record.tax_rate),
            discount_rate=float_or_none(record.discount_rate),
        )

    @strawberry.field(description="GRabBez: discount designation; the ERP types it float and sets none.")
    def discount_designation(self) -> float | None:
        return None


@strawberry.type(description="One tax rate of the recapitulation (MWSTRekapitulation entry).")
class TaxSummaryLine:
    section: str = strawberry.field(description="Abschnitt: always UST-Rekap.")
    currency: str = strawberry.field(description="WaehrAbk.")
    tax: float = strawberry.field(description="PosWUST: tax of the rate, the positions' taxes added up.")
    rate: float = strawberry.field(description="PosWUSTSatz in percent.")
    designation: str = strawberry.field(description="PosWUSTBez.")
    net: float = strawberry.field(description="PosBetragNetto: net amount of the rate.")
    code: str = strawberry.field(description="PosWUSTCode.")
    tax_class: str = strawberry.field(description="PosWUSTKlasse: D German, C Swiss, X other.")
    turnover_line: str | None = strawberry.field(description="PosUSTUZiffer: tax-form line, turnover.")
    sales_tax_line: str | None = strawberry.field(description="PosUSTSZiffer: tax-form line, sales tax.")
    input_tax_line: str | None = strawberry.field(description="PosVSTSZiffer: tax-form line, input tax.")

    @classmethod
    def of(cls, line: TaxLine) -> TaxSummaryLine:
        return cls(
            section=taxes.SECTION,
            currency=line.currency,
            tax=float(line.tax),
            rate=float(line.rate),
            designation=line.designation,
            net=float(line.net),
            code=line.code,
            tax_class=line.tax_class,
            turnover_line=line.turnover_line,
            sales_tax_line=line.sales_tax_line,
            input_tax_line=line.input_tax_line,
        )


@strawberry.type(description="A payment entry (Zahlung).")
class Payment:
    designation: str = strawberry.field(description="Bezeichnung (Dienstleister, TransID, payment_method, ...).")
    value: str | None = strawberry.field(description="Wert.")
    key: str = strawberry.field(description="Key: unique inside the document.")

    @classmethod
    def of(cls, record: PaymentRecord) -> Payment:
        return cls(designation=record.designation, value=record.value, key=record.key)


@strawberry.type(description="An offer (Offerte, OffertNr) or an order (Auftrag, AuftNr).")
class SalesDocument:
    record: strawberry.Private[DocumentRecord]
    # What a mutation read in its transaction: every field answers from it, with no database after the
    # commit. Without it (queries) the fields load through the request's dataloaders.
    contents: strawberry.Private[DocumentContents | None] = None
    number: str = strawberry.field(description="AuftNr of an order, OffertNr of an offer.")
    kind: DocumentKind
    customer_number: str | None = strawberry.field(description="KundNr; null for a template offer.")
    status: str = strawberry.field(description="AuftStatus: N new, O open, A completed, P offer.")
    description: str | None = strawberry.field(description="AuftBez.")
    external_number: str | None = strawberry.field(description="AuftBestellNr.")
    reference: str | None = strawberry.field(description="AuftBestellRef.")
    ordered_at: UtcDateTime | None = strawberry.field(description="AuftBestellTUTC.")
    delivery_at: UtcDateTime | None = strawberry.field(description="AuftLieferTUTC.")
    currency: str = strawberry.field(description="WaehrAbk.")
    comment: str | None = strawberry.field(description="AuftKomment.")
    cost_unit: str | None = strawberry.field(description="KTNr.")
    payment_condition: int | None = strawberry.field(description="KundBedTyp.")
    delivery_costs: float | None = strawberry.field(description="AuftLiefKost.")
    location: int | None = strawberry.field(description="StaoNr.")
    net_total: float = strawberry.field(description="AuftNetto: the positions' net totals added up, to the cent.")
    tax_total: float = strawberry.field(description="AuftWUST: the tax recapitulation's tax added up, to the cent.")
    gross_total: float = strawberry.field(
        description="AuftBrutto: the amount payable, AuftNetto + AuftWUST rounded to the currency's cash step "
        "(CHF 0.05, EUR 0.01)."
    )
    rounding_amount: float = strawberry.field(
        description="Rounding amount (EN 16931 BT-114): AuftBrutto - (AuftNetto + AuftWUST), what rounding the "
        "amount payable to the currency's cash step added (positive) or took off (negative)."
    )
    order_number: str | None = strawberry.field(description="AuftNr: the order an offer was converted into.")
    offer_number: str | None = strawberry.field(description="OffertNr: the offer an order was made from.")
    captured_at: UtcDateTime = strawberry.field(description="AuftErf: when the document was captured.")

    @classmethod
    def written(cls, contents: DocumentContents) -> SalesDocument:
        """The document as the mutation that wrote it read it, before its commit."""
        return cls.of(contents.record, contents)

    @classmethod
    def of(cls, record: DocumentRecord, contents: DocumentContents | None = None) -> SalesDocument:
        return cls(
            record=record,
            contents=contents,
            number=record.number,
            kind=DocumentKind(record.kind),
            customer_number=record.customer_number,
            status=record.status,
            description=record.description,
            external_number=record.external_number,
            reference=record.reference,
            ordered_at=UtcDateTime(record.ordered_at) if record.ordered_at else None,
            delivery_at=UtcDateTime(record.delivery_at) if record.delivery_at else None,
            currency=record.currency,
            comment=record.comment,
            cost_unit=record.cost_unit,
            payment_condition=record.payment_condition,
            delivery_costs=float_or_none(record.delivery_costs),
            location=record.location,
            net_total=float(record.net_total),
            tax_total=float(record.tax_total),
            gross_total=float(record.gross_total),
            rounding_amount=float(record.gross_total - record.net_total - record.tax_total),
            order_number=record.order_number,
            offer_number=record.offer_number,
            captured_at=UtcDateTime(record.captured_at),
        )

    @strawberry.field(description="Template: an offer assigned to no customer yet.")
    def template(self) -> bool:
        return self.record.kind == OFFER and self.record.customer_number is None

    async def _address(self, info: strawberry.Info[Context], address_id: int | None) -> Address | None:
        if address_id is None:
            return None
        if self.contents is not None:
            record = self.contents.addresses.get(address_id)
        else:
            record = await info.context.customers.address.load(address_id)
        return None if record is None else Address.of(record)

    @strawberry.field(description="KontaktAdr.")
    async def contact_address(self, info: strawberry.Info[Context]) -> Address | None:
        return await self._address(info, self.record.contact_address_id)

    @strawberry.field(description="LiefAdr.")
    async def delivery_address(self, info: strawberry.Info[Context]) -> Address | None:
        return await self._address(info, self.record.delivery_address_id)

    @strawberry.field(description="RechAdr.")
    async def billing_address(self, info: strawberry.Info[Context]) -> Address | None:
        return await self._address(info, self.record.billing_address_id)

    @strawberry.field(description="KundBedBez: the payment condition's text in the contact address's language.")
    async def payment_condition_text(self, info: strawberry.Info[Context]) -> str | None:
        if self.contents is not None:
            return self.contents.payment_condition_text
        if self.record.payment_condition is None:
            return None
        contact = await self._address(info, self.record.contact_address_id)
        return await documents.payment_condition_text(
            info.context.db.reads, self.record.payment_condition, contact.language if contact else "ger"
        )

    @strawberry.field(description="Positionen.")
    async def positions(self, info: strawberry.Info[Context]) -> list[Position]:
        if self.contents is not None:
            return [Position.of(p) for p in self.contents.positions]
        return [Position.of(p) for p in await info.context.sales.positions.load(self.record.id)]

    @strawberry.field(description="MWSTRekapitulation: one line per tax rate.")
    async def tax_summary(self, info: strawberry.Info[Context]) -> list[TaxSummaryLine]:
        if self.contents is not None:
            return [TaxSummaryLine.of(line) for line in self.contents.tax_lines]
        positions = await info.context.sales.positions.load(self.record.id)
        lines = await taxes.read_recapitulation(info.context.db.reads, positions, self.record.currency)
        return [TaxSummaryLine.of(line) for line in lines]

    @strawberry.field(description="Zahlung.")
    async def payments(self, info: strawberry.Info[Context]) -> list[Payment]:
        if self.contents is not None:
            return [Payment.of(p) for p in self.contents.payments]
        return [Payment.of(p) for p in await info.context.sales.payments.load(self.record.id)]
