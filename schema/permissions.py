"""Scopes of API users and the permission classes that enforce them on fields."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.permission import BasePermission


class Scope(Enum):
    CATALOGUE = "catalogue"  # read-only catalogue
    SHOP = "shop"  # every /www route and GraphQL operation
    ADMIN = "admin"  # shop, metrics, webhooks, and deleting the log files
    METRICS = "metrics"  # GET /metrics and nothing else (gateway/middleware/auth.py): for Prometheus

    def implied(self) -> frozenset[Scope]:
        return _IMPLIED[self]


_IMPLIED = {
    Scope.CATALOGUE: frozenset({Scope.CATALOGUE}),
    Scope.SHOP: frozenset({Scope.CATALOGUE, Scope.SHOP}),
    Scope.ADMIN: frozenset({Scope.CATALOGUE, Scope.SHOP, Scope.ADMIN, Scope.METRICS}),
    Scope.METRICS: frozenset({Scope.METRICS}),
}


@dataclass(frozen=True, slots=True)
class Principal:
    """The authenticated API user of a request."""

    name: str
    scopes: frozenset[Scope]

    @classmethod
    def from_names(cls, name: str, scopes: tuple[str, ...] | list[str]) -> Principal:
        granted: set[Scope] = set()
        for value in scopes:
            if value in Scope._value2member_map_:
                granted |= Scope(value).implied()
        return cls(name, frozenset(granted))

    def has(self, scope: Scope) -> bool:
        return scope in self.scopes


class _RequiresScope(BasePermission):
    scope: Scope
    error_extensions = {"code": "insufficient_scope"}

    def has_permission(self, source: Any, info: strawberry.Info, **kwargs: Any) -> bool:
        user: Principal | None = info.context.user
        return user is not None and user.has(self.scope)


class CanReadCatalogue(_RequiresScope):
    scope = Scope.CATALOGUE
    message = "the catalogue scope is required"


class IsShop(_RequiresScope):
    scope = Scope.SHOP
    message = "the shop scope is required"


class IsAdmin(_RequiresScope):
    scope = Scope.ADMIN
    message = "the admin scope is required"


def require(user: Principal | None, scope: Scope, message: str) -> None:
    """For an argument that needs more than its field does: the same top-level permission error."""
    if user is None or not user.has(scope):
        raise GraphQLError(message, extensions={"code": "insufficient_scope"})
