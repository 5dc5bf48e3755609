"""Starlette's StaticFiles with a Cache-Control header, gzip for text files, optionally limited to some files of
its folder, and without its check that fails every request with a 500 when the folder is missing (a source
checkout whose GraphiQL files were never fetched)."""

from __future__ import annotations

import asyncio
import functools
import gzip
import os
from collections.abc import Collection
from typing import Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import FileResponse, Response
from starlette.staticfiles import PathLike, StaticFiles
from starlette.types import Scope

from gateway.middleware.compression import MINIMUM_BYTES, accepts_gzip

# Files whose URL names their version never change: a browser keeps them and does not ask again.
IMMUTABLE = "public, max-age=31536000, immutable"
# Our own scripts change with the gateway under the same URL: kept, but revalidated (ETag) before use.
REVALIDATE = "no-cache"
# Text, which gzip shrinks 3-4 times (Swagger UI's 1.5 MB script to ~0.45 MB); images and fonts come compressed.
COMPRESSIBLE = (".js", ".css", ".map", ".json", ".svg", ".html", ".txt")
# The middleware (gateway/middleware/compression.py) leaves a file alone: it is sent in parts. Compressed once
# per file and kept (the served folders hold ~6 MB of text, ~1.5 MB compressed); level 9 would save 0.3 % more
# for three times the time.
GZIP_LEVEL = 6


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

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if not isinstance(response, FileResponse) or not str(response.path).endswith(COMPRESSIBLE):
            return response
        response.headers.add_vary_header("Accept-Encoding")
        headers = Headers(scope=scope)
        stat_result = response.stat_result
        if (
            response.status_code != 200
            or stat_result is None
            or stat_result.st_size < MINIMUM_BYTES
            or "range" in headers
            or not accepts_gzip(headers)
        ):
            return response
        # In a thread, once per file: GraphiQL's 3.5 MB script takes ~0.1 s.
        body = await asyncio.to_thread(_gzipped, str(response.path), stat_result.st_mtime_ns)
        compressed = MutableHeaders(raw=list(response.raw_headers))
        compressed["Content-Encoding"] = "gzip"
        compressed["Content-Length"] = str(len(body))
        # Weak: the same file, another encoding (a revalidation with it still matches, as at nginx).
        compressed["ETag"] = f"W/{response.headers['etag']}"
        return Response(body, headers=dict(compressed))

    def file_response(
        self, full_path: PathLike, stat_result: os.stat_result, scope: Scope, status_code: int = 200
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        response.headers["Cache-Control"] = self.cache_control
        return response


@functools.lru_cache(maxsize=64)
def _gzipped(path: str, mtime_ns: int) -> bytes:
    """The file compressed; `mtime_ns` makes a changed file (a new checkout's script) a new entry."""
    with open(path, "rb") as file:
        return gzip.compress(file.read(), compresslevel=GZIP_LEVEL, mtime=0)
