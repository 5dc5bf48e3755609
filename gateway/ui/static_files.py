"""Starlette's StaticFiles with a Cache-Control header, optionally limited to some files of its folder, and
without its check that fails every request with a 500 when the folder is missing (a source checkout whose
GraphiQL files were never fetched)."""

from __future__ import annotations

import os
from collections.abc import Collection
from typing import Any

from starlette.responses import Response
from starlette.staticfiles import PathLike, StaticFiles
from starlette.types import Scope

# Files whose URL names their version never change: a browser keeps them and does not ask again.
IMMUTABLE = "public, max-age=31536000, immutable"
# Our own scripts change with the gateway under the same URL: kept, but revalidated (ETag) before use.
REVALIDATE = "no-cache"


class CachedStaticFiles(StaticFiles):
    def __init__(self, *, cache_control: str, only: Collection[str] | None = None, **kwargs: Any) -> None:
        """`only`: the files of the folder that are served (relative paths); the others answer 404."""
        super().__init__(check_dir=False, **kwargs)
        self.cache_control = cache_control
        self.only = None if only is None else frozenset(only)

    async def check_config(self) -> None:
        """A missing folder answers 404 per file, as a missing file does."""

    def lookup_path(self, path: str) -> tuple[str, os.stat_result | None]:
        if self.only is not None and path not in self.only:
            return "", None
        return super().lookup_path(path)

    def file_response(
        self, full_path: PathLike, stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = self.cache_control
        return response
