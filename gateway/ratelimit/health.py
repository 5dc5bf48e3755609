"""Whether the counters' storage answers. A rate limiter fails open: when Redis cannot be reached, requests
pass unchecked rather than failing, and the log gets one line when such an episode starts and one when
Redis answers again, instead of a line per request."""

from __future__ import annotations

import logging
import time

log = logging.getLogger("gateway.ratelimit")

# While the storage is down, one check per this many seconds tries it again; the others skip it, so a
# Redis that does not answer costs the requests nothing but the probe's socket timeout.
PROBE_SECONDS = 1.0


class StorageHealth:
    def __init__(self, where: str) -> None:
        self.where = where  # for the log: "Redis at redis://cache:6379/0", never with a password
        self._down_since: float | None = None
        self._next_probe = 0.0
        self._unchecked = 0

    @property
    def down(self) -> bool:
        return self._down_since is not None

    def usable(self) -> bool:
        """False while down and not yet time for the next probe: the check is skipped (fail open)."""
        if self._down_since is None or time.monotonic() >= self._next_probe:
            return True
        self._unchecked += 1
        return False

    def failed(self, error: BaseException) -> None:
        self._unchecked += 1
        self._next_probe = time.monotonic() + PROBE_SECONDS
        if self._down_since is None:
            self._down_since = time.monotonic()
            log.warning("rate limits not enforced: %s does not answer (%s)", self.where, _reason(error))

    def answered(self) -> None:
        if self._down_since is None:
            return
        lasted, unchecked = time.monotonic() - self._down_since, self._unchecked
        self._down_since, self._unchecked = None, 0
        log.warning(
            "rate limits enforced again: %s answers after %.1f s; %d checks were skipped", self.where, lasted, unchecked
        )


def _reason(error: BaseException) -> str:
    # limits wraps the client's error (StorageError.storage_error): name that one.
    cause = getattr(error, "storage_error", None) or error
    text = str(cause).strip().splitlines()
    return f"{type(cause).__name__}: {text[0] if text else ''}".rstrip(": ")
