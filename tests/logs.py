"""Reading the gateway's log files in tests: its lines are written by a thread of their own
(gateway/logs/writer.py), a moment after the request that logged them was answered."""

from __future__ import annotations

import time
from pathlib import Path

WAIT_SECONDS = 10.0  # the writer needs a millisecond; a busy CI machine may hold it up much longer


def logged(path: Path, containing: str, *, times: int = 1, timeout: float = WAIT_SECONDS) -> str:
    """The text of the log file once it holds `containing` (`times` times), with every line logged before;
    AssertionError with the text there is if it does not within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        text = path.read_text(errors="replace") if path.exists() else ""
        if text.count(containing) >= times:
            return text
        if time.monotonic() > deadline:
            raise AssertionError(f"{path.name} has no {containing!r} ({times}x) after {timeout} s:\n{text[-4000:]}")
        time.sleep(0.01)
