"""POST and OPTIONS /www/zugferd through the real app: the file itself, or the endpoint error."""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from pypdf import PdfReader

from tests.http import body

SAMPLES = Path(__file__).parent.parent / "fixtures" / "einvoice"


def b64(path: Path) -> str:
    return base64.b64encode(path.read_bytes()).decode()


async def post(client: httpx.AsyncClient, auth: dict[str, str], payload: Any) -> httpx.Response:
    return await client.post("/www/zugferd", json=payload, headers=auth)


async def test_combine_returns_the_pdf_and_extract_returns_the_xml(
    client: httpx.AsyncClient, auth: dict[str, str]
) -> None:
    xml = SAMPLES / "combine" / "cii-2p1-en16931-einfach.xml"
    combined = await post(
        client,
        auth,
        {"Operation": "Combine", "PDF": b64(SAMPLES / "combine" / "empty-pdf16.pdf"), "XML": b64(xml)},
    )
    assert combined.status_code == 200
    assert combined.headers["content-type"] == "application/pdf"
    assert combined.content.startswith(b"%PDF-")
    assert "factur-x.xml" in (PdfReader(io.BytesIO(combined.content)).attachments)

    extracted = await post(client, auth, {"Operation": "Extract", "PDF": base64.b64encode(combined.content).decode()})
    assert extracted.status_code == 200
    assert extracted.headers["content-type"] == "application/xml"
    assert extracted.headers["content-disposition"] == "attachment; filename*=UTF-8''factur-x.xml"
    assert extracted.content == xml.read_bytes()


@pytest.mark.parametrize(
    ("payload", "description"),
    [
        ({"Operation": "Extract", "PDF": "%%%"}, "PDF is not valid base64"),
        ({"Operation": "Combine", "PDF": "JVBERi0="}, "XML"),
        ({"Operation": "Explode", "PDF": "JVBERi0="}, "Operation"),
        ({"Operation": "Extract"}, "PDF"),
    ],
)
async def test_failures_have_the_endpoint_error_body(
    client: httpx.AsyncClient, auth: dict[str, str], payload: Any, description: str
) -> None:
    response = await post(client, auth, payload)
    assert response.status_code == 400
    data = body(response)
    assert (data["success"], data["error"]) == (False, "endpoint")
    assert description in data["error_description"]
    assert set(data["info"]) == {"filename", "subprocess_output"}
    assert "/" not in data["info"]["filename"]
    assert data["info"]["subprocess_output"]


async def test_a_truncated_pdf_is_an_endpoint_error(client: httpx.AsyncClient, auth: dict[str, str]) -> None:
    response = await post(
        client, auth, {"Operation": "Extract", "PDF": b64(SAMPLES / "extract" / "truncated-15-bytes.pdf")}
    )
    assert response.status_code == 400
    assert body(response)["error"] == "endpoint"


@pytest.mark.parametrize(
    ("content", "headers"),
    [
        (b"{", {"Content-Type": "application/json"}),
        (b'{"Operation": 1}', {"Content-Type": "application/json"}),
        (b"PDF=x", {"Content-Type": "text/plain"}),
    ],
)
async def test_a_body_the_toolkit_never_sees_still_answers_with_the_endpoint_error(
    client: httpx.AsyncClient, auth: dict[str, str], content: bytes, headers: dict[str, str]
) -> None:
    response = await client.post("/www/zugferd", content=content, headers=auth | headers)
    assert response.status_code == 400
    data = body(response)
    assert data["error"] == "endpoint"
    assert data["info"]["filename"] == ""


async def test_options_lists_the_methods_without_a_token(client: httpx.AsyncClient) -> None:
    response = await client.options("/www/zugferd")
    assert response.status_code == 204
    assert response.headers["allow"] == "POST, OPTIONS"


async def test_debug_keeps_the_work_files_of_an_admin_token_only(
    client: httpx.AsyncClient, auth: dict[str, str], token_for: Callable[..., dict[str, str]], tmp_path: Path
) -> None:
    pdf = b64(SAMPLES / "extract" / "facturx-minimum.pdf")
    shop = await post(client, auth, {"Operation": "Extract", "PDF": pdf, "Debug": True})
    assert shop.status_code == 200
    assert not (tmp_path / "work").exists()

    admin = await post(client, token_for("admin", name="operator"), {"Operation": "Extract", "PDF": pdf, "Debug": True})
    assert admin.status_code == 200
    kept = sorted(path.name for path in (tmp_path / "work").iterdir())
    assert any(name.endswith("-input.pdf") for name in kept)
    assert any(name.endswith("-output.xml") for name in kept)
