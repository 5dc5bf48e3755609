"""The directory `gateway serve` gives its workers for their metrics: a fresh one per run for several
workers, removed at exit; none for one process; an operator's own emptied of an earlier run's files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gateway.metrics import multiprocess
from gateway.metrics.multiprocess import DIRECTORY, shared_directory


@pytest.fixture(autouse=True)
def no_directory(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(DIRECTORY, raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # where tempfile makes the fresh directory
    monkeypatch.setattr("tempfile.tempdir", None)  # read TMPDIR again


def test_several_workers_get_a_fresh_directory_removed_at_exit(tmp_path: Path) -> None:
    with shared_directory(workers=2):
        made = Path(os.environ[DIRECTORY])
        assert made.parent == tmp_path and made.name.startswith("gateway-metrics-")
        assert list(made.iterdir()) == []
        (made / "counter_123.db").write_bytes(b"")  # as a worker writes
    assert DIRECTORY not in os.environ
    assert not made.exists()


def test_one_process_keeps_its_metrics_in_memory() -> None:
    with shared_directory(workers=1):
        assert DIRECTORY not in os.environ
        assert multiprocess.all_processes() is None


def test_an_operators_directory_is_emptied_of_metric_files_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    given = tmp_path / "metrics"
    given.mkdir()
    for name in ("counter_41.db", "histogram_41.db", "notes.txt"):
        (given / name).write_bytes(b"x")
    monkeypatch.setenv(DIRECTORY, str(given))
    with shared_directory(workers=4):
        assert os.environ[DIRECTORY] == str(given)
        assert sorted(path.name for path in given.iterdir()) == ["notes.txt"]
        assert multiprocess.all_processes() is not None
    assert given.exists()  # the operator's, kept


def test_an_operators_directory_is_made_when_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DIRECTORY, str(tmp_path / "new" / "metrics"))
    with shared_directory(workers=2):
        assert (tmp_path / "new" / "metrics").is_dir()
