"""Domain errors: raised where a rule is broken, mapped to GraphQL (schema/errors.py) and HTTP once each."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar


class DomainError(Exception):
    """An expected failure the client can act on; `code` is the contract's error code."""

    code: ClassVar[str] = "invalid_request"

    def __init__(self, message: str, *, field: str | None = None, info: Mapping[str, Any] | None = None):
        super().__init__(message)
        self.message = message
        self.field = field
        self.info: dict[str, Any] = dict(info or {})


class InvalidInput(DomainError):
    code = "invalid_request"


class NotFound(DomainError):
    code = "not_found"


class Conflict(DomainError):
    code = "conflict"


class Unprocessable(DomainError):
    code = "unprocessable"
