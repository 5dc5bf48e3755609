"""The parameters /www/openapi.json lists are the ones the routes read, with the routes' own bounds.

The routes declare their parameters where they read them (QueryParams, path_number); the document
declares them again (rest_compat/openapi/operations.py). Here every operation is driven through the app
while QueryParams and the path parameters record every read: the document must list exactly the names each
route reads, and state every bound the route enforces (a text's maximum length, a number's range, a list's
number of names, the sort keys). A bound the document adds to a text the route only looks up (ArtNr,
debinr) is the column's length: a longer value matches nothing, which schemathesis' negative cases check.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response

import rest_compat
from rest_compat import params
from rest_compat.openapi.parts import WHOLE_NUMBER
from rest_compat.params import MAX_INT, QueryParams
from rest_compat.routes import RESOURCES

# Values for the parameters a route cannot do without (it answers 400 before it reads the others).
REQUIRED = {"OffertNr": "1", "debinr": "100001"}


@dataclass
class Read:
    kind: str  # text, integer, names, sorts (query); path, whole number (path)
    bounds: dict[str, Any] = field(default_factory=dict)


@dataclass
class Recorder:
    """The parameters each operation read, by (method, path template)."""

    reads: dict[tuple[str, str], dict[str, Read]] = field(default_factory=dict)
    current: dict[str, Read] | None = None
    depth: int = 0  # reads inside a read (names reads text) are the outer one's

    def record(self, name: str, read: Read) -> None:
        if self.current is not None and self.depth == 1:
            self.current.setdefault(name, read)


class RecordingPathParams(dict[str, Any]):
    def __init__(self, values: Mapping[str, Any], recorder: Recorder) -> None:
        super().__init__(values)
        self.recorder = recorder

    def __getitem__(self, name: str) -> Any:
        self.recorder.depth += 1
        try:
            self.recorder.record(name, Read("path"))
        finally:
            self.recorder.depth -= 1
        return super().__getitem__(name)


def _wrap(
    recorder: Recorder, read: Callable[..., Any], describe: Callable[..., tuple[str, Read]]
) -> Callable[..., Any]:
    def recording(*args: Any, **kwargs: Any) -> Any:
        recorder.depth += 1
        try:
            name, read_as = describe(*args, **kwargs)
            recorder.record(name, read_as)
            return read(*args, **kwargs)
        finally:
            recorder.depth -= 1

    return recording


def _text(self: QueryParams, name: str, *, max_length: int | None = None) -> tuple[str, Read]:
    return name, Read("text", {"maxLength": max_length})


def _integer(
    self: QueryParams, name: str, *, default: int, minimum: int = 0, maximum: int = MAX_INT
) -> tuple[str, Read]:
    return name, Read("integer", {"minimum": minimum, "maximum": maximum})


def _names(self: QueryParams, name: str, limit: int | None = None) -> tuple[str, Read]:
    return name, Read("names", {"limit": self.limits.field_names if limit is None else limit})


def _sorts(self: QueryParams, name: str, known: Mapping[str, str]) -> tuple[str, Read]:
    return name, Read("sorts", {"known": set(known), "limit": self.limits.sort_keys})


def _path_number(request: Request, name: str, field: str) -> tuple[str, Read]:
    return name, Read("whole number")


@pytest.fixture
def recorder(monkeypatch: pytest.MonkeyPatch) -> Iterator[Recorder]:
    recorder = Recorder()
    for method, describe in (("text", _text), ("integer", _integer), ("names", _names), ("sorts", _sorts)):
        monkeypatch.setattr(QueryParams, method, _wrap(recorder, getattr(QueryParams, method), describe))
    # path_number by every module that imported it.
    recording_path_number = _wrap(recorder, params.path_number, _path_number)
    for module in _rest_modules():
        if getattr(module, "path_number", None) is params.path_number:
            monkeypatch.setattr(module, "path_number", recording_path_number)
    path_params: property = HTTPConnection.__dict__["path_params"]
    monkeypatch.setattr(
        Request, "path_params", property(lambda request: RecordingPathParams(path_params.__get__(request), recorder))
    )
    yield recorder


def _rest_modules() -> list[Any]:
    import importlib
    import pkgutil

    return [importlib.import_module(f"rest_compat.{info.name}") for info in pkgutil.iter_modules(rest_compat.__path__)]


async def _drive(client: httpx.AsyncClient, headers: dict[str, str], document: dict[str, Any], rec: Recorder) -> None:
    for template, item in document["paths"].items():
        for method, operation in item.items():
            if method in ("description", "head") or template == "/www/token":
                continue  # HEAD runs GET's route; the token endpoint reads Basic credentials, no parameter
            query = {
                parameter["name"]: REQUIRED[parameter["name"]]
                for parameter in operation.get("parameters", [])
                if parameter["in"] == "query" and parameter["required"]
            }
            rec.current = rec.reads.setdefault((method.upper(), template), {})
            path = re.sub(r"\{\w+\}", "1", template)
            response = await client.request(method.upper(), path, params=query, headers=headers, json={})
            rec.current = None
            assert response.status_code < 500, (method, template, response.text)


async def test_the_document_lists_exactly_the_parameters_each_route_reads_with_its_bounds(
    client: httpx.AsyncClient, token_for: Callable[..., dict[str, str]], recorder: Recorder
) -> None:
    document = (await client.get("/www/openapi.json")).json()
    await _drive(client, token_for("shop", "admin"), document, recorder)

    assert len(recorder.reads) >= 19
    for (method, template), reads in recorder.reads.items():
        listed = {
            parameter["name"]: parameter
            for parameter in document["paths"][template][method.lower()].get("parameters", [])
            if parameter["in"] in ("query", "path")
        }
        assert listed.keys() == reads.keys(), (method, template)
        for name, read in reads.items():
            schema = listed[name]["schema"]
            assert listed[name]["in"] == ("path" if read.kind in ("path", "whole number") else "query"), name
            _same_bounds(read, schema, f"{method} {template} {name}")


def _same_bounds(read: Read, schema: dict[str, Any], where: str) -> None:
    if read.kind == "whole number":
        assert schema == WHOLE_NUMBER, where
    elif read.kind in ("path", "text"):
        assert schema["type"] == "string", where
        if read.bounds.get("maxLength") is not None:
            assert schema.get("maxLength") == read.bounds["maxLength"], where
    elif read.kind == "integer":
        number = next(option for option in schema["anyOf"] if option["type"] == "integer")
        assert (number["minimum"], number["maximum"]) == (read.bounds["minimum"], read.bounds["maximum"]), where
    elif read.kind == "names":
        assert schema["type"] == "array" and schema["maxItems"] == read.bounds["limit"], where
    else:  # sort keys: each name, with or without a sign
        assert schema["type"] == "array" and schema["maxItems"] == read.bounds["limit"], where
        assert {name.lstrip("+-") for name in schema["items"]["enum"]} == read.bounds["known"], where


async def test_a_parameter_a_route_starts_to_read_is_seen(
    client: httpx.AsyncClient,
    token_for: Callable[..., dict[str, str]],
    recorder: Recorder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A route that reads a parameter more than the document lists is caught by the test above."""
    handlers = RESOURCES["/www/artikelmedia/{ArtNr}"]
    media_list = handlers["GET"]

    async def media_list_in_a_language(request: Request) -> Response:
        QueryParams(request).text("adrsprache", max_length=3)
        return await media_list(request)

    monkeypatch.setitem(handlers, "GET", media_list_in_a_language)
    document = (await client.get("/www/openapi.json")).json()
    await _drive(client, token_for("shop"), document, recorder)

    reads = recorder.reads[("GET", "/www/artikelmedia/{ArtNr}")]
    listed = document["paths"]["/www/artikelmedia/{ArtNr}"]["get"]["parameters"]
    assert set(reads) - {parameter["name"] for parameter in listed} == {"adrsprache"}
