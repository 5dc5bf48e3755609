"""A body that is not UTF-8, as a client sends it over a real connection: ISO-8859-1 text under
`application/json` without a charset. The 400 names the first byte that is not UTF-8 and the charset that
would have been accepted, instead of the parser's "str is not valid UTF-8: surrogates not allowed"."""

from __future__ import annotations

import json

import httpx

from tests.clients.conftest import Shop
from tests.rest_compat.test_customers import NEW_CUSTOMER as CUSTOMER


def test_a_latin1_body_without_a_charset_names_the_byte_and_the_accepted_charset(shop: Shop) -> None:
    content = json.dumps(CUSTOMER, ensure_ascii=False).encode("iso-8859-1")
    offset = content.index("é".encode("iso-8859-1"))
    headers = {"Authorization": f"Bearer {shop.token()}", "Content-Type": "application/json"}
    response = httpx.post(f"{shop.base_url}/www/kunden", content=content, headers=headers, timeout=30)
    assert response.status_code == 400
    assert response.json() == {
        "success": False,
        "error": "invalid_request",
        "error_description": f"the body is not UTF-8: byte {offset} (0xE9) is not valid there; send UTF-8, or "
        "ISO-8859-1 declared as such: Content-Type: application/json; charset=iso-8859-1",
        "info": {},
    }
    # Declared, the same bytes are taken.
    latin1 = headers | {"Content-Type": "application/json; charset=iso-8859-1"}
    assert httpx.post(f"{shop.base_url}/www/kunden", content=content, headers=latin1, timeout=30).status_code == 201


def test_a_latin1_graphql_body_names_the_byte(shop: Shop) -> None:
    content = '{"query": "{ articles(search: \\"Sägen\\") { total } }"}'.encode("iso-8859-1")
    headers = {"Authorization": f"Bearer {shop.token()}", "Content-Type": "application/json"}
    response = httpx.post(f"{shop.base_url}/graphql", content=content, headers=headers, timeout=30)
    assert response.status_code == 400
    description = response.json()["error_description"]
    offset = content.index("ä".encode("iso-8859-1"))
    assert description == f"the body is not UTF-8: byte {offset} (0xE4) is not valid there; GraphQL requests are UTF-8"
