"""Typed errors of the offer and order mutations."""

from __future__ import annotations

from enum import Enum

import strawberry
from strawberry.scalars import JSON

from datasources.errors import DomainError
from schema.errors import typed_error_fields


@strawberry.enum(description="Why an offer or order operation was refused.")
class SalesErrorCode(Enum):
    INVALID_REQUEST = "invalid_request"
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"
    UNPROCESSABLE = "unprocessable"


@strawberry.type(description="An expected failure of an offer or order operation.")
class SalesError:
    field: str | None = strawberry.field(description="Path of the offending input field (camelCase).")
    code: SalesErrorCode
    message: str
    info: JSON = strawberry.field(description="Details: the position, what differs, an existing AuftNr.")

    @classmethod
    def of(cls, error: DomainError) -> SalesError:
        return cls(code=SalesErrorCode(error.code), **typed_error_fields(error))
