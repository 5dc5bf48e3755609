"""The SQLite file behind a URL: where it is, and creating it readable by its owner only (it holds the
webhooks' signing secrets and the users' hashes). SQLite gives its `-wal` and `-shm` files the database
file's permissions, so they are 0600 too."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from sqlalchemy.engine import make_url


def sqlite_file(url: str) -> Path | None:
    """The file of an SQLite URL; None for PostgreSQL, an in-memory database or a `file:` URI."""
    parsed = make_url(url)
    database = parsed.database
    if parsed.get_backend_name() != "sqlite" or not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def create_private(path: Path) -> None:
    """Creates an empty database file (SQLite takes an empty file for a new database) with mode 0600;
    one that exists is left as it is."""
    # It exists, or cannot be made (no such directory): then opening it says why, as before.
    with contextlib.suppress(OSError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
