"""A poller's failed reads, logged as an episode: one line when they start, one when it reads again.

The live feeds poll every second or so while someone follows them; a database that is down for an hour would
otherwise write a warning per poll, burying the lines that say when it went and came back."""

from __future__ import annotations

import logging

from datasources.availability import one_line


class FailedPolls:
    def __init__(self, log: logging.Logger, reading: str) -> None:
        self._log = log
        self._reading = reading  # what the poller reads: "reading the outbox"
        self._failed = 0  # polls failed in a row

    def failed(self, error: BaseException) -> None:
        self._failed += 1
        if self._failed == 1:
            self._log.warning("%s failed: %s (tried again at every poll)", self._reading, one_line(error))

    def succeeded(self) -> None:
        if self._failed:
            self._log.warning("%s works again after %d failed polls", self._reading, self._failed)
            self._failed = 0
