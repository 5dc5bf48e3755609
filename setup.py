"""The package build. pyproject.toml holds the metadata; this file only adds a step to build_py: GraphiQL's
browser files, fetched from the npm registry by the names, versions and integrity hashes of
gateway/ui/assets.lock.json and verified before use (gateway/ui/fetch.py). No third-party file is in the
repository, and a build that cannot fetch and verify them fails, naming the package and the reason: a
gateway without them would serve a GraphiQL page that cannot load."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.errors import ExecError

HERE = Path(__file__).resolve().parent


def _fetch_module() -> ModuleType:
    # By its path: importing the gateway package would need its dependencies, not installed yet here.
    spec = importlib.util.spec_from_file_location("gateway_ui_fetch", HERE / "gateway" / "ui" / "fetch.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


class BuildWithBrowserFiles(build_py):
    def run(self) -> None:
        fetch = _fetch_module()
        # Kept in the source tree (git-ignored) too: an editable install serves them from there, and a
        # second build needs no download.
        try:
            for package in fetch.install():
                print(f"gateway/ui/static: {package.directory} fetched, integrity verified")
        except fetch.AssetError as error:
            raise ExecError(f"cannot install GraphiQL's browser files: {error}") from None
        super().run()
        if not self.editable_mode:
            shutil.copytree(fetch.STATIC, Path(self.build_lib) / "gateway" / "ui" / "static", dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildWithBrowserFiles})
