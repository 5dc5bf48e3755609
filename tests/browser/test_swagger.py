"""Swagger UI at /www/docs in Chromium against a real `gateway serve` (swagger.mjs): every file from the
gateway, every /www operation of /www/openapi.json listed, and "Try it out" with an authorized token."""

from __future__ import annotations

import json
from pathlib import Path

import httpx

from tests.browser import driver
from tests.browser.conftest import Served

pytestmark = driver.requirement()
METHODS = ("get", "head", "post", "put", "patch", "delete", "options")


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
