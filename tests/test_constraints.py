"""constraints.txt pins what CI installs (.ci/run): every requirement of pyproject.toml, the test extra's
included, must be pinned there to one version its range admits. A requirement added to pyproject.toml
without regenerating the file would otherwise be installed at whatever version is newest that day."""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
REGENERATE = "regenerate constraints.txt with pip-compile (the command is in its header)"


@cache
def _pins() -> dict[NormalizedName, Version]:
    pins: dict[NormalizedName, Version] = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        name, separator, version = text.partition("==")
        assert separator and name.strip(), f"constraints.txt pins exact versions, not {text!r}"
        pins[canonicalize_name(name.strip())] = Version(version.strip())
    return pins


def _requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(text) for text in (*project["dependencies"], *project["optional-dependencies"]["test"])]


@pytest.mark.parametrize("requirement", _requirements(), ids=str)
def test_every_requirement_is_pinned_within_its_range(requirement: Requirement) -> None:
    pins = _pins()
    name = canonicalize_name(requirement.name)
    assert name in pins, f"{requirement.name} is not pinned: {REGENERATE}"
    assert requirement.specifier.contains(pins[name], prereleases=True), (
        f"{requirement.name} is pinned to {pins[name]}, outside {requirement.specifier}: {REGENERATE}"
    )


def test_the_pins_are_the_projects_own() -> None:
    """No index or link of one machine's pip settings in the file: CI resolves from PyPI by name."""
    lines = (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
    options = [line for line in lines if line.startswith("-")]
    assert options == [], f"pip options in constraints.txt: {options}"
