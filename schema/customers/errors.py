"""Typed errors of the customer mutations: expected failures are part of the schema."""

from __future__ import annotations

from enum import Enum

import strawberry
from strawberry.scalars import JSON

from datasources.errors import DomainError
from schema.errors import typed_error_fields


@strawberry.enum(description="Why a customer or address operation was refused.")
class CustomerErrorCode(Enum):
    INVALID_REQUEST = "invalid_request"
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"
    UNPROCESSABLE = "unprocessable"


@strawberry.type(description="An expected failure of a customer or address operation.")
class CustomerError:
    field: str | None = strawberry.field(description="Path of the offending input field (camelCase).")
    code: CustomerErrorCode
    message: str
    info: JSON = strawberry.field(description="Details, e.g. {count} for an ambiguous search.")

    @classmethod
    def of(cls, error: DomainError) -> CustomerError:
        return cls(code=CustomerErrorCode(error.code), **typed_error_fields(error))
