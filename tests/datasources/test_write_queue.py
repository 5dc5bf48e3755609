"""SQLite's writers take turns: in a process on an asyncio lock, across processes on a file lock beside the
database (two queues on one file stand for two processes: flock belongs to the open file)."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from datasources.availability import is_outage
from datasources.write_queue import WriteQueue, lock_file_for


def test_the_lock_file_lies_beside_the_database(tmp_path: Path) -> None:
    assert lock_file_for(str(tmp_path / "gateway.db")) == tmp_path / "gateway.db-writer.lock"
    assert lock_file_for(":memory:") is None
    assert lock_file_for("") is None


async def test_queues_of_two_processes_take_turns(tmp_path: Path) -> None:
    lock_file = tmp_path / "gateway.db-writer.lock"
    first, second = WriteQueue(5, lock_file), WriteQueue(5, lock_file)
    await first.enter()
    entering = asyncio.ensure_future(second.enter())
    await asyncio.sleep(0.1)
    assert not entering.done()  # waits while the other process writes
    first.leave()
    await asyncio.wait_for(entering, timeout=5)
    second.leave()


async def test_a_writer_without_a_turn_within_the_timeout_is_an_outage_and_takes_nothing(tmp_path: Path) -> None:
    lock_file = tmp_path / "gateway.db-writer.lock"
    holder, impatient, later = WriteQueue(5, lock_file), WriteQueue(0.2, lock_file), WriteQueue(5, lock_file)
    await holder.enter()
    with pytest.raises(sqlite3.OperationalError) as refused:
        await impatient.enter()
    assert is_outage(refused.value)  # answered 503, as when SQLite's busy timeout runs out
    holder.leave()
    # The abandoned wait got the lock in its thread and gave it back at once: the next writer enters.
    await asyncio.wait_for(later.enter(), timeout=5)
    later.leave()
    await asyncio.wait_for(impatient.enter(), timeout=5)  # its own turn is free again too
    impatient.leave()
