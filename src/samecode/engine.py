"""Where the pipeline's stages run: in this process, or in a pool of worker processes.

An :class:`Engine` maps a plain, picklable function over a list of argument tuples and
yields the results **in the order of the tasks**, whatever order they finish in; the
pipeline merges results in that order, so its output is the same for any engine, any
number of workers and any batch size. :meth:`Engine.map_shared` also hands every task one
object that does not change while the map runs (the job's sets, say): a process pool's
workers inherit it once (Spark's broadcast variables, for processes) instead of receiving
a copy with every task, or, asked to keep the workers running, each receives one copy.

:class:`ProcessPool` is driven from the main thread alone (no helper threads, so a signal
can never leave one holding a lock), and ends its workers at once when the job ends
early: on an error, on Ctrl-C (workers ignore SIGINT; the main process turns it into
:class:`KeyboardInterrupt` and kills them) and on SIGTERM (see
:func:`terminate_on_sigterm`), so no worker outlives the command.

>>> with Serial() as engine:
...     list(engine.map(pow, [(2, 3), (3, 2)]))
[8, 9]
>>> with Serial() as engine:
...     list(engine.map_shared(divmod, 17, [(5,), (3,)]))
[(3, 2), (5, 2)]
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import socket
import sys
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from functools import partial
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from multiprocessing.reduction import ForkingPickler
from types import FrameType, TracebackType
from typing import Any, Literal, TypeVar

from samecode._kernels import preload
from samecode._validation import check_int
from samecode.errors import SamecodeError, SamecodeTypeError, SamecodeValueError

__all__ = [
    "Engine",
    "ProcessPool",
    "Progress",
    "RunOptions",
    "Serial",
    "WorkerError",
    "engine_for",
    "paused_collection",
    "progress_counter",
    "terminate_on_sigterm",
]

_R = TypeVar("_R")
_T = TypeVar("_T")

#: Seconds a worker may take to leave once told to, before it is killed.
_END_WAIT = 2.0
#: The most bytes of a task (pickled) sent to a worker that holds one already, and at
#: most a quarter of what its pipe holds unread (:func:`_pipe_room`): the task waits in
#: the pipe whole, so sending it never blocks while the worker may itself be sending a
#: large outcome that this process is not reading (a pipe of some 200 KB on Linux takes
#: 16 KB; one of 8 KB, macOS's, 2 KB; one that cannot be asked, none).
_SECOND_TASK_BYTES = 16 << 10


#: How a progress callback is called: ``(stage, done, total)``; each stage (a scan's
#: ``read``, ``count``, ``key``, ``join``, ``verify`` and ``classes``, say) has its own count.
Progress = Callable[[str, int, int], None]


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

    def map_shared(
        self,
        function: Callable[..., _R],
        shared: Any,
        tasks: Sequence[tuple[Any, ...]],
        *,
        keep_workers: bool = False,
    ) -> Iterator[_R]:
        """Yield ``function(shared, *task)`` for each task, in order. ``shared`` must not
        change until the results are taken; an engine may hand it over once rather than
        with every task (this one sends it with each). ``keep_workers`` asks an engine
        of worker processes to keep those running (what they imported and cached stays)
        and send each one copy of ``shared``, rather than start fresh ones that inherit
        it: for an object small beside what the workers would do again."""
        return self.map(partial(function, shared), tasks)

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


class _Share:
    """A message to a worker: hand ``shared`` to the tasks that follow (``None``: no
    object)."""

    __slots__ = ("shared",)

    def __init__(self, shared: Any) -> None:
        self.shared = shared


def _serve(connection: Connection, shared: Any, main_end: Connection | None = None) -> None:
    """A worker: run each ``(function, task)`` received, send back ``(True, result)`` or
    ``(False, error)``, until ``None`` (or the main process's end of the pipe closing);
    a :class:`_Share` replaces the object handed to the tasks. ``main_end``: the main
    process's end of the pipe, which a forked worker inherits, and closes."""
    # A forked worker holds a copy of the main process's end of its own pipe: kept open,
    # the pipe would never close for it, and a worker whose main process was killed
    # (SIGKILL, out of memory) would wait for a task for ever. Closed, it reads the end
    # of the pipe and leaves (and, leaving, closes its copies of the ends of the workers
    # started before it, which then leave too).
    if main_end is not None:
        main_end.close()
    # The terminal sends Ctrl-C to every process of the command: the main process alone
    # decides, and ends the workers. A task's error travels back to the main process;
    # what a worker could print on its own is a broken pipe while it is being ended.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - the worker's, for its lifetime
    while True:
        try:
            message = connection.recv()
        except EOFError:
            return
        if message is None:
            return
        if isinstance(message, _Share):
            shared = message.shared
            del message
            continue
        function, task = message
        try:
            outcome: tuple[bool, Any] = (
                True,
                function(*task) if shared is None else function(shared, *task),
            )
        except Exception as error:  # every task's error goes back
            outcome = (False, error)
        del message, function, task
        try:
            connection.send(outcome)
        except Exception as error:  # an unpicklable result or error
            connection.send((False, WorkerError(f"a task's outcome cannot be sent back: {error}")))


class _Worker:
    """One worker process and the main process's end of its pipe."""

    __slots__ = ("connection", "held", "process", "room")

    def __init__(self, process: BaseProcess, connection: Connection) -> None:
        self.process = process
        self.connection = connection
        # the numbers of the tasks it holds whose outcomes were not taken, in the order
        # sent (a worker runs its tasks in that order)
        self.held: deque[int] = deque()
        self.room: int | None = None  # _pipe_room of its pipe, once asked

    @property
    def busy(self) -> bool:
        """Whether it holds a task whose outcome was not taken."""
        return bool(self.held)


def _pipe_room(connection: Connection) -> int:
    """The bytes the main process's end of a worker's pipe holds unread, the smaller of
    its send and receive buffers; 0 where that cannot be asked (a pipe that is not a
    socket, as on Windows)."""
    try:
        with socket.fromfd(connection.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as end:
            sending = end.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
            receiving = end.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    except (AttributeError, OSError, ValueError):
        return 0
    return min(sending, receiving)


def _second_task_bytes(worker: _Worker) -> int:
    """The most bytes of a task (pickled) that may wait in ``worker``'s pipe while it
    runs another (:data:`_SECOND_TASK_BYTES`)."""
    if worker.room is None:
        worker.room = _pipe_room(worker.connection)
    return min(_SECOND_TASK_BYTES, worker.room // 4)


class ProcessPool(Engine):
    """Tasks spread over ``workers`` processes, each fed through a pipe of its own: a
    task at a time, and a second small one waiting while many are left (so that a
    worker never waits for this process between two tasks); the last ones go to
    whichever worker is free.

    :meth:`map_shared` starts fresh workers that hold the shared object: with the
    ``fork`` start method (Linux's default) they inherit it, copy-on-write, at no cost;
    with another, each worker receives one copy. With ``keep_workers``, the workers
    running receive one copy each and keep it until the next map. Other maps reuse the
    workers running. Forked workers also inherit numpy's kernels, loaded before they
    start where the kernels would use them (:func:`~samecode._kernels.preload`; some 0.05
    s once a process, which a job that never reaches them pays for nothing).

    :param workers: 2 to 1024.
    :raises WorkerError: if the processes cannot be started (the message says why).
    """

    def __init__(self, workers: int) -> None:
        check_int(workers, "workers")
        if not 2 <= workers <= 1024:
            raise SamecodeValueError(f"workers must be from 2 to 1024; got {workers}")
        self.workers = workers
        self._entered = False
        self._running: list[_Worker] = []
        # whether the running workers hold a shared object they inherited, or were sent
        self._holding: Literal["", "inherited", "sent"] = ""

    def __enter__(self) -> ProcessPool:
        self._entered = True
        self._start(None)
        return self

    def _start(self, shared: Any) -> None:
        """Start the workers (the running ones told to leave first)."""
        self._stop()
        context = multiprocessing.get_context()
        forking = context.get_start_method() == "fork"
        if forking:
            # Each worker would import numpy at its first task (some 0.05 s), and this
            # process again for what it does with their outcomes: imported here once,
            # they inherit it (--jobs 2 over the four standard libraries: 3.66 -> 3.56 s).
            preload()
            gc.freeze()  # the children never collect what they inherit: no page copied
        try:
            for _ in range(self.workers):
                mine, theirs = context.Pipe()
                inherited = mine if forking else None
                process = context.Process(
                    target=_serve, args=(theirs, shared, inherited), daemon=True
                )
                process.start()
                self._running.append(_Worker(process, mine))
                theirs.close()
        except OSError as error:
            self._kill()
            raise WorkerError(
                f"cannot start {self.workers} worker processes: {error.strerror or error}"
            ) from None
        finally:
            if forking:
                gc.unfreeze()
        self._holding = "" if shared is None else "inherited"

    def map(self, function: Callable[..., _R], tasks: Sequence[tuple[Any, ...]]) -> Iterator[_R]:
        if not self._entered:
            raise SamecodeValueError("use the pool as a context manager: with ProcessPool(n)")
        if len(tasks) <= 1:  # nothing to spread: save the round trip
            yield from Serial().map(function, tasks)
            return
        self._ready()
        if self._holding == "sent":  # let go of the object the last map sent
            self._hand(None)
        yield from self._spread(function, tasks)

    def map_shared(
        self,
        function: Callable[..., _R],
        shared: Any,
        tasks: Sequence[tuple[Any, ...]],
        *,
        keep_workers: bool = False,
    ) -> Iterator[_R]:
        """As :meth:`Engine.map_shared`.

        :raises TypeError: with ``keep_workers``, if ``shared`` cannot be pickled (when
            the results are first asked for).
        """
        if not self._entered:
            raise SamecodeValueError("use the pool as a context manager: with ProcessPool(n)")
        if shared is None or len(tasks) <= 1:
            return super().map_shared(function, shared, tasks)
        return self._shared_map(function, shared, tasks, keep_workers)

    def _shared_map(
        self,
        function: Callable[..., _R],
        shared: Any,
        tasks: Sequence[tuple[Any, ...]],
        keep_workers: bool,
    ) -> Iterator[_R]:
        if keep_workers:
            self._ready()
            self._hand(shared)
        else:
            self._start(shared)
        yield from self._spread(function, tasks)

    def _ready(self) -> None:
        """Start fresh workers where there are none, where they inherited a shared
        object (letting go of it would copy its pages, one by one), or where some are
        still on tasks of a map left early (their outcomes, unread, would be taken for
        this map's)."""
        stale = any(w.busy for w in self._running) or self._holding == "inherited"
        if stale or not self._running:
            self._start(None)

    def _hand(self, shared: Any) -> None:
        """Send every running worker ``shared``, for the tasks that follow."""
        try:
            message = ForkingPickler.dumps(_Share(shared))  # once for all the workers
        except Exception as error:  # the object cannot travel
            raise SamecodeTypeError(
                f"the shared object cannot be sent to the workers: {error}"
            ) from None
        for worker in self._running:
            try:
                worker.connection.send_bytes(message)
            except (BrokenPipeError, ConnectionResetError):
                raise WorkerError("a worker process died (killed, or out of memory)") from None
        self._holding = "" if shared is None else "sent"

    def _send(self, worker: _Worker, message: bytes, number: int) -> None:
        try:
            worker.connection.send_bytes(message)
        except (BrokenPipeError, ConnectionResetError):
            raise WorkerError("a worker process died (killed, or out of memory)") from None
        worker.held.append(number)

    def _spread(
        self, function: Callable[..., _R], tasks: Sequence[tuple[Any, ...]]
    ) -> Iterator[_R]:
        # A few results ahead of the one awaited, no more: results that wait to be taken
        # stay bounded however many tasks there are, and a result is let go once taken.
        # A worker holds a second, small task while many are left, so that it starts it
        # as it ends the first rather than after a round trip through this process
        # (which may be busy reading another worker's outcome). The last tasks go to
        # whichever worker is free, one at a time.
        ahead = 4 * self.workers
        running = self._running
        done: dict[int, _R] = {}
        sent = taken = 0
        message = b""  # tasks[sent], pickled once asked for
        while taken < len(tasks):
            while sent < len(tasks) and sent < taken + ahead:
                worker = min(running, key=lambda w: len(w.held))  # a free one first
                if worker.held and (len(worker.held) > 1 or len(tasks) - sent <= self.workers):
                    break
                message = message or bytes(ForkingPickler.dumps((function, tasks[sent])))
                if worker.held and len(message) > _second_task_bytes(worker):
                    break
                self._send(worker, message, sent)
                sent += 1
                message = b""
            if taken in done:
                value = done.pop(taken)
                taken += 1
                yield value
                del value
                continue
            # A worker that dies closes its end of the pipe: the pipe is then readable
            # and says so (EOF).
            holding: dict[Any, _Worker] = {w.connection: w for w in running if w.held}
            for ready in wait(list(holding), timeout=1.0):
                worker = holding[ready]
                try:
                    ok, outcome = worker.connection.recv()
                except (EOFError, OSError):
                    raise WorkerError("a worker process died (killed, or out of memory)") from None
                number = worker.held.popleft()
                if not ok:
                    raise outcome
                done[number] = outcome

    def _stop(self) -> None:
        """Tell the running workers to leave, and wait for them (killed if they do not
        within :data:`_END_WAIT` seconds)."""
        running, self._running = self._running, []
        for worker in running:
            if worker.busy:  # a map left early: its task's outcome is not wanted
                worker.process.kill()
            with suppress(OSError):  # already gone
                worker.connection.send(None)
        for worker in running:
            worker.process.join(_END_WAIT)
            if worker.process.exitcode is None:
                worker.process.kill()
                worker.process.join(_END_WAIT)
            worker.connection.close()

    def _kill(self) -> None:
        """Kill the running workers at once, and reap them."""
        running, self._running = self._running, []
        for worker in running:
            if worker.process.exitcode is None:
                worker.process.kill()
        for worker in running:
            worker.process.join(_END_WAIT)
            worker.connection.close()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._entered = False
        if kind is None:
            self._stop()
        else:
            self._kill()


def engine_for(jobs: int) -> Engine:
    """:class:`Serial` for one job, else a :class:`ProcessPool` of ``jobs`` workers."""
    return Serial() if check_int(jobs, "jobs") == 1 else ProcessPool(jobs)


@contextmanager
def paused_collection() -> Iterator[None]:
    """Within the block, no cyclic garbage collection: objects are still freed as their
    last reference goes, but the collector does not walk every live object again and
    again while a job builds its results (hundreds of thousands of regions and matches
    held at once made it some 4 % of a scan of fragments, in the one process that cannot
    share it out). Workers forked within the block inherit the pause. Cyclic garbage
    made meanwhile is collected after the block, by the collector's next run; the
    pipeline's stages make none. Nothing changes where collection was off already.

    >>> import gc
    >>> with paused_collection():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@contextmanager
def terminate_on_sigterm() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`SystemExit` (status 143) in the main
    thread, so that engines end their workers on the way out (the default action would
    end this process alone, leaving workers holding its pipes) and
    :func:`~samecode.fragments.tree.scan_fragments` removes its scratch folder. Outside
    the main thread, signals are left alone."""

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


@dataclass(frozen=True)
class RunOptions:
    """How a job runs, apart from what it computes: every entry point's output is the
    same for any of these values.

    :param jobs: processes that run the stages (1: this process).
    :param batch_size: files read per task, and about as many documents keyed or
        verified per task.
    :raises TypeError, ValueError: for a bad option, at construction.

    >>> RunOptions(jobs=2).batches(list(range(70)))[-1]
    [64, 65, 66, 67, 68, 69]
    >>> RunOptions(jobs=0)
    Traceback (most recent call last):
    ...
    samecode.errors.SamecodeValueError: jobs must be from 1 to 1024; got 0
    """

    jobs: int = 1
    batch_size: int = 32

    def __post_init__(self) -> None:
        check_int(self.jobs, "jobs")
        if not 1 <= self.jobs <= 1024:
            raise SamecodeValueError(f"jobs must be from 1 to 1024; got {self.jobs}")
        check_int(self.batch_size, "batch_size")
        if not 1 <= self.batch_size <= 1 << 20:
            raise SamecodeValueError(
                f"batch_size must be from 1 to {1 << 20}; got {self.batch_size}"
            )

    def engine(self, tasks: int) -> Engine:
        """The engine for a job of ``tasks`` items: a pool of :attr:`jobs` processes,
        or this process when there is one item or none (nothing to spread)."""
        return engine_for(self.jobs if tasks > 1 else 1)

    def batches(self, items: Sequence[_T]) -> list[Sequence[_T]]:
        """``items`` cut into tasks of :attr:`batch_size`, in order."""
        size = self.batch_size
        return [items[start : start + size] for start in range(0, len(items), size)]


def progress_counter(progress: Progress | None, stage: str, total: int) -> Callable[[int], None]:
    """Say ``progress(stage, 0, total)`` now, and return a function that adds a count of
    items done to the stage's and says ``progress(stage, done, total)`` (``done`` capped at
    ``total``); nothing is said where ``progress`` is ``None``. Every stage of the scan,
    of fragments and of the corpus reports through one.

    :param progress: called as ``progress(stage, done, total)``, or ``None``.
    :param stage: the stage's name.
    :param total: how many items the stage has.

    >>> said = []
    >>> tick = progress_counter(lambda *a: said.append(a), "read", 5)
    >>> tick(2); tick(4)
    >>> said
    [('read', 0, 5), ('read', 2, 5), ('read', 5, 5)]
    """
    done = [0]

    def tick(count: int) -> None:
        done[0] += count
        if progress is not None:
            progress(stage, min(done[0], total), total)

    if progress is not None:
        progress(stage, 0, total)
    return tick
