"""A document as the transaction that wrote it sees it, read in that transaction before its commit.

A write answers from this, not from a read after its commit: an acknowledged commit must not turn into
an error because a second session could not read the document back (the database going away right after
the commit answered such an order 500, and the shop placed it again). The reads are the ones the GraphQL
resolvers of a stored document make, so the answer is what a later GET shows.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from datasources.customers.addresses import addresses_by_id
from datasources.sales import taxes
from datasources.sales.documents import (
    Written,
    document_by_number,
    payment_condition_text,
    payments_by_document,
    positions_by_document,
)
from datasources.sales.records import DocumentContents, DocumentRecord, PaymentRecord, PositionRecord
from datasources.transaction import TransactionReads

DEFAULT_LANGUAGE = "ger"


async def read_contents(session: AsyncSession, kind: str, number: str) -> DocumentContents:
    """Everything of the document, a statement each whatever its number of positions."""
    reads = TransactionReads(session)
    record = await document_by_number(reads, kind, number)
    if record is None:
        raise LookupError(f"{kind} {number} was just written but cannot be read in its transaction")
    positions = (await positions_by_document(reads, [record.id])).get(record.id, [])
    payments = (await payments_by_document(reads, [record.id])).get(record.id, [])
    return await _completed(session, reads, record, positions, payments)


async def written_contents(session: AsyncSession, written: Written) -> DocumentContents:
    """The same for a document this transaction has just written, from what it wrote (the row as flushed,
    the positions and payments as inserted: the values a read would give back); only its addresses and
    payment condition text are read. It may still have its provisional number."""
    return await _completed(session, TransactionReads(session), written.record(), written.positions, written.payments)


async def _completed(
    session: AsyncSession,
    reads: TransactionReads,
    record: DocumentRecord,
    positions: list[PositionRecord],
    payments: list[PaymentRecord],
) -> DocumentContents:
    ids = [record.contact_address_id, record.delivery_address_id, record.billing_address_id]
    wanted = [address_id for address_id in ids if address_id is not None]
    addresses = await addresses_by_id(reads, wanted) if wanted else {}
    condition_text = None
    if record.payment_condition is not None:
        contact = addresses.get(record.contact_address_id) if record.contact_address_id is not None else None
        language = contact.fields.language if contact is not None else DEFAULT_LANGUAGE
        condition_text = await payment_condition_text(reads, record.payment_condition, language)
    return DocumentContents(
        record=record,
        positions=positions,
        payments=payments,
        addresses=addresses,
        tax_lines=await taxes.recapitulation(session, positions, record.currency),
        payment_condition_text=condition_text,
    )
