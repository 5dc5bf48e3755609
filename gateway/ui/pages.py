"""The HTML pages of the gateway's own: GraphiQL, Swagger UI and the home page. Templates of ours
(templates/), filled with the addresses of the files they load, all served by the gateway itself."""

from __future__ import annotations

import html
import logging
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from string import Template

from starlette.requests import Request
from starlette.responses import HTMLResponse

from gateway.ui import fetch

log = logging.getLogger("gateway")

TEMPLATES = Path(__file__).parent / "templates"
GRAPHIQL_STATIC = "/graphql/static"  # the fetched npm packages, one folder per name@version
GRAPHIQL_SCRIPTS = "/graphql/static/_gateway"  # our own page script (no npm name starts with "_")
DOCS = "/www/docs"
DOCS_SCRIPTS = "/www/docs/_gateway"
# What Swagger UI shows: /www/openapi.json in OpenAPI 3.0's terms, which it renders 3x faster than 3.1
# (rest_compat/openapi/openapi30.py).
DOCS_DOCUMENT = "/www/docs/openapi-3.0.json"
# The files of Swagger UI's package that templates/swagger.html loads: the only ones served. The package
# also holds a stock page and initializer that would show the petstore's document from the internet.
SWAGGER_UI_FILES = ("swagger-ui.css", "swagger-ui-bundle.js")

# The browser itself refuses to load anything from another host, and to run any inline script. Styles
# may be inline: GraphiQL's components set them. Fonts and icons come as data: URLs inside the CSS.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "Cache-Control": "no-cache",
    "X-Content-Type-Options": "nosniff",
}


@cache
def _template(name: str) -> Template:
    return Template((TEMPLATES / name).read_text(encoding="utf-8"))


def render(name: str, values: Mapping[str, str], status_code: int = 200) -> HTMLResponse:
    body = _template(name).substitute({key: html.escape(value) for key, value in values.items()})
    return HTMLResponse(body, status_code=status_code, headers=HEADERS)


def _root(request: Request) -> str:
    # Behind a proxy that serves the gateway under a path prefix, every address starts with it.
    root_path: str = request.scope.get("root_path", "")
    return root_path.rstrip("/")


def _placeholder(package_name: str) -> str:
    """`@graphiql/plugin-explorer` -> `graphiql_plugin_explorer`, the name its folder has in a template."""
    return "".join(c if c.isalnum() else "_" for c in package_name.lstrip("@"))


def graphiql_page(request: Request) -> HTMLResponse:
    root = _root(request)
    packages = fetch.read_lock()
    if not all(fetch.installed(package, fetch.STATIC) for package in packages):
        log.error("GraphiQL's files are missing from %s: run python -m gateway.ui.fetch", fetch.STATIC)
        return render("graphiql_missing.html", {"graphql": f"{root}/graphql"}, 503)
    folders = {_placeholder(p.name): f"{root}{GRAPHIQL_STATIC}/{p.directory}" for p in packages}
    return render("graphiql.html", {"scripts": f"{root}{GRAPHIQL_SCRIPTS}", **folders})


def swagger_page(request: Request, swagger_ui_folder: str) -> HTMLResponse:
    root = _root(request)
    return render(
        "swagger.html",
        {
            "swagger_ui": f"{root}{DOCS}/{swagger_ui_folder}",
            "scripts": f"{root}{DOCS_SCRIPTS}",
            "openapi": f"{root}{DOCS_DOCUMENT}",
        },
    )


def home_page(request: Request) -> HTMLResponse:
    return render("home.html", {"root": _root(request)})
