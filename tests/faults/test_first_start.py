"""The README's first start, then every kind of record the shop creates: on PostgreSQL a fresh database
seeded by the demo used to fail every customer with addresses until the id sequences passed the demo's
explicit ids (500 `UniqueViolation pk_address`). Runs on SQLite and, with GATEWAY_TEST_DATABASE_URL, on
PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.server import running_server

USER, SECRET = "shop", "a-long-secret"


def address(name: str, street: str, place: str = "Bern", code: str = "3011") -> dict[str, Any]:
    return {
        "AdrSprache": "ger",
        "AdrAnrede": 2,
        "AdrName": name,
        "AdrAdresse1": street,
        "OrtLand": "CH",
        "OrtName": place,
        "OrtPLZ": code,
    }


def test_the_first_start_then_customers_addresses_orders_and_offers(tmp_path: Path) -> None:
    with running_server(tmp_path, users=[(USER, SECRET, ["shop"])]) as server:
        token = server.token(USER, SECRET)
        with httpx.Client(base_url=server.base_url, headers={"Authorization": f"Bearer {token}"}, timeout=30) as http:
            _create_everything(http)
        log = server.directory / "logs" / "gateway.log"
        assert not log.exists() or "Traceback" not in log.read_text()


def _create_everything(http: httpx.Client) -> None:
    numbers = []
    for index in range(3):  # several: each takes new address ids
        customer = {
            "GrundDaten": {"WaehrAbk": "CHF", "FAKTZahlArt": "B"},
            "Adressen": {
                "KontaktAdr": address(f"Muster {index}", "Bundesplatz 3"),
                "LiefAdr": address(f"Lager {index}", "Laupenstrasse 1"),
                "RechAdr": address(f"Buchhaltung {index}", "Schanzenstrasse 5"),
            },
        }
        created = http.post("/www/kunden", json=customer)
        assert created.status_code == 201, created.text
        numbers.append(created.json()["data"]["DebiNr"])

    contact = http.get(f"/www/kunden/{numbers[0]}").json()["data"]["KundKontakt"]
    patched = http.patch(f"/www/adressen/{contact}", json={"AdrAdresse2": "c/o Empfang"})
    assert patched.status_code == 204, patched.text

    order = {
        "GrundDaten": {"KundNr": numbers[1]},
        "Adressen": {"LiefAdr": address("Baustelle", "Waisenhausplatz 1")},
        "Positionen": [{"ArtNr": "A-000001", "Menge": 1}],
        "Zahlung": [{"Bezeichnung": "TransID", "Wert": "T-1"}],
    }
    placed = http.post("/www/auftrag", json=order)
    assert placed.status_code == 201, placed.text

    offer = http.post("/www/offerte", json={"GrundDaten": {"KundNr": numbers[2]}, "Positionen": order["Positionen"]})
    assert offer.status_code == 201, offer.text
    converted = http.put(
        "/www/auftrag", json={"GrundDaten": {"KundNr": numbers[2], "OffertNr": offer.json()["data"]["OffertNr"]}}
    )
    assert converted.status_code == 201, converted.text
