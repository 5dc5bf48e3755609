"""Each layer's entry modules import on their own, in a fresh interpreter: an import cycle shows only when a
program imports its modules in another order than the app does (`from schema.schema import build_schema`
first failed with "partially initialized module 'schema.document_cache'")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENTRY_MODULES = [
    "schema.schema",
    "schema.document_cache",
    "schema.execution",
    "rest_compat.routes",
    "datasources.database",
    "gateway.app",
]


@pytest.mark.parametrize("module", ENTRY_MODULES)
def test_a_module_imports_first(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", f"import {module}"], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
