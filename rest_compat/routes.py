"""Every /www route the GraphQL schema serves: one route per path, dispatching by method, so that a
405 answer's `Allow` lists every method the path has."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from rest_compat import addresses, article_changes, articles, customers, log, media, offers, openapi, orders, zugferd

Endpoint = Callable[[Request], Awaitable[Response]]

RESOURCES: Mapping[str, Mapping[str, Endpoint]] = {
    "/www/artikel": {"GET": articles.article_list},
    "/www/artikel/{ArtNr}": {"GET": articles.article_detail},
    "/www/artikelaenderungen": {"GET": article_changes.article_changes},
    "/www/artikelmedia/{ArtNr}": {"GET": media.media_list},
    "/www/artikelmediadaten/{IDKey}": {"GET": media.media_content},
    "/www/kunden": {"POST": customers.customer_create},
    "/www/kunden/{DebiNr}": {"GET": customers.customer_detail},
    "/www/adressen": {"GET": addresses.addresses_of_customer},
    "/www/adressen/{AdrNr}": {"GET": addresses.address_detail, "PATCH": addresses.address_update},
    "/www/adressensuche": {"GET": addresses.address_search},
    "/www/auftrag": {"POST": orders.order_create, "PUT": orders.order_from_offer},
    "/www/auftrag/{AuftNr}": {"GET": orders.order_detail},
    "/www/offerte": {"GET": offers.offer_detail, "POST": offers.offer_create, "PATCH": offers.offer_update},
    "/www/zugferd": {"POST": zugferd.zugferd, "OPTIONS": zugferd.zugferd_options},
    "/www/log": {"DELETE": log.delete_logs},
    "/www/openapi.json": {"GET": openapi.openapi_json},
}


def resource(path: str, handlers: Mapping[str, Endpoint]) -> Route:
    """A route for every method of `path`; HEAD is answered as GET (Starlette adds it to GET routes)."""

    async def endpoint(request: Request) -> Response:
        method = "GET" if request.method == "HEAD" else request.method
        return await handlers[method](request)

    return Route(path, endpoint, methods=list(handlers), name=path)


routes: list[BaseRoute] = [resource(path, handlers) for path, handlers in RESOURCES.items()]
