"""CORS in Chromium (cors.mjs): a page from another origin calls /graphql with a bearer token. The gateway
started with that origin in GATEWAY_CORS_ORIGINS lets it read the data, and a refused token too; a page
from an origin not listed, or any page against a gateway without the setting, gets only
`TypeError: Failed to fetch`."""

from __future__ import annotations

import json
from pathlib import Path

from tests.browser import driver
from tests.browser.conftest import SECRET, USER, Served
from tests.server import running_server

pytestmark = driver.requirement()
FAILED = "TypeError: Failed to fetch"


def test_only_a_listed_origin_reads_the_gateway(served: Served, tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("<!doctype html><title>a web shop</title>\n", encoding="utf-8")
    with (
        driver.static_site(site) as listed,
        driver.static_site(site) as unlisted,
        running_server(
            tmp_path / "gateway",
            users=[(USER, SECRET, ["catalogue"])],
            extra_env={"GATEWAY_CORS_ORIGINS": f"https://shop.example,{listed}"},
        ) as cors,
    ):
        token = cors.token(USER, SECRET)
        cases = [
            {"page": listed, "url": f"{cors.base_url}/graphql", "token": token},
            {"page": listed, "url": f"{cors.base_url}/graphql", "token": None},
            {"page": unlisted, "url": f"{cors.base_url}/graphql", "token": token},
            {"page": listed, "url": f"{served.base_url}/graphql", "token": served.token},
        ]
        result = driver.run_script("cors.mjs", json.dumps(cases), screenshot=tmp_path / "cors.png")

    driver.assert_nothing_went_wrong(result)
    allowed, without_token, unlisted_page, without_cors = result["answers"]
    assert allowed["status"] == 200
    assert allowed["body"]["data"]["articles"]["totalCount"] > 0
    assert allowed["requestId"]  # exposed, so a page can quote it
    assert without_token["status"] == 401
    assert without_token["body"]["error"] == "invalid_token"
    assert without_token["challenge"].startswith("Bearer")
    assert unlisted_page == {"rejected": FAILED}
    assert without_cors == {"rejected": FAILED}
