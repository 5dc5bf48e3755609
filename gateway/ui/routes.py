"""The routes of the browser pages: `/` (links), GraphiQL's files under /graphql/static (its page is
/graphql itself, rendered by gateway/graphql_view.py), Swagger UI at /www/docs with the document it shows."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from swagger_ui_bundle import swagger_ui_path

from gateway.ui import fetch, pages
from gateway.ui.static_files import IMMUTABLE, REVALIDATE, CachedStaticFiles
from rest_compat.openapi import openapi_30_json

SCRIPTS = Path(__file__).parent / "scripts"
# The package's folder names Swagger UI's version (`swagger-ui-5.31.0`): a new one gets new URLs.
SWAGGER_UI = Path(str(swagger_ui_path))


async def home(request: Request) -> Response:
    return pages.home_page(request)


async def docs(request: Request) -> Response:
    return pages.swagger_page(request, SWAGGER_UI.name)


def routes() -> list[BaseRoute]:
    scripts = CachedStaticFiles(directory=SCRIPTS, cache_control=REVALIDATE)
    return [
        Route("/", home, methods=["GET"]),
        Route(pages.DOCS, docs, methods=["GET"]),
        Route(pages.DOCS_DOCUMENT, openapi_30_json, methods=["GET"]),
        Mount(pages.DOCS_SCRIPTS, scripts),
        Mount(
            f"{pages.DOCS}/{SWAGGER_UI.name}",
            CachedStaticFiles(directory=SWAGGER_UI, cache_control=IMMUTABLE, only=pages.SWAGGER_UI_FILES),
        ),
        Mount(pages.GRAPHIQL_SCRIPTS, scripts),
        Mount(pages.GRAPHIQL_STATIC, CachedStaticFiles(directory=fetch.STATIC, cache_control=IMMUTABLE)),
    ]
