"""Starlette's StaticFiles with a Cache-Control header, and without its check that fails every request
with a 500 when the folder is missing (a source checkout whose GraphiQL files were never fetched)."""

from __future__ import annotations

import os
from typing import Any

from starlette.responses import Response
from starlette.staticfiles import PathLike, StaticFiles
from starlette.types import Scope

# Files whose URL names their version never change: a browser keeps them and does not ask again.
IMMUTABLE = "public, max-age=31536000, immutable"
# Our own scripts change with the gateway under the same URL: kept, but revalidated (ETag) before use.
REVALIDATE = "no-cache"


class CachedStaticFiles(StaticFiles):
    def __init__(self, *, cache_control: str, **kwargs: Any) -> None:
        super().__init__(check_dir=False, **kwargs)
        self.cache_control = cache_control

    async def check_config(self) -> None:
        """A missing folder answers 404 per file, as a missing file does."""

    def file_response(
        self, full_path: PathLike, stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = self.cache_control
        return response
