"""The typed GraphQL context: built once per request, by /graphql and by the REST layer alike."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.requests import Request

from datasources.database import Database
from schema.permissions import Principal

if TYPE_CHECKING:
    from schema.catalogue.loaders import CatalogueLoaders


@dataclass
class Context:
    db: Database
    user: Principal | None
    request_id: str
    log_dir: Path
    # Extra response headers a resolver asks for (unused by /www; kept for the GraphQL view).
    response_headers: dict[str, str] = field(default_factory=dict)

    @cached_property
    def catalogue(self) -> CatalogueLoaders:
        # Built on first use, so a request that never touches the catalogue never builds them.
        from schema.catalogue.loaders import CatalogueLoaders

        return CatalogueLoaders(self.db)

    @classmethod
    def from_request(cls, request: Request) -> Context:
        state = request.state
        user = request.scope.get("user")
        return cls(db=state.db, user=user, request_id=state.request_id, log_dir=state.log_dir)
