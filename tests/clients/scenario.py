"""The shop scenario every client runs against the real server, and what it must read back.

A client gets a token with HTTP Basic, lists five articles, creates the customer "Zoë Müller-Lüdenscheidt"
in Zürich, places an order whose comment holds "€" and an emoji beyond the BMP, and reads all of it back.
It reports a small JSON result (see `expected_result`) that the tests compare exactly. The client scripts
in node/, php/ and java/ spell out the same data and steps in their own language; keep them in step.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass
from typing import Any, Protocol

CONTENT_TYPE = "application/json; charset=iso-8859-1"

FIRST_NAME = "Zoë"
LAST_NAME = "Müller-Lüdenscheidt"
STREET = "Löwenstrasse 12"
PLACE = "Zürich"
POSTAL_CODE = "8001"
# U+1F69A is a surrogate pair in JSON; U+2014 and U+20AC are beyond Latin-1.
COMMENT = "Lieferung bitte 🚚 — 12 € Trinkgeld"
ARTICLE = "A-000001"
CUSTOMER_DESIGNATION = f"{FIRST_NAME} {LAST_NAME}"  # KundBez: first and last name (23 characters, within 24)

# (label, expected status) of every request, in order; the labels are the same in every client.
STEPS = [
    ("POST /www/token", 200),
    ("GET /www/artikel?limit=5", 200),
    ("POST /www/kunden", 201),
    ("POST /www/auftrag", 201),
    ("GET /www/kunden/{DebiNr}", 200),
    ("GET /www/adressen?debinr={DebiNr}", 200),
    ("GET /www/auftrag/{AuftNr}", 200),
]


def customer_body() -> dict[str, Any]:
    return {
        "GrundDaten": {"WaehrAbk": "CHF", "FAKTZahlArt": "R"},
        "Adressen": {
            "KontaktAdr": {
                "AdrSprache": "ger",
                "AdrAnrede": 2,
                "AdrVorname": FIRST_NAME,
                "AdrName": LAST_NAME,
                "AdrAdresse1": STREET,
                "OrtLand": "CH",
                "OrtName": PLACE,
                "OrtPLZ": POSTAL_CODE,
            }
        },
    }


def order_body(customer: str) -> dict[str, Any]:
    return {
        "GrundDaten": {"KundNr": customer, "AuftKomment": COMMENT},
        "Positionen": [{"ArtNr": ARTICLE, "Menge": 2}],
    }


def expected_result(customer: str, order: str, articles: list[list[str]], position_text: str) -> dict[str, Any]:
    """What a client must report: `articles` ([ArtNr, ArtBez] of the first page) and `position_text` (the
    ordered article's ArtBez) as httpx decoded them; everything else exactly as sent."""
    return {
        "token_type": "Bearer",
        "articles": articles,
        "DebiNr": customer,
        "AuftNr": order,
        "KundBez": CUSTOMER_DESIGNATION,
        "KundKontakt": {
            "AdrVorname": FIRST_NAME,
            "AdrName": LAST_NAME,
            "AdrAdresse1": STREET,
            "OrtName": PLACE,
            "OrtPLZ": POSTAL_CODE,
            "OrtLand": "CH",
        },
        "order": {
            "KundNr": customer,
            "AuftKomment": COMMENT,
            "KontaktAdr": {"AdrVorname": FIRST_NAME, "AdrName": LAST_NAME, "OrtName": PLACE},
            "PosBez": position_text,
        },
        "mismatches": [],
        "responses": [[label, status, CONTENT_TYPE] for label, status in STEPS],
    }


@dataclass(frozen=True)
class Reply:
    """One answer as a Python client saw it: `data` is what its `response.json()` returned."""

    status: int
    content_type: str
    content: bytes
    data: Any


class Send(Protocol):
    """One request through a Python client, with a JSON body, HTTP Basic credentials or a bearer token."""

    def __call__(
        self, method: str, path: str, body: dict[str, Any] | None, basic: tuple[str, str] | None, token: str | None
    ) -> Reply: ...


def run_scenario(send: Send, user: str, secret: str) -> tuple[dict[str, Any], list[Reply]]:
    """The scenario through a Python client; returns the result (as the scripts print it, with `error` when a
    step failed) and every reply."""
    replies: list[Reply] = []
    result: dict[str, Any] = {"responses": []}

    def step(
        index: int,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        *,
        basic: tuple[str, str] | None = None,
        token: str | None = None,
    ) -> Any:
        label, status = STEPS[index]
        reply = send(method, path, body, basic, token)
        replies.append(reply)
        result["responses"].append([label, reply.status, reply.content_type])
        if reply.status != status:
            raise AssertionError(f"{label}: {reply.status} {reply.data}")
        return reply.data

    try:
        token = step(0, "POST", "/www/token", basic=(user, secret))
        result["token_type"] = token["token_type"]
        bearer = token["access_token"]
        page = step(1, "GET", "/www/artikel?limit=5", token=bearer)["data"]
        result["articles"] = [[article["ArtNr"], article["ArtBez"]] for article in page]
        customer = step(2, "POST", "/www/kunden", customer_body(), token=bearer)["data"]["DebiNr"]
        order = step(3, "POST", "/www/auftrag", order_body(customer), token=bearer)["data"]["AuftNr"]
        result["DebiNr"], result["AuftNr"] = customer, order

        result["KundBez"] = step(4, "GET", f"/www/kunden/{customer}", token=bearer)["data"]["KundBez"]
        contact = step(5, "GET", f"/www/adressen?debinr={customer}", token=bearer)["data"]["KundKontakt"][0]
        contact_fields = ("AdrVorname", "AdrName", "AdrAdresse1", "OrtName", "OrtPLZ", "OrtLand")
        result["KundKontakt"] = {name: contact[name] for name in contact_fields}
        read = step(6, "GET", f"/www/auftrag/{order}", token=bearer)["data"]
        address = read["Adressen"]["KontaktAdr"]
        result["order"] = {
            "KundNr": read["GrundDaten"]["KundNr"],
            "AuftKomment": read["GrundDaten"]["AuftKomment"],
            "KontaktAdr": {name: address[name] for name in ("AdrVorname", "AdrName", "OrtName")},
            "PosBez": read["Positionen"][0]["PosBez"],
        }
        sent_and_read = [
            ("AdrVorname", FIRST_NAME, contact["AdrVorname"]),
            ("AdrName", LAST_NAME, contact["AdrName"]),
            ("AdrAdresse1", STREET, contact["AdrAdresse1"]),
            ("OrtName", PLACE, contact["OrtName"]),
            ("AuftKomment", COMMENT, read["GrundDaten"]["AuftKomment"]),
            ("KontaktAdr.AdrVorname", FIRST_NAME, address["AdrVorname"]),
            ("KontaktAdr.AdrName", LAST_NAME, address["AdrName"]),
            ("KontaktAdr.OrtName", PLACE, address["OrtName"]),
        ]
        result["mismatches"] = [[name, sent, got] for name, sent, got in sent_and_read if got != sent]
    except Exception:  # reported in the result, as the scripts report theirs
        result["error"] = traceback.format_exc()
    return result, replies
