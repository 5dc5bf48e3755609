"""Where the log writer's thread puts lines: a file of GATEWAY_LOG_DIR, or standard output or error.

Only that thread uses a sink. Sinks are not logging handlers on purpose: at exit, logging takes every
handler's lock, and a handler whose write is stuck on a stalled disk would hold its lock for ever and keep
the process from ending.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, Protocol, TextIO


class Sink(Protocol):
    def write(self, lines: Sequence[str]) -> None:
        """Lines, written through to the operating system in one go; raises OSError when they cannot be."""

    def reopen(self) -> None:
        """Lets go of the file now: the next line opens it anew."""

    def check(self) -> None:
        """Lets go of the file if it was deleted or rotated since it was opened."""

    def close(self) -> None: ...


class FileSink:
    """A log file: opened at its first line (its directory made then, if missing), opened anew when it was
    deleted or rotated (renamed, or replaced by another file), and after a failed write."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stream: TextIO | None = None
        self._identity = (0, 0)  # device and inode of the file opened

    def write(self, lines: Sequence[str]) -> None:
        if self._stream is None or self._moved():
            self._open()
        assert self._stream is not None
        try:
            self._stream.write("".join(line + "\n" for line in lines))
            self._stream.flush()
        except OSError:
            self.close()  # and open it again for the next line: the directory may be back by then
            raise

    def _open(self) -> None:
        self.close()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        stream = self.path.open("a", encoding="utf-8", errors="backslashreplace")
        status = os.fstat(stream.fileno())
        self._stream, self._identity = stream, (status.st_dev, status.st_ino)

    def _moved(self) -> bool:
        try:
            status = os.stat(self.path)
        except OSError:
            return True
        return (status.st_dev, status.st_ino) != self._identity

    def reopen(self) -> None:
        self.close()

    def check(self) -> None:
        if self._stream is not None and self._moved():
            self.close()

    def close(self) -> None:
        stream, self._stream = self._stream, None
        if stream is not None:
            # A full disk can fail the final flush; the descriptor is released either way.
            with contextlib.suppress(OSError):
                stream.close()


class ConsoleSink:
    """Standard output or standard error (GATEWAY_LOG_DIR=-), as the process has it when the line is written."""

    def __init__(self, name: Literal["stdout", "stderr"]) -> None:
        self.name = name

    def write(self, lines: Sequence[str]) -> None:
        stream: TextIO | None = getattr(sys, self.name)
        if stream is None:
            raise OSError(f"there is no {self.name}")
        # Characters the console's encoding lacks are escaped: a line is never refused for them.
        encoding = stream.encoding or "utf-8"
        text = "".join(line + "\n" for line in lines)
        stream.write(text.encode(encoding, "backslashreplace").decode(encoding))
        stream.flush()

    def reopen(self) -> None:
        pass

    def check(self) -> None:
        pass

    def close(self) -> None:
        pass
