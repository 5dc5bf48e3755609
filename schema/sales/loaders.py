"""Per-request dataloaders of offers and orders."""

from __future__ import annotations

from datasources.database import Database
from datasources.sales import documents
from datasources.sales.records import PaymentRecord, PositionRecord
from schema.loaders import BatchLoader


class PositionsByDocumentLoader(BatchLoader[int, list[PositionRecord]]):
    fetch = staticmethod(documents.positions_by_document)
    missing = list


class PaymentsByDocumentLoader(BatchLoader[int, list[PaymentRecord]]):
    fetch = staticmethod(documents.payments_by_document)
    missing = list


class SalesLoaders:
    def __init__(self, db: Database) -> None:
        self.positions = PositionsByDocumentLoader(db)
        self.payments = PaymentsByDocumentLoader(db)
