"""Every /www route the GraphQL schema serves."""

from __future__ import annotations

from starlette.routing import BaseRoute, Route

from rest_compat import addresses, articles, customers, log, media, offers, orders, zugferd

routes: list[BaseRoute] = [
    Route("/www/artikel", articles.article_list, methods=["GET"]),
    Route("/www/artikel/{number}", articles.article_detail, methods=["GET"]),
    Route("/www/artikelmedia/{number}", media.media_list, methods=["GET"]),
    Route("/www/artikelmediadaten/{id}", media.media_content, methods=["GET"]),
    Route("/www/kunden", customers.customer_create, methods=["POST"]),
    Route("/www/kunden/{number}", customers.customer_detail, methods=["GET"]),
    Route("/www/adressen", addresses.addresses_of_customer, methods=["GET"]),
    Route("/www/adressen/{number}", addresses.address_detail, methods=["GET"]),
    Route("/www/adressen/{number}", addresses.address_update, methods=["PATCH"]),
    Route("/www/adressensuche", addresses.address_search, methods=["GET"]),
    Route("/www/auftrag", orders.order_create, methods=["POST"]),
    Route("/www/auftrag", orders.order_from_offer, methods=["PUT"]),
    Route("/www/auftrag/{number}", orders.order_detail, methods=["GET"]),
    Route("/www/offerte", offers.offer_detail, methods=["GET"]),
    Route("/www/offerte", offers.offer_create, methods=["POST"]),
    Route("/www/offerte", offers.offer_update, methods=["PATCH"]),
    Route("/www/zugferd", zugferd.zugferd, methods=["POST"]),
    Route("/www/zugferd", zugferd.zugferd_options, methods=["OPTIONS"]),
    Route("/www/log", log.delete_logs, methods=["DELETE"]),
]
