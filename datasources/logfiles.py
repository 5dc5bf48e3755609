"""The service's log files in GATEWAY_LOG_DIR."""

from __future__ import annotations

from pathlib import Path


def delete_log_files(log_dir: Path) -> int:
    """Remove every log file (rotated ones too); the caller has the handlers reopen their files."""
    removed = 0
    if not log_dir.is_dir():
        return 0
    for path in log_dir.iterdir():
        if path.is_file() and ".log" in path.name:
            path.unlink(missing_ok=True)
            removed += 1
    return removed
