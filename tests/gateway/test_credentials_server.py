"""Credentials against a real `gateway serve`: tokens issued and requests counted per user, the metrics
scope that reads /metrics only, media answers a browser cannot turn into pages of the gateway, and Debug's
work files kept for admin tokens only, within their bytes."""

from __future__ import annotations

import base64
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.server import GatewayServer, running_server

SECRET = "a-long-test-secret"
TOKENS_PER_USER = 3
REQUESTS_PER_USER = 60
SAMPLES = Path(__file__).parent.parent / "fixtures" / "einvoice"
INVOICE_PDF = SAMPLES / "extract" / "facturx-minimum.pdf"
# Room for two Extract calls' work files (the input PDF, the XML, the log), not three.
MAX_WORK_BYTES = int(INVOICE_PDF.stat().st_size * 2.5)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayServer]:
    directory = tmp_path_factory.mktemp("credentials")
    env = {
        "GATEWAY_RATE_TOKENS_PER_USER": f"{TOKENS_PER_USER}/minute",
        "GATEWAY_RATE_REQUESTS_PER_USER": f"{REQUESTS_PER_USER}/minute",
        "GATEWAY_WORK_DIR": str(directory / "work"),
        "GATEWAY_WORK_DIR_MAX_BYTES": str(MAX_WORK_BYTES),
    }
    users = [
        ("prometheus", SECRET, ["metrics"]),
        ("operator", SECRET, ["admin"]),
        ("shop", SECRET, ["shop"]),
        ("minter", SECRET, ["shop"]),
    ]
    with running_server(directory, users=users, extra_env=env, demo_articles=3) as started:
        yield started


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def work_files(server: GatewayServer) -> list[Path]:
    directory = server.directory / "work"
    return sorted(directory.iterdir()) if directory.exists() else []


def test_tokens_are_limited_per_user_and_their_requests_share_one_budget(server: GatewayServer) -> None:
    url = f"{server.base_url}/www/token"
    issued = [httpx.post(url, auth=("minter", SECRET), timeout=30) for _ in range(TOKENS_PER_USER + 1)]

    assert [answer.status_code for answer in issued] == [200] * TOKENS_PER_USER + [429]
    assert issued[-1].json()["error_description"].startswith("Too many tokens issued to this user.")
    tokens = [answer.json()["access_token"] for answer in issued[:-1]]
    with httpx.Client(base_url=server.base_url, timeout=30) as http:
        answered: Counter[tuple[int, int]] = Counter()
        refusal: dict[str, object] = {}
        for number in range(REQUESTS_PER_USER + 10):  # taking turns with the three tokens
            index = number % len(tokens)
            answer = http.get("/www/artikel?limit=1&fields=ArtNr", headers=bearer(tokens[index]))
            answered[index, answer.status_code] += 1
            if answer.status_code == 429:
                refusal = answer.json()
    # One budget for all three: a minute's requests, however many tokens carried them. A window that turns
    # during the run may let a few more through (the sliding window weighs the last one), never 3 x 60.
    passed = sum(count for (_, status), count in answered.items() if status == 200)
    assert REQUESTS_PER_USER <= passed <= REQUESTS_PER_USER + 3, answered
    assert all(answered[index, 429] for index in range(len(tokens))), answered
    assert str(refusal["error_description"]).startswith("Too many requests by this user.")


def test_a_metrics_token_reads_metrics_and_nothing_else(server: GatewayServer) -> None:
    # As Prometheus's oauth2 client fetches it: Basic credentials and a client-credentials form body.
    issued = httpx.post(
        f"{server.base_url}/www/token",
        auth=("prometheus", SECRET),
        data={"grant_type": "client_credentials"},
        timeout=30,
    )
    assert issued.status_code == 200, issued.text
    token = bearer(issued.json()["access_token"])
    with httpx.Client(base_url=server.base_url, timeout=30) as http:
        scraped = http.get("/metrics", headers=token)
        refused = [
            http.get("/www/artikel?limit=1", headers=token),
            http.post("/graphql", json={"query": "{ __typename }"}, headers=token),
            http.post("/graphql", json={"query": "{ webhookEndpoints { url } }"}, headers=token),
            http.delete("/www/log", headers=token),
        ]
        shop_scrape = http.get("/metrics", headers=bearer(server.token("shop", SECRET)))
        admin_scrape = http.get("/metrics", headers=bearer(server.token("operator", SECRET)))

    assert scraped.status_code == 200, scraped.text
    assert "gateway_http_requests_total" in scraped.text
    assert [answer.status_code for answer in refused] == [403] * len(refused)
    assert {answer.json()["error"] for answer in refused} == {"insufficient_scope"}
    assert (server.directory / "logs" / "access.log").exists()  # DELETE /www/log did not run
    assert shop_scrape.status_code == 403
    assert shop_scrape.json()["error_description"] == "the metrics scope is required"
    assert admin_scrape.status_code == 200


def test_media_are_answered_as_their_declared_type_and_html_runs_sandboxed(server: GatewayServer) -> None:
    token = bearer(server.token("shop", SECRET))
    with httpx.Client(base_url=server.base_url, timeout=30) as http:
        number = http.get("/www/artikel?limit=1&fields=ArtNr", headers=token).json()["data"][0]["ArtNr"]
        records = http.get(f"/www/artikelmedia/{number}", headers=token).json()["data"]
        answers = {
            record["AMDDateiName"]: http.get(f"/www/artikelmediadaten/{record['IDKey']}", headers=token)
            for record in records
        }

    types = {name: answer.headers["content-type"] for name, answer in answers.items()}
    assert sorted(types.values()) == ["image/jpeg", "image/png", "text/html; charset=utf-8"], types
    for name, answer in answers.items():
        assert answer.status_code == 200
        assert answer.headers["x-content-type-options"] == "nosniff", name
        html = answer.headers["content-type"].startswith("text/html")
        assert answer.headers.get("content-security-policy") == ("sandbox" if html else None), name


def test_debug_keeps_the_work_files_of_an_admin_tokens_successful_calls_within_their_bytes(
    server: GatewayServer,
) -> None:
    invoice = base64.b64encode(INVOICE_PDF.read_bytes()).decode()
    no_invoice = base64.b64encode((SAMPLES / "combine" / "empty-pdf16.pdf").read_bytes()).decode()
    shop, admin = bearer(server.token("shop", SECRET)), bearer(server.token("operator", SECRET))

    def extract(headers: dict[str, str], pdf: str) -> httpx.Response:
        body = {"Operation": "Extract", "PDF": pdf, "Debug": True}
        return httpx.post(f"{server.base_url}/www/zugferd", json=body, headers=headers, timeout=60)

    assert extract(shop, invoice).status_code == 200
    assert work_files(server) == []  # a shop's Debug keeps nothing
    failed = extract(admin, no_invoice)
    assert failed.status_code == 400
    assert failed.json()["info"]["subprocess_output"][-1] == "Debug: a failed call keeps no work files"
    assert work_files(server) == []

    calls = []
    for _ in range(4):
        answer = extract(admin, invoice)
        assert answer.status_code == 200
        calls.append({path.name for path in work_files(server)})
    kept = work_files(server)
    assert sum(path.stat().st_size for path in kept) <= MAX_WORK_BYTES
    newest = calls[-1] - calls[-2]
    assert newest and newest <= {path.name for path in kept}  # the newest call's files are all there
    assert not calls[0] & {path.name for path in kept}  # the oldest call's are gone
