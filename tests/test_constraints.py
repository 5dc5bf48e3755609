"""constraints.txt pins what CI installs (.ci/run): every requirement of pyproject.toml, the test extra's
included, must be pinned there to one version its range admits. A requirement added to pyproject.toml
without regenerating the file would otherwise be installed at whatever version is newest that day. The
build backend (`build-system.requires`) is pinned the same way in build-constraints.txt."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
REGENERATE = "regenerate constraints.txt with pip-compile (the command is in its header)"


@cache
def _pins(file: str) -> dict[NormalizedName, Version]:
    pins: dict[NormalizedName, Version] = {}
    for line in (ROOT / file).read_text(encoding="utf-8").splitlines():
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        name, separator, version = text.partition("==")
        assert separator and name.strip(), f"{file} pins exact versions, not {text!r}"
        pins[canonicalize_name(name.strip())] = Version(version.strip())
    return pins


def _pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _requirements() -> list[Requirement]:
    project = _pyproject()["project"]
    extras = project["optional-dependencies"]
    return [Requirement(text) for text in (*project["dependencies"], *extras["test"], *extras["docs"])]


def _build_requirements() -> list[Requirement]:
    return [Requirement(text) for text in _pyproject()["build-system"]["requires"]]


def _assert_pinned(requirement: Requirement, file: str, how: str) -> None:
    pins = _pins(file)
    name = canonicalize_name(requirement.name)
    assert name in pins, f"{requirement.name} is not pinned in {file}: {how}"
    assert requirement.specifier.contains(pins[name], prereleases=True), (
        f"{requirement.name} is pinned to {pins[name]} in {file}, outside {requirement.specifier}: {how}"
    )


@pytest.mark.parametrize("requirement", _requirements(), ids=str)
def test_every_requirement_is_pinned_within_its_range(requirement: Requirement) -> None:
    _assert_pinned(requirement, "constraints.txt", REGENERATE)


@pytest.mark.parametrize("requirement", _build_requirements(), ids=str)
def test_the_build_backend_is_pinned_within_its_range(requirement: Requirement) -> None:
    _assert_pinned(requirement, "build-constraints.txt", "pin it there to the version CI builds with")


@pytest.mark.parametrize("file", ["constraints.txt", "build-constraints.txt"])
def test_the_pins_are_the_projects_own(file: str) -> None:
    """No index or link of one machine's pip settings in the files: CI resolves from PyPI by name."""
    lines = (ROOT / file).read_text(encoding="utf-8").splitlines()
    options = [line for line in lines if line.startswith("-")]
    assert options == [], f"pip options in {file}: {options}"


def _imported_distributions() -> set[NormalizedName]:
    """The distributions of the third-party modules the gateway's packages import."""
    import ast
    import sys
    from importlib.metadata import packages_distributions

    owners = packages_distributions()
    found: set[NormalizedName] = set()
    for package in ("gateway", "rest_compat", "schema", "datasources"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    top = name.partition(".")[0]
                    if top not in sys.stdlib_module_names and top in owners:
                        found.update(canonicalize_name(owner) for owner in owners[top])
    return found


def test_every_third_party_package_the_gateway_imports_is_a_requirement() -> None:
    # Whatever another requirement happens to bring along may leave with its next release; graphql-core,
    # whose executor internals schema/execution runs on, came only with strawberry-graphql.
    required = {canonicalize_name(requirement.name) for requirement in _requirements()}
    assert _imported_distributions() - required - {canonicalize_name("erp-shop-gateway")} == set()
