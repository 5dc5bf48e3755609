"""/www/openapi.json made for client generators: a named operation and a tag everywhere, the specification's
parameter names, a working example for every request body, the ISO lists once by `$ref` (a document under
500 KB), gzip for large answers, and openapi-typescript generating named operations from it."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import jsonschema
import pytest
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from rest_compat.openapi.document import openapi_document
from rest_compat.responses import encode_json
from schema.execution import Executor
from schema.schema import build_schema
from tests.required_tools import require
from tests.server import GatewayServer, running_server

AUDITS = Path(__file__).parents[1] / "audits"
GENERATOR = AUDITS / "node_modules" / "openapi-typescript" / "bin" / "cli.js"
SPEC_NAMES = {"ArtNr", "IDKey", "DebiNr", "AdrNr", "AuftNr"}


@cache
def document() -> dict[str, Any]:
    return openapi_document(Executor(build_schema()))


def operations() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document()["paths"].items():
        for method, operation in item.items():
            if method != "description":
                yield path, method, operation


def test_the_document_is_under_500_kb() -> None:
    assert len(encode_json(document())) < 500_000


def test_every_operation_has_its_own_name_and_a_declared_tag() -> None:
    names = [operation["operationId"] for _, _, operation in operations()]
    assert len(names) == len(set(names)) > 25
    assert all(re.fullmatch(r"[a-z][A-Za-z]+", name) for name in names), names
    declared = {tag["name"] for tag in document()["tags"]}
    assert {tag for _, _, operation in operations() for tag in operation["tags"]} == declared
    assert all(len(operation["tags"]) == 1 for _, _, operation in operations())


def test_path_parameters_have_the_specifications_names() -> None:
    for path, _, operation in operations():
        in_path = set(re.findall(r"\{(\w+)\}", path))
        assert in_path <= SPEC_NAMES, path
        assert {p["name"] for p in operation.get("parameters", []) if p["in"] == "path"} == in_path, path


def test_the_iso_lists_are_written_once() -> None:
    text = json.dumps(document())
    assert text.count('"fre"') == 1 and text.count('"LI"') == 1


def test_every_request_body_has_an_example_its_schema_accepts() -> None:
    registry = Registry().with_resource(
        "urn:www", Resource.from_contents(document(), default_specification=DRAFT202012)
    )
    bodies = [(path, method, op["requestBody"]) for path, method, op in operations() if "requestBody" in op]
    assert len(bodies) == 7
    for path, method, body in bodies:
        content = body["content"]["application/json"]
        schema = {
            "$ref": f"urn:www#/paths/{path.replace('/', '~1')}/{method}/requestBody/content/application~1json/schema"
        }
        jsonschema.Draft202012Validator(schema, registry=registry).validate(content["example"])


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayServer]:
    with running_server(tmp_path_factory.mktemp("examples"), users=[("swagger", "try-it-out-1", ["shop"])]) as server:
        yield server


def example(path: str, method: str) -> Any:
    return document()["paths"][path][method]["requestBody"]["content"]["application/json"]["example"]


def test_the_examples_succeed_on_the_demo_data_as_swagger_ui_sends_them(demo: GatewayServer) -> None:
    """Swagger UI's "Try it out", in the order of the page, on a fresh `gateway serve`."""
    auth = {"Authorization": f"Bearer {demo.token('swagger', 'try-it-out-1')}"}
    with httpx.Client(base_url=demo.base_url, headers=auth, timeout=30) as client:
        customer = client.post("/www/kunden", json=example("/www/kunden", "post"))
        assert customer.status_code == 201, customer.text
        address = client.patch("/www/adressen/1", json=example("/www/adressen/{AdrNr}", "patch"))
        assert address.status_code == 204, address.text
        order = client.post("/www/auftrag", json=example("/www/auftrag", "post"))
        assert order.status_code == 201, order.text
        offer = client.post("/www/offerte", json=example("/www/offerte", "post"))
        assert offer.status_code == 201, offer.text
        number = offer.json()["data"]["OffertNr"]
        assert number == example("/www/auftrag", "put")["GrundDaten"]["OffertNr"]
        changed = client.patch(f"/www/offerte?OffertNr={number}", json=example("/www/offerte", "patch"))
        assert changed.status_code == 200, changed.text
        converted = client.put("/www/auftrag", json=example("/www/auftrag", "put"))
        assert converted.status_code == 201, converted.text
        einvoice = client.post("/www/zugferd", json=example("/www/zugferd", "post"))
        # A PDF without an invoice in it: the endpoint's own answer, not a refused request.
        assert einvoice.status_code in (200, 400) and einvoice.json().get("error", "endpoint") == "endpoint"


def test_large_answers_are_gzipped_for_clients_that_accept_it(demo: GatewayServer) -> None:
    url = f"{demo.base_url}/www/openapi.json"
    plain = httpx.get(url, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    with httpx.stream("GET", url, headers={"Accept-Encoding": "gzip"}) as zipped:
        raw = b"".join(zipped.iter_raw())
        assert zipped.headers["content-encoding"] == "gzip" and "Accept-Encoding" in zipped.headers["vary"]
        assert int(zipped.headers["content-length"]) == len(raw) < len(plain.content) / 4
    assert gzip.decompress(raw) == plain.content
    small = httpx.get(f"{demo.base_url}/healthz", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in small.headers


def test_a_streamed_list_is_not_gzipped(tmp_path: Path) -> None:
    with running_server(tmp_path, users=[("shop", "a-long-secret", ["shop"])], demo_articles=2000) as server:
        auth = {"Authorization": f"Bearer {server.token('shop', 'a-long-secret')}", "Accept-Encoding": "gzip"}
        streamed = list_of_every_article(server.base_url, auth)
    assert streamed.get("transfer-encoding") == "chunked"  # more than a part (1000): sent as it is read
    assert "content-encoding" not in streamed


def list_of_every_article(base_url: str, headers: dict[str, str]) -> httpx.Headers:
    with httpx.stream("GET", f"{base_url}/www/artikel?limit=0", headers=headers, timeout=60) as answer:
        assert len(json.loads(b"".join(answer.iter_raw()))["data"]) > 1000
        return answer.headers


def test_openapi_typescript_generates_named_operations(tmp_path: Path) -> None:
    require(None if shutil.which("node") and GENERATOR.is_file() else "needs node and `npm ci --prefix tests/audits`")
    source, target = tmp_path / "openapi.json", tmp_path / "www.ts"
    source.write_bytes(encode_json(document()))
    generated = subprocess.run(
        ["node", str(GENERATOR), str(source), "-o", str(target)], capture_output=True, text=True, timeout=120
    )
    assert generated.returncode == 0, generated.stdout + generated.stderr
    types = target.read_text(encoding="utf-8")
    assert "export interface operations {" in types
    for _, _, operation in operations():
        assert f'operations["{operation["operationId"]}"]' in types, operation["operationId"]
    assert '"/www/artikel/{ArtNr}": {' in types
