"""Offer and order queries."""

from __future__ import annotations

import strawberry

from datasources.sales import documents
from datasources.sales.records import OFFER, ORDER
from schema.context import Context
from schema.permissions import IsShop
from schema.sales.types import SalesDocument


async def _document(info: strawberry.Info[Context], kind: str, number: str) -> SalesDocument | None:
    record = await documents.document_by_number(info.context.db.reads, kind, number)
    return None if record is None else SalesDocument.of(record)


@strawberry.type
class SalesQuery:
    @strawberry.field(description="An order by AuftNr; null when there is none.", permission_classes=[IsShop])
    async def order(self, info: strawberry.Info[Context], number: str) -> SalesDocument | None:
        return await _document(info, ORDER, number)

    @strawberry.field(description="An offer by OffertNr; null when there is none.", permission_classes=[IsShop])
    async def offer(self, info: strawberry.Info[Context], number: str) -> SalesDocument | None:
        return await _document(info, OFFER, number)
