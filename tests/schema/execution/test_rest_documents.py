"""Every document the REST layer builds, run by the compiled plans and by graphql-core: identical answers.

The app's executor seam is replaced by one that runs each query it is given a second time through the
graphql-core reference schema (with a fresh context) and keeps both answers; the app's schema counts the
operations graphql-core's executor runs for it. Then each GET route is called without `fields`, with each
of its fields alone, and with nested selections, on demo data with an order and an offer, and with what
makes a route's query fail (missing records, a conflict, invalid values, a user without the scope); the
answers must be byte-identical and every route's query must have run compiled, once.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy import select
from strawberry.types import ExecutionResult

from datasources import demo
from datasources.database import Database
from datasources.models import Address, Customer, Media
from datasources.statistics import current_stats
from gateway import app as gateway_app
from gateway.settings import Settings
from rest_compat.articles import ARTICLE, SINGLE_ARTICLE
from rest_compat.customers import CUSTOMER
from rest_compat.media import MEDIA
from schema.context import Context
from schema.execution import COMPILED, GRAPHQL_CORE, Executor
from tests.http import body
from tests.schema.execution.differential import Counted, counting, reference_schema, response


@dataclass
class Checked:
    document: str
    paths: list[str]
    runs: list[str]  # the operations graphql-core's executor ran for the app's schema
    compiled: bytes
    reference: bytes | None


class DifferentialExecutor(Executor):
    """The app's seam, running every query once more through graphql-core and keeping both answers."""

    def __init__(self, schema: Any) -> None:
        super().__init__(schema)
        # The same seam on graphql-core's executor: the routes' documents are the gateway's own, not held to a
        # client's limits (their aliases alone pass a client's alias limit) on either side.
        self.reference = Executor(reference_schema())
        self.checked: list[Checked] = []

    async def execute(self, document: str, variables: Mapping[str, Any] | None, context: Context) -> ExecutionResult:
        stats = current_stats.get()
        assert stats is not None
        before = len(stats.graphql_paths)
        with Counted() as counted:
            result = await super().execute(document, variables, context)
        paths = stats.graphql_paths[before:]
        reference = None
        if paths != [GRAPHQL_CORE]:  # a query (mutations are never run twice)
            fresh = replace(context)  # new loaders: nothing cached from the compiled run
            reference = response(await self.reference.execute(document, variables, fresh))
        self.checked.append(Checked(document, paths, counted.runs, response(result), reference))
        return result


@dataclass
class Shop:
    client: httpx.AsyncClient
    executor: DifferentialExecutor
    articles: list[str]
    customer: str
    address: int
    email: str
    media: int
    order: str
    offer: str


@pytest.fixture
async def shop(
    db: Database, settings: Settings, token_for: Any, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Shop]:
    await demo.fill_demo(db.engine, articles=25, customers=8, seed=3)
    async with db.reader() as session:
        customer = (await session.scalars(select(Customer.number).order_by(Customer.number))).first()
        address_row = (await session.scalars(select(Address).where(Address.customer_number == customer))).first()
        media = (await session.scalars(select(Media.id).order_by(Media.id))).first()
    assert customer is not None and address_row is not None and address_row.email and media is not None
    address, email = address_row.id, address_row.email
    executors: list[DifferentialExecutor] = []

    def differential(schema: Any) -> DifferentialExecutor:
        executors.append(DifferentialExecutor(counting(schema)))
        return executors[-1]

    monkeypatch.setattr(gateway_app, "Executor", differential)
    app = gateway_app.create_app(settings)
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        headers = token_for("shop")
        async with httpx.AsyncClient(transport=transport, base_url="http://gateway.test", headers=headers) as client:
            listed = body(await client.get("/www/artikel?limit=6&fields=ArtNr"))["data"]
            articles = [entry["ArtNr"] for entry in listed]
            order, offer = await _sales_documents(client, customer, articles[0])
            executors[0].checked.clear()
            yield Shop(client, executors[0], articles, customer, address, email, media, order, offer)


async def _sales_documents(client: httpx.AsyncClient, customer: str, article: str) -> tuple[str, str]:
    payload = {"GrundDaten": {"KundNr": customer}, "Positionen": [{"ArtNr": article, "Menge": 2}]}
    order = await client.post("/www/auftrag", json=payload)
    offer = await client.post("/www/offerte", json=payload)
    assert order.status_code == offer.status_code == 201, (order.text, offer.text)
    return body(order)["data"]["AuftNr"], body(offer)["data"]["OffertNr"]


def _fields(names: Any) -> list[str]:
    return [name for name in names if name != "links"] + ["links"]


def _requests(shop: Shop) -> list[str]:
    article, customer = shop.articles[0], shop.customer
    paths = ["/www/artikel", "/www/artikel?limit=3&offset=2&waehrabk=EUR&adrsprache=fre&sorts=-ArtBez"]
    paths += [f"/www/artikel?limit=5&fields={name}" for name in _fields(ARTICLE.fields)]
    paths += [
        f"/www/artikel?limit=4&debinr={customer}&fields=ArtNr,Verpackungen.VPEinheit,Verpackungen.Preis,Preis",
        "/www/artikel?limit=4&fields=Bestand.LagerOrt,Verpackungen.Bestand,attributes.PHKey",
    ]
    for number in shop.articles:
        paths.append(f"/www/artikel/{number}")
        paths.append(f"/www/artikelmedia/{number}")
    paths += [f"/www/artikel/{article}?fields={name}" for name in _fields(SINGLE_ARTICLE.fields)]
    paths += [f"/www/artikelmedia/{article}?fields={name}" for name in _fields(MEDIA.fields)]
    paths += [f"/www/artikelmediadaten/{shop.media}", f"/www/artikelmediadaten/{shop.media}?typ=Text"]
    paths += [f"/www/kunden/{customer}", f"/www/kunden/{customer}?order=5&status=O"]
    paths += [f"/www/kunden/{customer}?fields={name}" for name in _fields(CUSTOMER.fields)]
    paths += [
        f"/www/adressen?debinr={customer}",
        f"/www/adressen/{shop.address}",
        f"/www/adressensuche?EmailAdress={shop.email}",
    ]
    paths += [f"/www/auftrag/{shop.order}", f"/www/offerte?OffertNr={shop.offer}"]
    paths += ["/www/artikel/NO-SUCH-ARTICLE", "/www/kunden/99999999", "/www/adressen/987654", "/www/auftrag/1"]
    return paths


CATALOGUE = ("/www/artikel", "/www/artikelmedia")  # and artikelmediadaten: their answers have versions


async def test_every_rest_query_is_compiled_and_answers_like_graphql_core(shop: Shop, tmp_path: Path) -> None:
    """Each request's operations: one, but for the whole list (its version, then the list); and asked with
    If-None-Match, the catalogue's version operations: one (304), or then the answer's (404)."""
    checked = shop.executor.checked
    operations: list[tuple[str, int]] = []
    for path in _requests(shop):
        before = len(checked)
        response = await shop.client.get(path)
        assert response.status_code in (200, 404), (path, response.text)
        operations.append((path, len(checked) - before))
        if path.startswith(CATALOGUE):
            before = len(checked)
            response = await shop.client.get(path, headers={"If-None-Match": "*"})
            assert response.status_code in (304, 404), (path, response.text)
            operations.append((f"{path} If-None-Match", len(checked) - before))
    assert [(path, count) for path, count in operations if count != 1] == [
        ("/www/artikel", 2),
        ("/www/artikel/NO-SUCH-ARTICLE If-None-Match", 2),
    ]
    versions = [run for run in checked if "Version" in run.document.split("{")[0]]
    assert len(versions) == len([path for path, _ in operations if path.endswith("If-None-Match")]) + 1
    for run in checked:
        assert (run.paths, run.runs) == ([COMPILED], []), run.document
        assert run.compiled == run.reference, run.document


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/www/artikelmediadaten/2147483000", 404),  # the resolver raises NOT_FOUND
        ("/www/adressensuche?OrtLand=CH", 409),  # more than one match: CONFLICT
        ("/www/adressensuche?EmailAdress=nobody@example.ch", 404),  # no match
        ("/www/artikel?limit=3&adrsprache=xx", 400),  # not a language
        ("/www/artikel?limit=3&debinr=999999", 404),  # no such customer
        ("/www/artikel/{article}?debinr=999999", 404),
        ("/www/artikel/{article}?adrsprache=xx&fields=ArtNr,Preis", 400),
    ],
)
async def test_a_query_whose_resolver_raises_is_answered_in_one_compiled_run(
    shop: Shop, path: str, status: int
) -> None:
    response = await shop.client.get(path.format(media=shop.media, article=shop.articles[0]))
    assert response.status_code == status, response.text
    [run] = shop.executor.checked
    assert (run.paths, run.runs) == ([COMPILED], [])
    assert run.compiled == run.reference
    assert b'"errors"' in run.compiled


@pytest.mark.parametrize(
    "path",
    [
        "/www/kunden/{customer}",  # the shop scope
        "/www/adressen/{address}",
        "/www/auftrag/{order}",
        "/www/artikel?limit=2&debinr={customer}",  # an argument that needs the shop scope
    ],
)
async def test_a_user_without_the_scope_is_answered_in_one_compiled_run(shop: Shop, token_for: Any, path: str) -> None:
    url = path.format(customer=shop.customer, address=shop.address, order=shop.order)
    response = await shop.client.get(url, headers=token_for("catalogue"))
    assert response.status_code == 403, response.text
    [run] = shop.executor.checked
    assert (run.paths, run.runs) == ([COMPILED], [])
    assert b"insufficient_scope" in run.compiled
