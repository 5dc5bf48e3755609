"""POST /www/auftrag retried across an upgrade: an Idempotency-Key (or an AuftBestellNr) stored by the previous
release, whose request fingerprint was computed another way, is replayed when the request is the same, and is
still a conflict when it is not."""

from __future__ import annotations

import hashlib
from typing import Any

import httpx
import pytest
from sqlalchemy import update

from datasources.database import Database
from datasources.models import IdempotentRequest, SalesDocument
from datasources.sales import documents, fingerprints, orders
from tests.catalogue_data import Catalogue
from tests.factories import Factory
from tests.http import error
from tests.sales_data import build_shop, call

HAMMER = {"ArtNr": "A-100", "Menge": 1}
KEY = {"Idempotency-Key": "order-before-the-upgrade"}


@pytest.fixture
async def shop(factory: Factory) -> Catalogue:
    return await build_shop(factory)


def order(*positions: dict[str, Any], **header: Any) -> dict[str, Any]:
    return {"GrundDaten": {"KundNr": "100002", **header}, "Positionen": list(positions)}


def e6b5bad_fingerprint(data: documents.DocumentInput) -> str:
    """What the release before versioned fingerprints (e6b5bad) stored: sha256 of the validated input's repr."""
    return hashlib.sha256(repr(data).encode()).hexdigest()


async def stored_as_e6b5bad(
    client: httpx.AsyncClient, auth: dict[str, str], db: Database, payload: Any, monkeypatch: pytest.MonkeyPatch
) -> str:
    """Places the order, then stores its fingerprints (the key's and the order's) as e6b5bad had."""
    seen: list[documents.DocumentInput] = []
    real = fingerprints.fingerprint

    def watched(data: documents.DocumentInput) -> str:
        seen.append(data)
        return real(data)

    with monkeypatch.context() as patch:
        patch.setattr(orders, "fingerprint", watched)
        number: str = (await call(client, "POST", "/www/auftrag", auth, payload, status=201, headers=KEY))["data"][
            "AuftNr"
        ]
    (data,) = seen
    old = e6b5bad_fingerprint(data)
    async with db.writer() as session, session.begin():
        await session.execute(update(IdempotentRequest).values(fingerprint=old))
        await session.execute(update(SalesDocument).where(SalesDocument.number == number).values(fingerprint=old))
    return number


async def test_a_key_stored_by_the_previous_release_replays_the_same_request(
    client: httpx.AsyncClient, shop: Catalogue, auth: dict[str, str], db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = order(HAMMER, AuftBestellNr="PO-UPGRADE")
    number = await stored_as_e6b5bad(client, auth, db, first, monkeypatch)

    # The identical retry after the upgrade: the first answer again, no second order.
    assert await call(client, "POST", "/www/auftrag", auth, first, status=201, headers=KEY) == {
        "data": {"AuftNr": number}
    }
    # Without the key, its AuftBestellNr finds the order it placed.
    assert await call(client, "POST", "/www/auftrag", auth, first, status=200) == {"data": {"AuftNr": number}}
    # Another request with the key or the AuftBestellNr is still a conflict.
    other = order({"ArtNr": "A-100", "Menge": 2}, AuftBestellNr="PO-UPGRADE")
    assert await call(client, "POST", "/www/auftrag", auth, other, status=409, headers=KEY) == error(
        "conflict", "this Idempotency-Key was used for another request", AuftNr=number, field="Idempotency-Key"
    )
    assert (await call(client, "POST", "/www/auftrag", auth, other, status=409))["error"] == "conflict"
    async with db.reader() as session:
        assert len((await session.scalars(SalesDocument.__table__.select())).all()) == 1
