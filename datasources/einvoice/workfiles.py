"""Debug's work files: one call's inputs, output and log kept in the work directory, which is bounded by
bytes (the oldest calls' files are removed first), so that Debug cannot fill the disk."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

DEFAULT_MAX_BYTES = 100 * 1024 * 1024
# A call's files share its stem (operation.py): zugferd-YYYYmmdd-HHMMSS-<8 hex>, then -input.pdf, .log, ...
_STEM = re.compile(r"(zugferd-\d{8}-\d{6}-[0-9a-f]{8})[-.]")


class TooLarge(Exception):
    """One call's files alone are more than the directory may hold."""


def keep(directory: Path, files: dict[str, bytes], max_bytes: int) -> None:
    """Writes one call's files, then removes the oldest calls' files until the directory holds at most
    `max_bytes` of them. Nothing of the call stays when writing fails (a full disk)."""
    if sum(len(content) for content in files.values()) > max_bytes:
        raise TooLarge
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    try:
        for name, content in files.items():
            path = directory / name
            written.append(path)
            path.write_bytes(content)
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise
    prune(directory, max_bytes)


def prune(directory: Path, max_bytes: int) -> None:
    """Removes whole calls' files, oldest first, until those left take at most `max_bytes`. Files not named
    like work files are neither counted nor touched. Several processes may prune at once."""
    calls: dict[str, list[tuple[Path, int, float]]] = {}
    for path in directory.iterdir():
        found = _STEM.match(path.name)
        if found is None:
            continue
        with contextlib.suppress(FileNotFoundError):  # removed by another process meanwhile
            status = path.stat()
            calls.setdefault(found[1], []).append((path, status.st_size, status.st_mtime))
    total = sum(size for files in calls.values() for _, size, _ in files)
    # Oldest first: by the newest file of each call, then by its stem (which starts with its time).
    for stem in sorted(calls, key=lambda stem: (max(mtime for _, _, mtime in calls[stem]), stem)):
        if total <= max_bytes:
            break
        for path, size, _ in calls[stem]:
            path.unlink(missing_ok=True)
            total -= size
