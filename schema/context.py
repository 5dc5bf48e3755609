"""The typed GraphQL context: built once per request, by /graphql and by the REST layer alike."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from starlette.requests import HTTPConnection, Request

from datasources.catalogue.aggregate_cache import CheckedAggregates
from datasources.catalogue.changes import DEFAULT_RETENTION
from datasources.database import Database
from datasources.einvoice.workfiles import DEFAULT_MAX_BYTES as DEFAULT_MAX_WORK_BYTES
from datasources.live import Hub
from datasources.live.catalogue import CatalogueWatch
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
    max_work_bytes: int = DEFAULT_MAX_WORK_BYTES
    webhook_allow_private: bool = False  # GATEWAY_WEBHOOK_ALLOW_PRIVATE: endpoints on private addresses
    limits: RequestLimits = field(default_factory=RequestLimits)
    document_limits: DocumentLimits = field(default_factory=DocumentLimits)
    changes_retention: float = DEFAULT_RETENTION  # GATEWAY_CHANGES_RETENTION: the change feed's tombstones
    # True for a client's document (/graphql): held to the cost budget and the page size. The REST
    # routes' documents are the gateway's own.
    client_document: bool = False
    # Closes and reopens this process's log files (after deleting them, so their space is freed at once).
    reopen_logs: Callable[[], None] = lambda: None
    # This process's live feed (subscriptions); None where nothing serves them.
    live: Hub | None = None
    # This process's watch of the catalogue's changes (the catalogueChanges subscription); None likewise.
    catalogue_watch: CatalogueWatch | None = None

    @cached_property
    def catalogue(self) -> CatalogueLoaders:
        # Built on first use, so a request that never touches the catalogue never builds them.
        return CatalogueLoaders(self.db)

    @cached_property
    def aggregates(self) -> CheckedAggregates:
        # The process's kept facets and statistics, checked against the change stamps once per request.
        postgresql = self.db.engine.dialect.name == "postgresql"
        return CheckedAggregates(
            self.db.aggregates, self.db.reads, postgresql=postgresql, retention=self.changes_retention
        )

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
        return cls.from_connection(request, user=request.scope.get("user"), request_id=request.state.request_id)

    @classmethod
    def from_connection(
        cls, connection: HTTPConnection, *, user: Principal | None, request_id: str, client_document: bool = False
    ) -> Context:
        """The context of a request or a WebSocket connection, from the app's state."""
        state: Mapping[str, Any] = connection.scope.setdefault("state", {})
        return cls.from_state(state, user=user, request_id=request_id, client_document=client_document)

    @classmethod
    def from_state(
        cls, state: Mapping[str, Any], *, user: Principal | None, request_id: str, client_document: bool = False
    ) -> Context:
        """The context from the app's state as the scope holds it (`scope["state"]`)."""
        return cls(
            db=state["db"],
            user=user,
            request_id=request_id,
            log_dir=state["log_dir"],
            work_dir=state["work_dir"],
            max_work_bytes=state["max_work_bytes"],
            webhook_allow_private=state["webhook_allow_private"],
            limits=state["limits"],
            document_limits=state["document_limits"],
            changes_retention=state["changes_retention"],
            client_document=client_document,
            reopen_logs=state["reopen_logs"],
            live=state.get("live"),
            catalogue_watch=state.get("catalogue_watch"),
        )
