"""The memory of a server's processes as bench/whole_catalogue/main.py reads it: VmRSS and VmHWM (peak RSS) from
/proc/<pid>/status, the peak reset before a request (`echo 5 > /proc/<pid>/clear_refs`) where the kernel
allows it, and the process whose peak grew most over that request."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

RESET_SLACK_KB = 1024  # a peak just reset may already be a little above the RSS read a moment later


@dataclass(frozen=True)
class Memory:
    """/proc/<pid>/status, in kB."""

    rss: int
    hwm: int


@dataclass(frozen=True)
class Peak:
    """The process of the server whose peak RSS grew most over one request."""

    pid: int
    before: Memory
    after: Memory
    reset: bool  # the peak was reset before the request: after.hwm is that request's own


def memory(pid: int) -> Memory | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None  # gone
    values = dict(re.findall(r"^(VmRSS|VmHWM):\s+(\d+) kB", status, re.MULTILINE))
    if len(values) < 2:
        return None  # a zombie has no memory lines
    return Memory(rss=int(values["VmRSS"]), hwm=int(values["VmHWM"]))


def memories(pids: Sequence[int]) -> dict[int, Memory]:
    return {pid: found for pid in pids if (found := memory(pid)) is not None}


def reset_peaks(pids: Sequence[int]) -> bool:
    """Sets each process's VmHWM to its current RSS (clear_refs 5, Linux 4.0+); False where the kernel does
    not allow it or the peak did not come down, so that the peaks are read as peaks since the start."""
    for pid in pids:
        try:
            Path(f"/proc/{pid}/clear_refs").write_text("5")
        except OSError:
            return False
    return all(found.hwm <= found.rss + RESET_SLACK_KB for found in memories(pids).values())


def largest_peak(before: dict[int, Memory], after: dict[int, Memory], reset: bool) -> Peak | None:
    grown = [(after[pid].hwm - before[pid].hwm, pid) for pid in before if pid in after]
    if not grown:
        return None
    _, pid = max(grown)
    return Peak(pid, before[pid], after[pid], reset)
