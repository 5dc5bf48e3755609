"""The PDF work in worker processes: off the event loop, with a time limit and a memory bound.

Each worker is a long-lived process started with the "spawn" method (a fork of a program with an event
loop and threads can inherit held locks). It sets RLIMIT_AS for each call, so a decompression bomb or a
pathological PDF ends in a MemoryError there instead of swapping the server. The parent waits in a thread
of its own executor, so the event loop keeps serving; a worker that runs past the time limit is killed and
a fresh one started for the next call.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import resource
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from datasources.einvoice.combine import combine
from datasources.einvoice.errors import EInvoiceError
from datasources.einvoice.extract import extract
from datasources.einvoice.model import EInvoiceFile

POOL_SIZE = max(1, min(4, os.cpu_count() or 1))
_START_TIMEOUT = 60.0
_REQUESTS_PER_WORKER = 500


@dataclass(frozen=True)
class Job:
    operation: str
    pdf: bytes
    xml: bytes | None
    memory_limit: int


@dataclass(frozen=True)
class Reply:
    """A worker's answer: the file, or the error with its log, or that the memory limit was hit."""

    file: EInvoiceFile | None = None
    error: str = ""
    field: str | None = None
    log: tuple[str, ...] = ()
    out_of_memory: bool = False

    def result(self) -> EInvoiceFile:
        if self.file is None:
            raise EInvoiceError(self.error, field=self.field, log=self.log)
        return self.file


class WorkerFailed(Exception):
    """The worker did not answer: it ran out of time or memory, or died. The message says which."""

    def __init__(self, message: str, log: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.log = log


class WorkerDied(WorkerFailed):
    """The worker process ended without a reply (killed, crashed)."""


def run_job(job: Job) -> Reply:
    """One job in this process, within its memory limit (the worker's side)."""
    log: list[str] = []
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = job.memory_limit if hard == resource.RLIM_INFINITY else min(job.memory_limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    try:
        if job.operation == "Combine":
            return Reply(file=combine(job.pdf, job.xml or b"", log))
        return Reply(file=extract(job.pdf, log))
    except EInvoiceError as error:
        return Reply(error=error.message, field=error.field, log=tuple(error.log))
    except MemoryError:
        return Reply(log=tuple(log), out_of_memory=True)
    except Exception as error:  # a bug must not take the worker down with it: the caller gets a clear error
        log.append(f"{type(error).__name__}: {str(error)[:200]}")
        return Reply(error=f"The {job.operation} failed unexpectedly ({type(error).__name__}).", log=tuple(log))
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (hard, hard))


def _serve(connection: Connection) -> None:
    """The worker's main loop: one job at a time until the parent hangs up."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the server decides when its workers stop
    connection.send(("ready",))
    for _ in range(_REQUESTS_PER_WORKER):
        try:
            job = connection.recv()
        except (EOFError, OSError):
            return
        reply = run_job(job)
        connection.send(reply)
        if reply.out_of_memory:
            return  # the heap may be fragmented past the limit: a fresh process serves the next job


class _Worker:
    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self._connection, child = context.Pipe()
        self._process: BaseProcess = context.Process(target=_serve, args=(child,), name="einvoice-worker", daemon=True)
        self._process.start()
        child.close()
        self.jobs = 0
        try:
            ready = self._connection.poll(_START_TIMEOUT) and self._connection.recv() == ("ready",)
        except (EOFError, OSError):
            ready = False
        if not ready:
            self.stop()
            raise WorkerFailed("The PDF worker process could not be started.")

    @property
    def usable(self) -> bool:
        return self._process.is_alive() and self.jobs < _REQUESTS_PER_WORKER

    def run(self, job: Job, time_limit: float) -> Reply:
        """The worker's reply; WorkerFailed (the worker stopped) when it cannot give one."""
        self.jobs += 1
        try:
            self._connection.send(job)
            if not self._connection.poll(time_limit):
                self.stop()
                raise WorkerFailed(f"The PDF work took longer than the time limit of {time_limit:g} s.")
            reply: Reply = self._connection.recv()
        except (EOFError, OSError):
            self.stop()
            raise WorkerDied(f"The PDF work ended unexpectedly (exit code {self._process.exitcode}).") from None
        if reply.out_of_memory:
            self.stop()
            limit = f"{job.memory_limit / 2**20:g} MiB"
            raise WorkerFailed(f"The PDF work needed more than the memory limit of {limit}.", reply.log)
        return reply

    def kill(self) -> None:
        if self._process.is_alive():
            self._process.kill()

    def stop(self) -> None:
        self.kill()
        self._process.join()
        self._connection.close()


class WorkerPool:
    """Up to `size` workers; calls beyond that wait in the executor's queue for a free one."""

    def __init__(self, size: int = POOL_SIZE) -> None:
        self._executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="einvoice")
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._lock = threading.Lock()
        self._closed = False

    async def run(self, job: Job, time_limit: float) -> Reply:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._run, job, time_limit)

    def shutdown(self) -> None:
        """Stops the idle workers and kills the busy ones (their callers get a WorkerFailed)."""
        with self._lock:
            self._closed = True
            idle, busy = list(self._idle), list(self._busy)
            self._idle.clear()
        for worker in idle:
            worker.stop()
        for worker in busy:
            worker.kill()
        self._executor.shutdown(wait=True, cancel_futures=True)

    def _run(self, job: Job, time_limit: float) -> Reply:
        worker, reused = self._checkout()
        try:
            reply = worker.run(job, time_limit)
        except WorkerDied:
            self._release(worker, keep=False)
            if not reused or self._closed:
                raise
            # An idle worker can die unnoticed between jobs (killed, the OOM killer) and still look alive
            # for a moment: the job gets one fresh worker. One that kills a fresh worker too is reported.
            return self._run_fresh(job, time_limit)
        except BaseException:
            self._release(worker, keep=False)
            raise
        self._release(worker, keep=True)
        return reply

    def _run_fresh(self, job: Job, time_limit: float) -> Reply:
        worker = self._started()
        try:
            reply = worker.run(job, time_limit)
        except BaseException:
            self._release(worker, keep=False)
            raise
        self._release(worker, keep=True)
        return reply

    def _checkout(self) -> tuple[_Worker, bool]:
        """A worker for one job, and whether it served jobs before."""
        with self._lock:
            if self._closed:
                raise WorkerFailed("The PDF workers are shut down.")
            while self._idle:
                worker = self._idle.pop()
                if worker.usable:
                    self._busy.add(worker)
                    return worker, True
                worker.stop()
        return self._started(), False

    def _started(self) -> _Worker:
        worker = _Worker()
        with self._lock:
            self._busy.add(worker)
        return worker

    def _release(self, worker: _Worker, *, keep: bool) -> None:
        with self._lock:
            self._busy.discard(worker)
            keep = keep and not self._closed and worker.usable
            if keep:
                self._idle.append(worker)
        if not keep:
            worker.stop()


_pool: WorkerPool | None = None
_pool_lock = threading.Lock()


def worker_pool() -> WorkerPool:
    """The process-wide pool, started on first use (nothing is started at import time)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = WorkerPool()
        return _pool


def shutdown_workers() -> None:
    """Stops every worker process; the next call starts new ones. For the app's lifespan and tests."""
    global _pool
    with _pool_lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown()
