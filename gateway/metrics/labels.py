"""Label values of bounded number: a route's template, never the path (every ArtNr would be a series of
its own), and a method from a fixed list (a client may send any token as its method)."""

from __future__ import annotations

from starlette.routing import BaseRoute, Match
from starlette.types import Scope

UNMATCHED = "unmatched"  # no route has the path (templates all start with "/")
OTHER_METHOD = "other"
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def method_label(scope: Scope) -> str:
    method: str = scope["method"]
    return method if method in METHODS else OTHER_METHOD


def route_label(scope: Scope) -> str:
    route = scope.get("route") or _matching_route(scope)
    path = getattr(route, "path", None)
    return path if isinstance(path, str) and path else UNMATCHED


def _matching_route(scope: Scope) -> BaseRoute | None:
    """The route a request refused before routing (401, 413, 429) was for: the router sets scope["route"]
    only for requests that reach it."""
    router = getattr(scope.get("app"), "router", None)
    partial = None
    routes: list[BaseRoute] = getattr(router, "routes", [])
    for route in routes:
        match, _ = route.matches(scope)
        if match is Match.FULL:
            return route
        if match is Match.PARTIAL and partial is None:
            partial = route  # the path matches, the method does not (405)
    return partial
