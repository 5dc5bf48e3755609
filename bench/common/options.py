"""Command-line options the benches share."""

from __future__ import annotations

import argparse
import subprocess
from pathlib import Path

from sqlalchemy.engine import make_url


def numbers(raw: str) -> list[int]:
    """A comma-separated list of positive whole numbers (`1,2`, `2000,200_000`)."""
    values = [int(part.replace("_", "")) for part in raw.split(",")]
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError("positive whole numbers, comma-separated")
    return values


def postgresql_url(parser: argparse.ArgumentParser, raw: str | None) -> str | None:
    """--database-url as the benches take it: a PostgreSQL server, spoken to with asyncpg, or None (SQLite)."""
    if not raw:
        return None
    url = make_url(raw)
    if url.get_backend_name() != "postgresql":
        parser.error("--database-url: PostgreSQL only; SQLite runs in a temporary directory anyway")
    return url.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)


def checkout(raw: str) -> Path:
    """--baseline DIR: a checkout of the gateway (git worktree add DIR COMMIT), its path made absolute."""
    path = Path(raw).resolve()
    if not (path / "gateway" / "__main__.py").is_file():
        raise argparse.ArgumentTypeError(f"{path} is not a checkout of the gateway")
    return path


def baseline_label(directory: Path) -> str:
    """The name a --baseline checkout's gateway goes by in the figures: its commit, or its directory's name."""
    commit = subprocess.run(  # noqa: S603 - git on the checkout the operator named
        ["git", "-C", str(directory), "rev-parse", "--short", "HEAD"],  # noqa: S607 - git from PATH, as the bench's wrk
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    return f"gateway {commit or directory.name}"
