"""Every /www operation: its parameters, request body, responses and error statuses, built from the same
shapes the routes render and read (rest_compat/*). The manual's choices (docs/reference/spec-choices.md) are
the descriptions' source."""

from __future__ import annotations

from typing import Any

from rest_compat import addresses, customers, offers, orders, zugferd
from rest_compat.documents import OFFER_INPUT, ORDER_INPUT
from rest_compat.openapi.catalogue import catalogue
from rest_compat.openapi.parts import (
    CUSTOMER_NUMBER,
    LINKS,
    READS,
    TEXT,
    VISIBLE_TEXT,
    WHOLE_NUMBER,
    WHOLE_NUMBER_OR_EMPTY,
    WRITES,
    answer,
    body,
    column_text,
    envelope,
    fields_query,
    file_answer,
    path,
    query,
    responses,
    text_object,
)
from rest_compat.openapi.schemas import (
    BLANK,
    CODES,
    INT32,
    JsonSchema,
    Schemas,
    code_values,
)

Paths = dict[str, dict[str, Any]]


def operations(schemas: Schemas) -> Paths:
    """The `paths` object."""
    return {
        **_token(),
        **catalogue(schemas),
        **_customers(schemas),
        **_addresses(schemas),
        **_orders(schemas),
        **_offers(schemas),
        **_einvoices(schemas),
        **_log(),
    }


def _search_field(name: str, field: JsonSchema) -> JsonSchema:
    """A query parameter of the address search, the address field it compares as the body has it."""
    kind = CODES.get(name)
    if kind is None:
        return query(name, {**TEXT, "maxLength": field["maxLength"]}, f"{name} equals")
    return query(name, {"type": "string", "enum": code_values(kind, required=False)}, f"{name} equals")


def _token() -> Paths:
    token = answer("The token", {"$ref": "#/components/schemas/Token"})
    return {
        "/www/token": {
            "post": {
                "summary": "A bearer token for HTTP Basic credentials (TokenCreate)",
                "security": [{"basic": []}],
                "responses": responses({200: token}, (401, 429, 500, 503)),
            }
        }
    }


def _customers(schemas: Schemas) -> Paths:
    status = {"type": "string", "pattern": f"^{BLANK}[ONAona]?{BLANK}$"}
    return {
        "/www/kunden": {
            "post": {
                "summary": "Stores a customer",
                "requestBody": body(schemas.input(customers.CUSTOMER_INPUT)),
                "responses": responses({201: answer("Its number", envelope(text_object(DebiNr=8)))}, WRITES),
            }
        },
        "/www/kunden/{DebiNr}": {
            "get": {
                "summary": "A customer with its last orders",
                "parameters": [
                    path("DebiNr", CUSTOMER_NUMBER, "DebiNr"),
                    query(
                        "order", WHOLE_NUMBER_OR_EMPTY, "How many of the last orders to list, newest first; default 0"
                    ),
                    query("status", status, "Only orders with this plan status: O, N or A"),
                    fields_query(customers.CUSTOMER),
                ],
                "responses": responses(
                    {
                        200: answer(
                            "The customer", envelope(schemas.output(customers.CUSTOMER, "Customer", every_field=False))
                        )
                    },
                    READS,
                ),
            }
        },
    }


def _addresses(schemas: Schemas) -> Paths:
    entry = schemas.output(addresses.ADDRESS_ENTRY, "Address")
    by_role = {
        "type": "object",
        "properties": {role: {"type": "array", "items": entry} for role in addresses.ROLES},
        "required": list(addresses.ROLES),
    }
    search_fields = schemas.input(addresses.ADDRESS_INPUT, partial=True)["properties"]
    found = {
        "type": "object",
        "properties": {
            "KundLief": INT32,
            "KundRech": INT32,
            "KundKontakt": INT32,
            "DebiNr": {"type": "string", "maxLength": 8},
            "links": LINKS,
        },
        "required": ["KundLief", "KundRech", "KundKontakt", "DebiNr", "links"],
    }
    number = path("AdrNr", WHOLE_NUMBER, "AdrNr")
    return {
        "/www/adressen": {
            "get": {
                "summary": "The addresses of a customer by role",
                "parameters": [query("debinr", {**CUSTOMER_NUMBER, **VISIBLE_TEXT}, "Customer number", required=True)],
                "responses": responses({200: answer("Its addresses", envelope(by_role, counted=True))}, READS),
            }
        },
        "/www/adressen/{AdrNr}": {
            "get": {
                "summary": "One address",
                "parameters": [number],
                "responses": responses(
                    {200: answer("The address", envelope(schemas.output(addresses.ADDRESS, "Address")))}, READS
                ),
            },
            "patch": {
                "summary": "Changes an address: omitted fields keep their value, null clears an optional one",
                "parameters": [number],
                "requestBody": body(schemas.input(addresses.ADDRESS_INPUT, partial=True), required=False),
                "responses": responses({204: {"description": "Changed"}}, WRITES),
            },
        },
        "/www/adressensuche": {
            "get": {
                "summary": "The one customer whose address matches every given field",
                "parameters": [_search_field(name, search_fields[name]) for name in addresses.SEARCH_FIELDS],
                "responses": responses({200: answer("The customer found", envelope(found))}, (*READS, 409)),
            }
        },
    }


def _orders(schemas: Schemas) -> Paths:
    number = envelope(text_object(AuftNr=10))
    key = {
        "name": "Idempotency-Key",
        "in": "header",
        "required": False,
        "schema": {"type": "string", "maxLength": 255},
        "description": "The first answer is replayed to a repeat with the same key",
    }
    return {
        "/www/auftrag": {
            "post": {
                "summary": "Places an order",
                "parameters": [key],
                "requestBody": body(schemas.input(ORDER_INPUT)),
                "responses": responses(
                    {
                        201: answer("The new order's number", number),
                        200: answer("The order this request placed before (AuftBestellNr, Idempotency-Key)", number),
                    },
                    WRITES,
                ),
            },
            "put": {
                "summary": "Converts an offer into an order",
                "requestBody": body(schemas.input(orders.CONVERT_INPUT)),
                "responses": responses(
                    {201: answer("The new order's number", envelope(text_object(AuftNr=10), counted=True))}, WRITES
                ),
            },
        },
        "/www/auftrag/{AuftNr}": {
            "get": {
                "summary": "An order",
                "parameters": [path("AuftNr", column_text("SalesDocument", "number"), "AuftNr")],
                "responses": responses(
                    {200: answer("The order", envelope(schemas.output(orders.ORDER, "SalesDocument")))}, READS
                ),
            }
        },
    }


def _offers(schemas: Schemas) -> Paths:
    offer = envelope(schemas.output(offers.OFFER, "SalesDocument"), counted=True)
    # The route takes OffertNr up to 16 characters (longer: 400), although the ERP's numbers have 10.
    offer_number = query("OffertNr", {**VISIBLE_TEXT, "maxLength": 16}, "OffertNr", required=True)
    return {
        "/www/offerte": {
            "get": {
                "summary": "An offer",
                "parameters": [offer_number],
                "responses": responses({200: answer("The offer", offer)}, READS),
            },
            "post": {
                "summary": "Stores an offer; without KundNr a template offer",
                "requestBody": body(schemas.input(OFFER_INPUT)),
                "responses": responses(
                    {
                        201: answer(
                            "The offer", envelope(schemas.output(offers.CREATED_OFFER, "SalesDocument"), counted=True)
                        )
                    },
                    WRITES,
                ),
            },
            "patch": {
                "summary": "Changes an offer: positions, whole addresses, the customer of a template offer",
                "parameters": [offer_number, query("KundNr", CUSTOMER_NUMBER, "Assigns a template offer")],
                "requestBody": body(schemas.input(offers.CHANGE_INPUT), required=False),
                "responses": responses({200: answer("The offer", offer)}, WRITES),
            },
        },
    }


def _einvoices(schemas: Schemas) -> Paths:
    endpoint_error = answer(
        "Every failure of the endpoint (`endpoint`, `info.filename`, `info.subprocess_output`)",
        {"$ref": "#/components/schemas/Error"},
    )
    return {
        "/www/zugferd": {
            "post": {
                "summary": "Embeds an XML invoice in a PDF (Combine) or extracts it (Extract)",
                "requestBody": body(schemas.input(zugferd.INPUT)),
                "responses": {
                    "200": file_answer("The PDF (Combine) or the XML (Extract)", "application/pdf", "application/xml"),
                    "400": endpoint_error,
                    **responses({}, (401, 403, 413, 415, 429, 500, 503)),
                },
            },
            "options": {
                "summary": "The methods of the endpoint (no token needed)",
                "security": [],
                "responses": {"204": {"description": "`Allow: POST, OPTIONS`"}},
            },
        }
    }


def _log() -> Paths:
    return {
        "/www/log": {
            "delete": {
                "summary": "Deletes every log file (admin scope)",
                "responses": responses({204: {"description": "Deleted"}}, (401, 403, 429, 500, 503)),
            }
        }
    }
