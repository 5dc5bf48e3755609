"""The generated reference pages, by their path under docs/: mkdocs_hooks.py adds them to the site at build
time, and the tests read them from here."""

from __future__ import annotations

from gateway.cli.main import build_parser
from gateway.reference.catalogue import settings_page
from gateway.reference.cli import cli_page
from gateway.reference.routes import routes_page
from gateway.reference.settings import GROUPS
from rest_compat.openapi.document import openapi_document
from schema.execution import Executor
from schema.schema import build_schema


def pages() -> dict[str, str]:
    schema = build_schema()
    return {
        "reference/settings.md": settings_page(GROUPS),
        "reference/cli.md": cli_page(build_parser()),
        "reference/graphql-schema.md": sdl_page(schema.as_str()),
        "reference/rest-routes.md": routes_page(openapi_document(Executor(schema))),
    }


def sdl_page(sdl: str) -> str:
    return (
        "# GraphQL schema\n\n"
        "<!-- Generated from the Strawberry schema (schema/) by gateway.reference.pages. -->\n\n"
        "The schema `/graphql` serves, in GraphQL's schema definition language. Each field's description names\n"
        "its ERP field. GraphiQL at `/graphql` shows the same with its explorer.\n\n"
        f"```graphql\n{sdl.rstrip()}\n```\n"
    )
