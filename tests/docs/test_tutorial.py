"""The tutorial's examples (docs/tutorial/first-order.md) run as shown, against a real `gateway serve`.

Every code block of the page with a title is a complete program a reader copies; each is run with only its
base URL changed to the test server's, and must place an order the server then has."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.required_tools import require
from tests.server import GatewayServer, running_server

PAGE = Path(__file__).resolve().parents[2] / "docs" / "tutorial" / "first-order.md"
SHOWN_URL = "http://127.0.0.1:8000"
# The language of a block -> the program that runs its file.
PROGRAMS = {"sh": "bash", "php": "php", "js": "node", "python": sys.executable}
BLOCK = re.compile(
    r'^(?P<indent> *)```(?P<language>\w+) title="(?P<title>[^"]+)"\n(?P<code>.*?)^(?P=indent)```$', re.M | re.S
)


@dataclass(frozen=True)
class Example:
    language: str
    title: str
    code: str


def examples() -> list[Example]:
    return [
        Example(match["language"], match["title"], textwrap.dedent(match["code"]))
        for match in BLOCK.finditer(PAGE.read_text(encoding="utf-8"))
    ]


def test_the_tutorial_shows_each_language_once() -> None:
    assert sorted(example.language for example in examples()) == sorted(PROGRAMS)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GatewayServer]:
    with running_server(tmp_path_factory.mktemp("tutorial"), users=[("shop", "a-long-secret", ["shop"])]) as server:
        yield server


@pytest.mark.parametrize("example", examples(), ids=lambda example: example.title)
def test_the_example_places_an_order(server: GatewayServer, example: Example, tmp_path: Path) -> None:
    program = PROGRAMS[example.language]
    require(None if shutil.which(program) else f"{program} is not on PATH")
    assert SHOWN_URL in example.code
    script = tmp_path / example.title
    script.write_text(example.code.replace(SHOWN_URL, server.base_url), encoding="utf-8")
    completed = subprocess.run([program, str(script)], capture_output=True, text=True, timeout=60, check=False)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    lines = completed.stdout.strip().splitlines()
    assert len(lines) >= 2 and "A-0" in lines[0], completed.stdout  # the articles, then the order
    placed = re.fullmatch(r"order (\d{6}) for customer (\d{6})", lines[-1])
    assert placed, completed.stdout
    order, customer = placed.groups()
    token = server.token("shop", "a-long-secret")
    answer = httpx.get(f"{server.base_url}/www/auftrag/{order}", headers={"Authorization": f"Bearer {token}"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["data"]["GrundDaten"]["KundNr"] == customer
    assert [position["ArtNr"] for position in answer.json()["data"]["Positionen"]] == ["A-000001"]


def test_the_readme_example_runs_as_shown(tmp_path: Path) -> None:
    """The README's first request, from creating the user to the order, in the server's directory."""
    readme = (PAGE.parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## A first request\n", 1)[1]
    code = re.search(r"^```sh\n(.*?)^```$", section, re.M | re.S)
    assert code is not None
    with running_server(tmp_path / "readme") as server:
        completed = subprocess.run(
            ["bash", "-e", "-c", code[1].replace(SHOWN_URL, server.base_url)],
            capture_output=True,
            text=True,
            cwd=server.directory,
            env=server.env,
            timeout=60,
            check=False,
        )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    page, order = completed.stdout.splitlines()[-2:]
    assert page.startswith('{"data":[{"ArtNr":'), completed.stdout
    assert re.fullmatch(r'\{"data":\{"AuftNr":"\d{6}"\}\}', order), completed.stdout
