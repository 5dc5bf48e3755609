"""The outside tools the outside-in suites drive (Node and the npm modules of tests/audits and tests/browser,
PHP, Chromium, schemathesis): where one is missing, a test is skipped on a developer's machine and fails
under CI (`CI` set, as .ci/run exports it), so that CI cannot pass without running it."""

from __future__ import annotations

import os

import pytest


def under_ci() -> bool:
    return bool(os.environ.get("CI"))


def require(missing: str | None) -> None:
    """Called first in a test: `missing` says which tool is missing and how to get it (None: all there)."""
    if missing is None:
        return
    if under_ci():
        pytest.fail(f"required under CI: {missing}", pytrace=False)
    pytest.skip(missing)
