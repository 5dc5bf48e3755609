"""Typed errors of the webhook mutations: expected failures are part of the schema."""

from __future__ import annotations

from enum import Enum

import strawberry
from strawberry.scalars import JSON

from datasources.errors import DomainError
from schema.errors import typed_error_fields


@strawberry.enum(description="Why a webhook operation was refused.")
class WebhookErrorCode(Enum):
    INVALID_REQUEST = "invalid_request"
    NOT_FOUND = "not_found"


@strawberry.type(description="An expected failure of a webhook operation.")
class WebhookError:
    field: str | None = strawberry.field(description="The offending argument: url, events or id.")
    code: WebhookErrorCode
    message: str
    info: JSON = strawberry.field(description="Details, e.g. {ids} of deliveries that do not exist.")

    @classmethod
    def of(cls, error: DomainError) -> WebhookError:
        return cls(code=WebhookErrorCode(error.code), **typed_error_fields(error))
