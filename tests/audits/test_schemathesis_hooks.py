"""The check that stands in for Schemathesis' not_a_server_error fails where it must; the ERP's data goes
into positive cases only."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest

from tests.audits.erp_data import with_erp_data
from tests.audits.schemathesis_hooks import no_server_error_nor_internal_code


@dataclass
class FakeResponse:
    status_code: int
    text: str
    headers: dict[str, list[str]] = field(default_factory=lambda: {"content-type": ["application/json"]})

    def json(self) -> Any:
        return json.loads(self.text)


@dataclass
class FakeCase:
    method: str
    path: str = "/www/artikel"
    query: dict[str, Any] | None = None
    body: Any = None
    positive: bool = True

    @property
    def meta(self) -> Any:
        mode = SimpleNamespace(is_positive=self.positive)
        return SimpleNamespace(generation=SimpleNamespace(mode=mode))


def errors(*codes: str | None) -> str:
    return json.dumps({"data": None, "errors": [{"message": "m", "extensions": {"code": c}} for c in codes]})


@pytest.mark.parametrize(
    "response",
    [
        FakeResponse(200, '{"data": {"article": null}}'),
        FakeResponse(200, errors("not_found", "insufficient_scope", "too_expensive")),
        FakeResponse(400, errors("invalid_request")),
        FakeResponse(204, "", {}),
        FakeResponse(200, "%PDF-1.7", {"Content-Type": ["application/pdf"]}),
    ],
)
def test_client_errors_pass(response: FakeResponse) -> None:
    assert no_server_error_nor_internal_code(None, response, None) is None


@pytest.mark.parametrize(
    "response",
    [
        FakeResponse(500, '{"success": false, "error": "internal"}'),
        FakeResponse(503, errors("unavailable")),
        FakeResponse(200, errors("not_found", "internal")),
        FakeResponse(200, errors(None)),
        FakeResponse(200, "<html>"),
    ],
)
def test_server_errors_fail(response: FakeResponse) -> None:
    with pytest.raises(AssertionError):
        no_server_error_nor_internal_code(None, response, None)


def test_a_head_answer_has_no_body_to_judge() -> None:
    head = FakeResponse(404, "")
    assert no_server_error_nor_internal_code(None, head, FakeCase("HEAD")) is None
    with pytest.raises(AssertionError):
        no_server_error_nor_internal_code(None, FakeResponse(503, ""), FakeCase("HEAD"))
    with pytest.raises(AssertionError):  # a GET's JSON answer must be JSON
        no_server_error_nor_internal_code(None, head, FakeCase("GET"))


def test_positive_cases_get_the_erp_s_data_where_a_schema_cannot_say_it() -> None:
    body = {
        "GrundDaten": {"WaehrAbk": "AED", "KundNr": "", "AuftLiefKost": 0.123456},
        "Adressen": {"KontaktAdr": {"OrtLand": " ch ", "AdrCheck": 1}, "LiefAdr": {"OrtLand": "DE"}},
        "Positionen": [{"Menge": 1e-05}, {"Menge": 9999999999.99999}, {"Menge": 2.5}],
    }
    case = FakeCase("PATCH", "/www/offerte", query={"OffertNr": "1", "KundNr": "100001"}, body=body)

    with_erp_data(None, case)

    assert case.body == {
        "GrundDaten": {"WaehrAbk": "CHF", "KundNr": "100001", "AuftLiefKost": 0.1235},
        "Adressen": {"KontaktAdr": {"OrtLand": " ch ", "AdrCheck": 0}, "LiefAdr": {"OrtLand": "DE", "AdrCheck": 0}},
        "Positionen": [{"Menge": 0.0001}, {"Menge": 9999999999.0}, {"Menge": 2.5}],
    }


def test_a_changed_place_is_not_checked_against_the_swiss_directory() -> None:
    case = FakeCase("PATCH", "/www/adressen/{AdrNr}", body={"OrtPLZ": "x", "AdrName": "Muster"})

    with_erp_data(None, case)

    assert case.body == {"OrtPLZ": "x", "AdrName": "Muster", "AdrCheck": 0}


def test_a_changed_address_keeps_a_company_or_a_last_name() -> None:
    blanked = FakeCase("PATCH", "/www/adressen/{AdrNr}", body={"AdrFirma": "", "AdrName": None})
    kept = FakeCase("PATCH", "/www/adressen/{AdrNr}", body={"AdrFirma": "ACME", "AdrName": ""})

    with_erp_data(None, blanked)
    with_erp_data(None, kept)

    assert blanked.body == {"AdrFirma": "", "AdrName": "Muster"}
    assert kept.body == {"AdrFirma": "ACME", "AdrName": ""}


def test_a_positive_address_search_searches_by_something() -> None:
    blank = FakeCase("GET", "/www/adressensuche", query={"AdrName": " "})
    given = FakeCase("GET", "/www/adressensuche", query={"AdrName": "Muster"})

    with_erp_data(None, blank)
    with_erp_data(None, given)

    assert blank.query == {"AdrName": " ", "OrtPLZ": "3011"}
    assert given.query == {"AdrName": "Muster"}


def test_negative_cases_are_sent_as_they_are() -> None:
    case = FakeCase("POST", "/www/kunden", body={"GrundDaten": {"WaehrAbk": "AED"}}, positive=False)

    with_erp_data(None, case)

    assert case.body == {"GrundDaten": {"WaehrAbk": "AED"}}
