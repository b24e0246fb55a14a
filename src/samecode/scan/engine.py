"""Where the pipeline's stages run: in this process, or in a pool of worker processes.

An :class:`Engine` maps a plain, picklable function over a list of argument tuples and
yields the results **in the order of the tasks**, whatever order they finish in; the
pipeline merges results in that order, so its output is the same for any engine, any
number of workers and any batch size.

:class:`ProcessPool` keeps its workers for the whole job and ends them at once when the
job ends early: on an error, on Ctrl-C (workers ignore SIGINT; the main process turns it
into :class:`KeyboardInterrupt` and terminates them) and on SIGTERM (see
:func:`terminate_on_sigterm`), so no worker outlives the command.

>>> with Serial() as engine:
...     list(engine.map(pow, [(2, 3), (3, 2)]))
[8, 9]
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from itertools import islice
from multiprocessing.pool import AsyncResult, Pool
from types import FrameType, TracebackType
from typing import Any, TypeVar

from samecode._validation import check_int
from samecode.errors import SamecodeError, SamecodeValueError

__all__ = ["Engine", "ProcessPool", "Serial", "WorkerError", "engine_for", "terminate_on_sigterm"]

_R = TypeVar("_R")

#: Seconds an ending pool may take to stop its own threads before its workers are killed.
_END_WAIT = 2.0


class WorkerError(SamecodeError, OSError):
    """A worker process could not be started, or died."""


class Engine(ABC):
    """Runs tasks: ``map(function, tasks)`` calls ``function(*task)`` for every task and
    yields the results in the order of ``tasks``. A context manager: leaving it ends
    whatever it started."""

    #: How many tasks run at once.
    workers: int = 1

    @abstractmethod
    def map(self, function: Callable[..., _R], tasks: Sequence[tuple[Any, ...]]) -> Iterator[_R]:
        """Yield ``function(*task)`` for each task, in order."""

    def __enter__(self) -> Engine:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        return None


class Serial(Engine):
    """Every task in this process, one after the other."""

    def map(self, function: Callable[..., _R], tasks: Sequence[tuple[Any, ...]]) -> Iterator[_R]:
        for task in tasks:
            yield function(*task)


def _ignore_interrupts() -> None:
    # The terminal sends Ctrl-C to every process of the command: the main process alone
    # decides, and ends the workers. A task's error travels back to the main process;
    # what a worker could print on its own is a broken pipe while it is being ended.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - the worker's, for its lifetime


def _call(function: Callable[..., _R], task: tuple[Any, ...]) -> _R:
    return function(*task)


class ProcessPool(Engine):
    """Tasks spread over ``workers`` processes (a :class:`multiprocessing.pool.Pool`).

    :param workers: 2 to 1024.
    :raises WorkerError: if the processes cannot be started (the message says why).
    """

    def __init__(self, workers: int) -> None:
        check_int(workers, "workers")
        if not 2 <= workers <= 1024:
            raise SamecodeValueError(f"workers must be from 2 to 1024; got {workers}")
        self.workers = workers
        self._pool: Pool | None = None

    def __enter__(self) -> ProcessPool:
        try:
            self._pool = multiprocessing.get_context().Pool(
                self.workers, initializer=_ignore_interrupts
            )
        except OSError as error:
            raise WorkerError(
                f"cannot start {self.workers} worker processes: {error.strerror or error}"
            ) from None
        return self

    def map(self, function: Callable[..., _R], tasks: Sequence[tuple[Any, ...]]) -> Iterator[_R]:
        if self._pool is None:
            raise SamecodeValueError("use the pool as a context manager: with ProcessPool(n)")
        if len(tasks) <= 1:  # nothing to spread: save the round trip
            yield from Serial().map(function, tasks)
            return
        # A few tasks ahead of the one awaited, no more: results that wait to be taken,
        # and the tasks pickled for the workers, stay bounded however many tasks there
        # are; a result is let go once taken.
        ahead = 2 * self.workers
        waiting = iter(tasks)
        pending: deque[AsyncResult[_R]] = deque(
            self._pool.apply_async(_call, (function, task)) for task in islice(waiting, ahead)
        )
        while pending:
            result = pending.popleft()
            for task in islice(waiting, 1):
                pending.append(self._pool.apply_async(_call, (function, task)))
            while True:
                try:
                    value = result.get(timeout=1.0)
                    break
                except multiprocessing.TimeoutError:
                    self._check_alive()
            del result
            yield value
            del value

    def _check_alive(self) -> None:
        # A worker killed from outside (or by the kernel) is replaced by the pool, but its
        # task is lost: say so instead of waiting for ever.
        pool = self._pool
        processes = getattr(pool, "_pool", [])
        if any(p.exitcode not in (None, 0) for p in processes):
            raise WorkerError("a worker process died (killed, or out of memory)")

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if kind is None:
            pool.close()
            pool.join()
        else:
            _end_now(pool)


def _end_now(pool: Pool) -> None:
    # Pool.terminate joins the pool's own threads. An exception raised in this thread by a
    # signal handler (SIGTERM's SystemExit, Ctrl-C's KeyboardInterrupt) can land between
    # taking and releasing a lock one of them needs, such as the one a task's result is
    # handed over with, and then that join never ends. So terminate runs aside, for at
    # most _END_WAIT seconds, and whatever it did, every worker is killed and reaped.
    ender = threading.Thread(target=pool.terminate, name="samecode-pool-end", daemon=True)
    ender.start()
    ender.join(_END_WAIT)
    workers = list(getattr(pool, "_pool", []))
    for process in workers:
        if process.exitcode is None:
            process.kill()
    for process in workers:
        process.join(_END_WAIT)


def engine_for(jobs: int) -> Engine:
    """:class:`Serial` for one job, else a :class:`ProcessPool` of ``jobs`` workers."""
    return Serial() if check_int(jobs, "jobs") == 1 else ProcessPool(jobs)


@contextmanager
def terminate_on_sigterm() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`SystemExit` (status 143) in the main
    thread, so that engines end their workers on the way out (the default action would
    end this process alone, leaving workers holding its pipes)."""

    def stop(number: int, frame: FrameType | None) -> None:
        raise SystemExit(128 + signal.SIGTERM)

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread: leave signals alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
