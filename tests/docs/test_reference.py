"""The generated reference pages (gateway.reference.pages, joined to the site by mkdocs_hooks.py) are complete:
a setting the code reads, a command argparse knows, an operation of the OpenAPI document cannot go undocumented."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

from gateway.cli.main import build_parser
from gateway.reference.cli import commands
from gateway.reference.pages import pages

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("gateway", "rest_compat", "schema", "datasources")
SETTING = re.compile(r"GATEWAY_[A-Z0-9_]+")


@cache
def _pages() -> dict[str, str]:
    return pages()


def names_read_by_the_code() -> dict[str, Path]:
    """Every `GATEWAY_*` name written as a string in the gateway's code, with a file it is in."""
    names: dict[str, Path] = {}
    for package in PACKAGES:
        for file in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and SETTING.fullmatch(node.value):
                    names.setdefault(node.value, file.relative_to(ROOT))
    return names


def test_the_scan_finds_the_settings() -> None:
    names = names_read_by_the_code()
    assert {"GATEWAY_DATABASE_URL", "GATEWAY_WEBHOOK_TIMEOUT", "GATEWAY_LOG_FORMAT"} <= set(names)


def test_every_setting_the_code_reads_is_on_the_settings_page() -> None:
    page = _pages()["reference/settings.md"]
    missing = {name: str(file) for name, file in names_read_by_the_code().items() if f"`{name}`" not in page}
    assert missing == {}, "add these to gateway/reference/settings.py (or limits.py): the settings page lacks them"


def test_every_setting_on_the_page_is_one_the_code_reads() -> None:
    page = _pages()["reference/settings.md"]
    documented = set(re.findall(r"^\| `(GATEWAY_[A-Z0-9_]+)`", page, re.M))
    assert documented - set(names_read_by_the_code()) == set()


def test_the_cli_page_has_every_command_with_its_help() -> None:
    page = _pages()["reference/cli.md"]
    found = list(commands(build_parser()))
    names = {command.name for command in found}
    assert {"gateway serve", "gateway users add", "gateway webhooks deliveries", "gateway db upgrade"} <= names
    for command in found:
        assert f"## `{command.name}`" in page
        assert f"usage: {command.name}" in page
        assert command.summary or command.name == "gateway", f"{command.name} has no help line"


def test_the_graphql_page_is_the_schema() -> None:
    page = _pages()["reference/graphql-schema.md"]
    assert "type Query {" in page and "type Mutation {" in page and "orderCreate" in page


def test_the_rest_routes_page_has_every_operation() -> None:
    from rest_compat.openapi.document import openapi_document
    from schema.execution import Executor
    from schema.schema import build_schema

    page = _pages()["reference/rest-routes.md"]
    document = openapi_document(Executor(build_schema()))
    for path, item in document["paths"].items():
        for method in item:
            if method not in ("head", "parameters", "description", "summary"):
                assert f"## `{method.upper()} {path}`" in page
