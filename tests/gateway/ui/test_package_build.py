"""The package build (setup.py's build_py step, which `pip install .` and `pip wheel .` run) fails, naming
the package and the reason, when the npm registry cannot be reached: a gateway without GraphiQL's files
would serve a page that cannot load. Run on a copy of the sources without the fetched files, with a
registry mirror (npm_config_registry) where nothing listens."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.server import free_port

ROOT = Path(__file__).parents[3]
PACKAGES = ("gateway", "rest_compat", "schema", "datasources")


def sources_without_browser_files(target: Path) -> Path:
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, target / name)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, target / package, ignore=shutil.ignore_patterns("static", "__pycache__"))
    return target


def test_the_build_fails_when_the_registry_cannot_be_reached(tmp_path: Path) -> None:
    source = sources_without_browser_files(tmp_path)
    registry = f"http://127.0.0.1:{free_port()}/"

    build = subprocess.run(
        [sys.executable, "setup.py", "--quiet", "build_py"],
        cwd=source,
        env={**os.environ, "npm_config_registry": registry},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert build.returncode != 0
    assert (
        f"error: cannot install GraphiQL's browser files: cannot fetch {registry}react/-/react-18.3.1.tgz: "
        in build.stderr
    ), build.stderr
    assert not any((source / "gateway" / "ui" / "static").glob("*/")), "nothing was installed"
    assert not (source / "build").exists(), "the build stopped before it copied anything"
