"""The typed GraphQL context: built once per request, by /graphql and by the REST layer alike."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from starlette.requests import Request

from datasources.database import Database
from schema.batches import FieldBatches
from schema.catalogue.loaders import CatalogueLoaders
from schema.customers.loaders import CustomerLoaders
from schema.limits import DocumentLimits, RequestLimits
from schema.permissions import Principal
from schema.sales.loaders import SalesLoaders


@dataclass
class Context:
    db: Database
    user: Principal | None
    request_id: str
    log_dir: Path
    work_dir: Path
    limits: RequestLimits = field(default_factory=RequestLimits)
    document_limits: DocumentLimits = field(default_factory=DocumentLimits)
    # True for a client's document (/graphql): held to the cost budget and the page size. The REST
    # routes' documents are the gateway's own.
    client_document: bool = False
    # Closes and reopens this process's log files (after deleting them, so their space is freed at once).
    reopen_logs: Callable[[], None] = lambda: None

    @cached_property
    def catalogue(self) -> CatalogueLoaders:
        # Built on first use, so a request that never touches the catalogue never builds them.
        return CatalogueLoaders(self.db)

    @cached_property
    def batches(self) -> FieldBatches:
        # The batch fields an executor other than the compiled plans resolves object by object.
        return FieldBatches(self)

    @cached_property
    def customers(self) -> CustomerLoaders:
        return CustomerLoaders(self.db)

    @cached_property
    def sales(self) -> SalesLoaders:
        return SalesLoaders(self.db)

    @classmethod
    def from_request(cls, request: Request) -> Context:
        state = request.state
        return cls(
            db=state.db,
            user=request.scope.get("user"),
            request_id=state.request_id,
            log_dir=state.log_dir,
            work_dir=state.work_dir,
            limits=state.limits,
            document_limits=state.document_limits,
            reopen_logs=state.reopen_logs,
        )
