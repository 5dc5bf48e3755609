"""Swagger UI at /www/docs in Chromium against a real `gateway serve` (swagger.mjs): every file from the
gateway, every /www operation of /www/openapi.json listed, and "Try it out" with an authorized token; on a first
visit the operations are shown within 3 s and POST /www/kunden succeeds with its example as shipped
(swagger_first_visit.mjs)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from tests.browser import driver
from tests.browser.conftest import Served

pytestmark = driver.requirement()
METHODS = ("get", "head", "post", "put", "patch", "delete", "options")
# From the navigation until the operations are shown, nothing in the browser's cache (issue 35). Measured here:
# ~1.2 s with the 3.0 rendition Swagger UI reads, 3-4 s with the 3.1 document (rest_compat/openapi/openapi30.py).
FIRST_VISIT_SECONDS = 3.0
# A slow first visit is made once more (a new browser: nothing cached either): the suite's other work can take
# the cores for seconds; a gateway that makes the visit slow makes both slow.
FIRST_VISITS = 2


def test_swagger_ui_lists_the_operations_and_tries_one_with_a_token(served: Served, tmp_path: Path) -> None:
    document = httpx.get(f"{served.base_url}/www/openapi.json", timeout=30).json()
    documented = sorted(
        [method.upper(), path] for path, item in document["paths"].items() for method in item if method in METHODS
    )

    result = driver.run_script("swagger.mjs", served.base_url, served.token, screenshot=tmp_path / "swagger.png")

    driver.assert_nothing_went_wrong(result)
    assert document["info"]["title"] in result["title"]
    assert sorted(result["operations"]) == documented
    assert len(documented) > 15
    assert result["status"] == "200"
    assert len(json.loads(result["body"])["data"]) == 2
    assert served.token not in json.dumps(result["storage"])


def test_a_first_visit_shows_the_operations_within_3_s_and_posts_a_customer_as_shipped(
    served: Served, tmp_path: Path
) -> None:
    document = httpx.get(f"{served.base_url}/www/openapi.json", timeout=30).json()
    shipped = document["paths"]["/www/kunden"]["post"]["requestBody"]["content"]["application/json"]["example"]

    visits = []
    for _ in range(FIRST_VISITS):
        result = driver.run_script(
            "swagger_first_visit.mjs", served.base_url, served.shop_token, screenshot=tmp_path / "first-visit.png"
        )
        driver.assert_nothing_went_wrong(result)
        visits.append(result)
        if result["shownMs"] < FIRST_VISIT_SECONDS * 1000:
            break
    assert result["shownMs"] < FIRST_VISIT_SECONDS * 1000, [f"what each file cost: {v['files']}" for v in visits]
    large = [file for file in result["files"] if file["size"] > 16 * 1024]  # Swagger UI's, and the document
    assert len(large) == 3
    assert all(file["transferred"] < file["size"] / 3 for file in large), large  # gzipped
    assert json.loads(result["sent"]) == shipped  # "Try it out" sent the example untouched
    assert result["status"] == "201", result["body"]
    assert set(json.loads(result["body"])["data"]) == {"DebiNr"}
