"""Every path answers a method it does not have with 405 and lists all the methods it has."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from tests.http import body, error

# As the README lists them; HEAD comes with every GET.
ALLOWED = {
    "/www/artikel": "GET, HEAD",
    "/www/artikel/A-000001": "GET, HEAD",
    "/www/artikelaenderungen": "GET, HEAD",
    "/www/artikelmedia/A-000001": "GET, HEAD",
    "/www/artikelmediadaten/1": "GET, HEAD",
    "/www/kunden": "POST",
    "/www/kunden/100001": "GET, HEAD",
    "/www/adressen": "GET, HEAD",
    "/www/adressen/1": "GET, HEAD, PATCH",
    "/www/adressensuche": "GET, HEAD",
    "/www/auftrag": "POST, PUT",
    "/www/auftrag/500001": "GET, HEAD",
    "/www/offerte": "GET, HEAD, POST, PATCH",
    "/www/zugferd": "POST, OPTIONS",
    "/www/log": "DELETE",
    "/www/openapi.json": "GET, HEAD",
    "/www/token": "POST",
    # The gateway's own pages and probes.
    "/": "GET, HEAD",
    "/www/docs": "GET, HEAD",
    "/healthz": "GET, HEAD",
    "/readyz": "GET, HEAD",
    "/metrics": "GET, HEAD",
}


@pytest.mark.parametrize(("path", "allow"), ALLOWED.items())
async def test_405_lists_every_method_of_the_path(
    client: httpx.AsyncClient, token_for: Callable[..., dict[str, str]], path: str, allow: str
) -> None:
    headers = token_for("admin")
    method = "DELETE" if "DELETE" not in allow else "PUT"

    response = await client.request(method, path, headers=headers)

    assert response.status_code == 405
    assert response.headers["allow"] == allow
    assert body(response) == error("method_not_allowed", f"{method} is not allowed here", allow=allow)


async def test_head_is_answered_like_get_without_a_body(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    get = await client.get("/www/artikel?limit=1", headers=auth)
    head = await client.head("/www/artikel?limit=1", headers=auth)

    assert head.status_code == get.status_code == 200
    assert head.headers["content-type"] == get.headers["content-type"]
    assert head.content == b""
