"""When a failed delivery is tried again: exponential backoff with jitter, then give up.

With the defaults the attempts after the first come about 5 s, 15 s, 45 s, 2.25 min, 6.75 min, 20 min,
1 h, 3 h and then 6 h apart, twelve attempts in all over about 22.6 hours; each wait varies randomly by up
to 20 % either way, so that the deliveries a receiver's outage held back do not all come back at once.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RetrySchedule:
    first_delay: float = 5.0  # seconds between the first attempt and the second
    factor: float = 3.0  # each wait is this many times the one before ...
    max_delay: float = 6 * 3600.0  # ... up to this
    max_attempts: int = 12  # attempts in all, the first included; then the delivery fails
    jitter: float = 0.2  # each wait varies randomly by up to this share either way

    def delay(self, attempts: int) -> float:
        """The nominal wait after `attempts` (1, 2, ...) failed attempts, in seconds."""
        return min(self.first_delay * self.factor ** (attempts - 1), self.max_delay)

    def next_attempt(self, attempts: int, now: dt.datetime, rng: random.Random) -> dt.datetime | None:
        """When to try again after `attempts` failed attempts; None when they were the last."""
        if attempts >= self.max_attempts:
            return None
        spread = 1.0 + self.jitter * (2.0 * rng.random() - 1.0)
        return now + dt.timedelta(seconds=self.delay(attempts) * spread)

    def span(self) -> float:
        """Nominal seconds from the first attempt to the last."""
        return sum(self.delay(attempts) for attempts in range(1, self.max_attempts))
