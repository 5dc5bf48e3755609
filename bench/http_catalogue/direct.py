"""The direct app of `python -m bench http`: `GET /www/artikel` and `GET /www/artikel/{ArtNr}` answered with
hand-written SQL (bench/http_catalogue/direct_db.py) and orjson, byte for byte what the gateway answers, on the
same database.

It checks no token: a request without an Authorization header gets the gateway's 401 body (the floor row),
any header is let through. It serves the parameters the benchmark's rows use, limit, offset and fields
(top-level names); adrsprache, waehrabk, debinr and sorts (other views and orders) are answered 400 rather
than answered differently. Links start with BENCH_DIRECT_PUBLIC_URL, as the gateway's with GATEWAY_PUBLIC_URL.

bench/http_catalogue/main.py serves it with uvicorn as `gateway serve` is served (uvloop, httptools, the same workers),
access log off:

    BENCH_DIRECT_DRIVER=sqlite3|aiosqlite|asyncpg BENCH_DIRECT_DATABASE=<SQLite file | postgresql:// DSN>
    BENCH_DIRECT_PUBLIC_URL=http://... python -m uvicorn bench.http_catalogue.direct:create_app --factory ...
"""

from __future__ import annotations

import codecs
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlencode

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bench.http_catalogue.direct_body import ARTICLE, SINGLE, article, link, load
from bench.http_catalogue.direct_db import Connection, Row, Store

NOT_DONE = ("adrsprache", "waehrabk", "debinr", "sorts")  # parameters the gateway honours and this app does not


def _escape(error: UnicodeError) -> tuple[str, int]:
    """Every character above U+007F as a JSON \\u escape (beyond the BMP a surrogate pair), lower-case hex."""
    assert isinstance(error, UnicodeEncodeError)
    out = []
    for char in error.object[error.start : error.end]:
        code = ord(char)
        if code > 0xFFFF:
            code -= 0x10000
            out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            out.append(f"\\u{code:04x}")
    return "".join(out), error.end


codecs.register_error("bench_json_ascii", _escape)


def answer(body: Any, status: int = 200, statements: int = 0) -> Response:
    raw = orjson.dumps(body)
    if not raw.isascii():
        raw = raw.decode("utf-8").encode("ascii", errors="bench_json_ascii")
    headers = {"Cache-Control": "no-store", "Server-Timing": f'db;desc="{statements} queries"'}
    return Response(raw, status, headers, media_type="application/json; charset=iso-8859-1")


class Refused(Exception):
    """A request this app does not answer as the gateway would: 400, said so."""


# --- the routes -------------------------------------------------------------------------------------------


def _parameters(request: Request) -> dict[str, str]:
    """Names matched case-insensitively, values stripped, the last of a name winning, as the gateway reads them."""
    params = {name.lower(): value.strip() for name, value in request.query_params.multi_items()}
    for name in NOT_DONE:
        if params.get(name):
            raise Refused(f"the direct app does not do {name}")
    return params


def _wanted(params: dict[str, str], every: tuple[str, ...]) -> tuple[str, ...]:
    names = [part.strip() for part in params.get("fields", "").split(",") if part.strip()]
    if not names:
        return every
    if unknown := set(names) - set(every):
        raise Refused(f"the direct app does not do the fields {sorted(unknown)}")
    return tuple(name for name in every if name in names)  # the specification's order, as the gateway's


async def _view(db: Connection) -> tuple[str, int | None]:
    currency, price_list = (await db.fetch("view"))[0]
    return currency or "CHF", price_list


async def article_list(request: Request) -> Response:
    if "authorization" not in request.headers:
        return answer(_error("invalid_token", "A bearer token is required."), 401)
    params = _parameters(request)
    limit, offset = int(params.get("limit") or 0), int(params.get("offset") or 0)
    wanted = _wanted(params, ARTICLE)
    store: Store = request.app.state.store
    async with store.connection() as db:
        currency, price_list = await _view(db)
        # One row more than the page: whether another page follows, without counting.
        rows = await db.fetch("page", (limit + 1 if limit else db.values.no_limit, offset))
        more = bool(limit) and len(rows) > limit
        rows = rows[:limit] if limit else rows
        parts = await load(db, [row[0] for row in rows], wanted, currency, price_list)
    base = request.app.state.base
    data = [article(row, parts, base, wanted, single=False) for row in rows]
    return answer({"data": data, "links": _page_links(request, base, limit, offset, more)}, 200, db.statements)


def _page_links(request: Request, base: str, limit: int, offset: int, more: bool) -> list[dict[str, str]]:
    """The request's own parameters in their order, offset last (rest_compat/articles.py's _page_links)."""
    kept = [(name, value) for name, value in request.query_params.multi_items() if name.lower() != "offset"]

    def at(new_offset: int) -> str:
        return f"{base}{request.url.path}?{urlencode([*kept, ('offset', str(new_offset))])}"

    links = []
    if limit and more:
        links.append(link(at(offset + limit), "next"))
    if offset > 0:
        links.append(link(at(max(offset - limit, 0) if limit else 0), "prev"))
    links.append(link(at(0), "start"))
    return links


async def article_detail(request: Request) -> Response:
    if "authorization" not in request.headers:
        return answer(_error("invalid_token", "A bearer token is required."), 401)
    wanted = _wanted(_parameters(request), SINGLE)
    number = request.path_params["ArtNr"]
    store: Store = request.app.state.store
    async with store.connection() as db:
        currency, price_list = await _view(db)
        rows: list[Row] = await db.fetch("article", (number,))
        parts = await load(db, [row[0] for row in rows], wanted, currency, price_list)
    if not rows:
        return answer(_error("not_found", "no such article", ArtNr=number), 404)
    return answer({"data": article(rows[0], parts, request.app.state.base, wanted, single=True)}, 200, db.statements)


async def _refused(request: Request, error: Exception) -> Response:
    return answer(_error("invalid_request", str(error)), 400)


def _error(code: str, description: str, **info: str) -> dict[str, Any]:
    """The gateway's error body (rest_compat/errors.py)."""
    return {"success": False, "error": code, "error_description": description, "info": info}


def create_app() -> Starlette:
    store = Store(
        os.environ["BENCH_DIRECT_DRIVER"],
        os.environ["BENCH_DIRECT_DATABASE"],
        int(os.environ.get("BENCH_DIRECT_POOL", "8")),
    )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await store.open()
        try:
            yield
        finally:
            await store.close()

    app = Starlette(
        routes=[Route("/www/artikel", article_list), Route("/www/artikel/{ArtNr}", article_detail)],
        exception_handlers={Refused: _refused},
        lifespan=lifespan,
    )
    app.state.store = store
    app.state.base = os.environ["BENCH_DIRECT_PUBLIC_URL"].rstrip("/")
    return app
