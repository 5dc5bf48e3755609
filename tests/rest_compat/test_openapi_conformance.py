"""Real answers of every /www route, from a real `gateway serve` with the demo data, validated against the
schemas /www/openapi.json gives for their status: the document says what the server sends."""

from __future__ import annotations

import base64
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from tests.server import GatewayServer, running_server

# The last test reads what every other test of this module checked (the module's server and its record): under
# pytest-xdist the module runs on one worker (--dist loadfile, pyproject.toml), or the record would be split.
SAMPLES = Path(__file__).parents[1] / "fixtures" / "einvoice" / "combine"
SHOP, ADMIN, CATALOGUE = ("shop", "a-shop-secret"), ("operator", "an-admin-secret"), ("reader", "a-reader-secret")


class Checker:
    def __init__(self, server: GatewayServer) -> None:
        self.server = server
        self.document: dict[str, Any] = httpx.get(f"{server.base_url}/www/openapi.json", timeout=30).json()
        resource = Resource.from_contents(self.document, default_specification=DRAFT202012)
        self.registry = Registry().with_resource("urn:www", resource)
        self.checked: set[tuple[str, str, int]] = set()
        self.tokens = {name: server.token(name, secret) for name, secret in (SHOP, ADMIN, CATALOGUE)}

    def call(
        self, method: str, path: str, template: str | None = None, *, user: str = "shop", **kwargs: Any
    ) -> httpx.Response:
        headers = {"Authorization": f"Bearer {self.tokens[user]}", **kwargs.pop("headers", {})}
        response = httpx.request(method, self.server.base_url + path, headers=headers, timeout=60, **kwargs)
        self.conforms(method, template or path.split("?")[0], response)
        if method == "GET":  # HEAD is answered as GET without a body
            head = httpx.request("HEAD", self.server.base_url + path, headers=headers, timeout=60, **kwargs)
            assert head.status_code == response.status_code and head.content == b""
            self.conforms("HEAD", template or path.split("?")[0], head)
        return response

    def conforms_to_error(self, status: int, response: httpx.Response) -> None:
        """An answer no operation has (405), against the document's shared error answer."""
        assert response.status_code == status
        documented = self.document["components"]["responses"][f"E{status}"]
        schema = {"$ref": f"urn:www#/components/responses/E{status}/content/application~1json/schema"}
        errors = list(Draft202012Validator(schema, registry=self.registry).iter_errors(response.json()))
        assert not errors, [e.message for e in errors[:3]]
        for name, header in documented.get("headers", {}).items():
            assert re.fullmatch(header["schema"].get("pattern", ".*"), response.headers[name]), name

    def conforms(self, method: str, template: str, response: httpx.Response) -> None:
        operation = self.document["paths"][template][method.lower()]
        status = str(response.status_code)
        assert status in operation["responses"], f"{method} {template}: {status} is not documented"
        documented = operation["responses"][status]
        pointer = f"/paths/{_escape(template)}/{method.lower()}/responses/{status}"
        if "$ref" in documented:
            pointer = documented["$ref"].removeprefix("#")
            documented = self.document["components"]["responses"][pointer.rsplit("/", 1)[1]]
        content = documented.get("content")
        if content is None:
            assert response.content == b""
        elif "application/json" in content:
            assert response.headers["content-type"].startswith("application/json")
            schema = {"$ref": f"urn:www#{pointer}/content/application~1json/schema"}
            errors = list(Draft202012Validator(schema, registry=self.registry).iter_errors(response.json()))
            assert not errors, f"{method} {template} {status}: {[e.message for e in errors[:3]]}"
        else:
            media_type = response.headers["content-type"].split(";")[0]
            assert any(media_type.startswith(kind.rstrip("*")) for kind in content), media_type
        self.checked.add((method, template, response.status_code))


def _escape(template: str) -> str:
    return template.replace("~", "~0").replace("/", "~1")


@pytest.fixture(scope="module")
def checker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Checker]:
    users = [(*SHOP, ["shop"]), (*ADMIN, ["admin"]), (*CATALOGUE, ["catalogue"])]
    # A body that stops arriving is answered 408 after a second instead of thirty.
    short = {"GATEWAY_BODY_TIMEOUT": "1"}
    with running_server(tmp_path_factory.mktemp("openapi"), users=users, extra_env=short) as server:
        yield Checker(server)


def address(name: str) -> dict[str, Any]:
    return {
        "AdrSprache": "ger",
        "AdrAnrede": 1,
        "AdrName": name,
        "AdrAdresse1": "Bundesplatz 3",
        "OrtLand": "CH",
        "OrtName": "Bern",
        "OrtPLZ": "3011",
    }


def test_the_catalogue_routes(checker: Checker) -> None:
    page = checker.call("GET", "/www/artikel?limit=50&debinr=100001").json()
    with_units = next(a["ArtNr"] for a in page["data"] if a["HatVPE"] == "J")
    checker.call(
        "GET", "/www/artikel?limit=2&offset=2&sorts=-ArtNr&fields=ArtNr,Preis.PreisList,Verpackungen.VPEinheit"
    )
    checker.call("GET", f"/www/artikel/{with_units}?waehrabk=EUR&adrsprache=fre", "/www/artikel/{ArtNr}")
    checker.call("GET", "/www/artikel/A-000001?fields=ArtNr,Deklaration", "/www/artikel/{ArtNr}")
    for article in page["data"]:
        records = checker.call("GET", f"/www/artikelmedia/{article['ArtNr']}", "/www/artikelmedia/{ArtNr}").json()[
            "data"
        ]
        if records:
            checker.call("GET", f"/www/artikelmediadaten/{records[0]['IDKey']}", "/www/artikelmediadaten/{IDKey}")
            break
    cursor = checker.call("GET", "/www/artikelaenderungen").json()["data"]["Cursor"]
    checker.call("GET", f"/www/artikelaenderungen?seit={cursor}&limit=10&fields=ArtNr,Preis")
    checker.call("GET", "/www/artikelaenderungen?seit=nope")  # 400
    checker.call("GET", "/www/artikel/NOPE", "/www/artikel/{ArtNr}")  # 404
    checker.call("GET", "/www/artikel?limit=x")  # 400
    checker.call("GET", "/www/artikel?debinr=100001", user="reader")  # 403
    checker.call("GET", "/www/artikelmediadaten/999999", "/www/artikelmediadaten/{IDKey}")  # 404


def test_customers_and_addresses(checker: Checker) -> None:
    body = {
        "GrundDaten": {"WaehrAbk": "CHF", "FAKTZahlArt": "B", "KreditLimit": 100},
        "Adressen": {"KontaktAdr": address("Muster"), "LiefAdr": address("Lager"), "RechAdr": address("Buchhaltung")},
    }
    number = checker.call("POST", "/www/kunden", json=body).json()["data"]["DebiNr"]
    customer = checker.call("GET", f"/www/kunden/{number}?order=5", "/www/kunden/{DebiNr}").json()["data"]
    checker.call("GET", f"/www/adressen?debinr={number}")
    checker.call("GET", f"/www/adressen/{customer['KundKontakt']}", "/www/adressen/{AdrNr}")
    checker.call(
        "PATCH", f"/www/adressen/{customer['KundKontakt']}", "/www/adressen/{AdrNr}", json={"AdrAdresse2": "2. Stock"}
    )
    checker.call("GET", "/www/adressensuche?AdrName=Buchhaltung&OrtPLZ=3011")
    checker.call("POST", "/www/kunden", json={"GrundDaten": {"WaehrAbk": "CHF"}})  # 400
    checker.call("GET", "/www/kunden/999999?order=1", "/www/kunden/{DebiNr}")  # 404


def test_orders_and_offers(checker: Checker) -> None:
    positions = [{"ArtNr": "A-000001", "Menge": 2, "Preis": 12.5}]
    order = {
        "GrundDaten": {"KundNr": "100001", "AuftBestellNr": "CONF-1"},
        "Positionen": positions,
        "Zahlung": [{"Bezeichnung": "TransID", "Wert": "T-1"}],
    }
    number = checker.call("POST", "/www/auftrag", json=order).json()["data"]["AuftNr"]  # 201
    assert checker.call("POST", "/www/auftrag", json=order).status_code == 200
    checker.call("POST", "/www/auftrag", json={**order, "Positionen": positions * 2})  # 409
    checker.call("GET", f"/www/auftrag/{number}", "/www/auftrag/{AuftNr}")
    offer = checker.call("POST", "/www/offerte", json={"Positionen": [{"ArtNr": "A-000001", "Menge": 1}]}).json()
    template = offer["data"]["OffertNr"]
    checker.call("GET", f"/www/offerte?OffertNr={template}")
    changed = checker.call(
        "PATCH", f"/www/offerte?OffertNr={template}", json={"Positionen": [{"ArtNr": "A-000001", "Menge": 3}]}
    )
    assert changed.status_code == 200, changed.text
    assigned = checker.call(
        "POST",
        "/www/offerte",
        json={"GrundDaten": {"KundNr": "100001"}, "Positionen": [{"ArtNr": "A-000001", "Menge": 1}]},
    ).json()
    checker.call(
        "PUT", "/www/auftrag", json={"GrundDaten": {"KundNr": "100001", "OffertNr": assigned["data"]["OffertNr"]}}
    )
    checker.call(
        "POST", "/www/auftrag", json={"GrundDaten": {"KundNr": "100001"}, "Positionen": [{"ArtNr": "NOPE", "Menge": 1}]}
    )  # 422
    checker.call("GET", "/www/offerte?OffertNr=0")  # 404


def test_einvoices_and_logs(checker: Checker) -> None:
    pdf = base64.b64encode((SAMPLES / "blank-pdfa3.pdf").read_bytes()).decode()
    xml = base64.b64encode((SAMPLES / "cii-2p1-en16931-einfach.xml").read_bytes()).decode()
    combined = checker.call("POST", "/www/zugferd", json={"Operation": "Combine", "PDF": pdf, "XML": xml})
    checker.call(
        "POST", "/www/zugferd", json={"Operation": "Extract", "PDF": base64.b64encode(combined.content).decode()}
    )
    checker.call("POST", "/www/zugferd", json={"Operation": "Extract", "PDF": "bm90IGEgUERG"})  # 400
    checker.call("OPTIONS", "/www/zugferd")
    checker.call("DELETE", "/www/log", user="operator")
    checker.call("DELETE", "/www/log")  # 403
    response = httpx.post(f"{checker.server.base_url}/www/token", auth=SHOP, timeout=30)
    checker.conforms("POST", "/www/token", response)
    checker.conforms(
        "POST",
        "/www/token",
        httpx.post(f"{checker.server.base_url}/www/token", auth=("shop", "wrong-secret"), timeout=30),
    )


def test_every_path_answers_its_other_methods_with_405(checker: Checker) -> None:
    for template, item in checker.document["paths"].items():
        methods = [method.upper() for method in item if method != "description"]
        other = next(method for method in ("DELETE", "PUT", "GET") if method not in methods)
        path = re.sub(r"\{\w+\}", "1", template)
        response = httpx.request(
            other, checker.server.base_url + path, headers={"Authorization": f"Bearer {checker.tokens['shop']}"}
        )
        checker.conforms_to_error(405, response)
        assert response.headers["Allow"] == ", ".join(methods), template
        assert item["description"].endswith(f"Allow: {response.headers['Allow']}")


def test_a_body_that_does_not_arrive_is_answered_408(checker: Checker) -> None:
    head = (
        f"POST /www/auftrag HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {checker.tokens['shop']}\r\n"
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"
    )
    with socket.create_connection(("127.0.0.1", checker.server.port), timeout=30) as sock:
        sock.sendall(head.encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head_lines, _, content = answer.partition(b"\r\n\r\n")
    status_line, *header_lines = head_lines.decode().split("\r\n")
    headers = dict(line.split(": ", 1) for line in header_lines)
    response = httpx.Response(int(status_line.split()[1]), headers=headers, content=content)
    assert response.status_code == 408
    checker.conforms("POST", "/www/auftrag", response)


def test_every_route_was_checked_with_a_success(checker: Checker) -> None:
    succeeded = {(method, template) for method, template, status in checker.checked if status < 300}
    documented = {
        (method.upper(), template)
        for template, item in checker.document["paths"].items()
        for method in item
        if method != "description"
    }
    assert documented == succeeded, documented - succeeded
