"""The garbage collector, set for a long-running server process.

A 1000-article page allocates some half a million objects that live until its response is sent. With
Python's default thresholds (700, 10, 10) the cyclic collector then runs hundreds of times during such a
request, and its full collections walk everything alive, the startup heap included: measured, about half
of that page's CPU (bench/catalogue.py prints the collector's share). So a server process freezes what
exists once the app is built (modules, schema: never garbage) and raises the first threshold; reference
counting still frees almost every object the moment it is no longer used.
"""

from __future__ import annotations

import gc

GEN0_THRESHOLD = 50_000


def tune_for_server() -> None:
    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GEN0_THRESHOLD, gen1, gen2)
