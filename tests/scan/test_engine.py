"""The engines: ordered results, shared objects handed over once, and a pool that ends
every worker whatever happens (an error, a dead worker, a map left early)."""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import signal
import time

import pytest

from samecode.engine import ProcessPool, Serial, WorkerError, paused_collection

FORK = multiprocessing.get_context().get_start_method() == "fork"


class Unpicklable:
    """An object that refuses to be pickled: a pool can hand it over only by fork."""

    def __init__(self, values: list[int]) -> None:
        self.values = values

    def __reduce__(self):  # type: ignore[no-untyped-def]
        raise pickle.PicklingError("not to be pickled")


def scaled(shared: Unpicklable | list[int], index: int, factor: int) -> int:
    values = shared.values if isinstance(shared, Unpicklable) else shared
    return values[index] * factor


def pid_of(_: int) -> int:
    return os.getpid()


def sleep_then(seconds: float, value: int) -> int:
    time.sleep(seconds)
    return value


def kill_myself(_: int) -> int:
    os.kill(os.getpid(), signal.SIGKILL)
    return 0


def unpicklable_result(_: int) -> object:
    return lambda: None


def test_map_shared_gives_every_task_the_object_in_order():
    values = list(range(100))
    tasks = [(i, 3) for i in reversed(range(100))]
    expected = [v * 3 for v in reversed(values)]
    with Serial() as serial:
        assert list(serial.map_shared(scaled, values, tasks)) == expected
    with ProcessPool(2) as pool:
        assert list(pool.map_shared(scaled, values, tasks)) == expected
        assert list(pool.map(divmod, [(7, 2), (9, 4), (5, 5)])) == [(3, 1), (2, 1), (1, 0)]


@pytest.mark.skipif(not FORK, reason="workers inherit the object only when forked")
def test_a_forked_pool_inherits_the_shared_object_without_pickling_it():
    shared = Unpicklable([5, 6, 7])
    with pytest.raises(pickle.PicklingError):
        pickle.dumps(shared)
    with ProcessPool(2) as pool:
        assert list(pool.map_shared(scaled, shared, [(i, 2) for i in range(3)])) == [10, 12, 14]


def test_workers_holding_a_shared_object_are_replaced_before_a_plain_map():
    with ProcessPool(2) as pool:
        first = set(pool.map(pid_of, [(i,) for i in range(8)]))
        holding = set(pool.map_shared(scaled, [1, 2], [(0, 1), (1, 1)]))
        assert holding == {1, 2}
        later = set(pool.map(pid_of, [(i,) for i in range(8)]))
        assert first.isdisjoint(later)  # new workers: the old ones let the object go
        again = set(pool.map(pid_of, [(i,) for i in range(8)]))
        assert later == again or again <= later  # plain maps reuse the workers


def shared_or_none(*args: object) -> object:
    return args[0] if len(args) == 2 else None


def test_kept_workers_receive_the_shared_object_and_let_it_go_after():
    with ProcessPool(2) as pool:
        first = set(pool.map(pid_of, [(i,) for i in range(8)]))
        tasks = [(i, 3) for i in range(6)]
        assert list(pool.map_shared(scaled, [1, 2, 3, 4, 5, 6], tasks, keep_workers=True)) == [
            3, 6, 9, 12, 15, 18,
        ]  # fmt: skip
        held = set(pool.map_shared(shared_or_none, "kept", [(i,) for i in range(6)],
                                   keep_workers=True))  # fmt: skip
        assert held == {"kept"}
        assert set(pool.map(shared_or_none, [(i,) for i in range(6)])) == {None}
        assert set(pool.map(pid_of, [(i,) for i in range(8)])) <= first  # the same workers


def test_kept_workers_that_inherited_an_object_are_replaced_first():
    with ProcessPool(2) as pool:
        assert list(pool.map_shared(scaled, [1, 2], [(0, 1), (1, 1)])) == [1, 2]
        inherited = {w.process.pid for w in pool._running}
        assert list(pool.map_shared(scaled, [3, 4], [(0, 1), (1, 1)], keep_workers=True)) == [
            3, 4,
        ]  # fmt: skip
        assert inherited.isdisjoint(w.process.pid for w in pool._running)


def test_an_object_that_cannot_travel_to_kept_workers_is_a_clear_error():
    with ProcessPool(2) as pool:
        shared = Unpicklable([5, 6, 7])
        with pytest.raises(TypeError, match="the shared object cannot be sent to the workers"):
            list(pool.map_shared(scaled, shared, [(0, 1), (1, 1)], keep_workers=True))
        assert list(pool.map(divmod, [(7, 2), (9, 4)])) == [(3, 1), (2, 1)]


def test_a_map_left_early_does_not_hold_up_the_next():
    with ProcessPool(2) as pool:
        results = pool.map(sleep_then, [(5.0 if i else 0.0, i) for i in range(6)])
        assert next(results) == 0
        results.close()  # two workers are sleeping on tasks no one wants
        started = time.monotonic()
        assert list(pool.map_shared(scaled, [4], [(0, 1), (0, 2)])) == [4, 8]
        assert time.monotonic() - started < 2


def test_a_plain_map_after_one_left_early_gets_its_own_results():
    # the workers of the map left early still hold tasks whose outcomes no one read:
    # the next map must not take them for its own
    with ProcessPool(2) as pool:
        results = pool.map(sleep_then, [(0.2, i) for i in range(6)])
        assert next(results) == 0
        results.close()
        assert list(pool.map(sleep_then, [(0.0, 10 + i) for i in range(6)])) == list(range(10, 16))
        left = pool.map(sleep_then, [(0.2, i) for i in range(6)])
        assert next(left) == 0
        del left  # abandoned without being closed: the same
        assert list(pool.map(sleep_then, [(0.0, 20 + i) for i in range(4)])) == list(range(20, 24))


def test_a_task_error_reaches_the_caller_with_its_type():
    with pytest.raises(ZeroDivisionError), ProcessPool(2) as pool:
        list(pool.map(divmod, [(1, 1), (1, 0), (2, 1)]))
    with pytest.raises(WorkerError, match="cannot be sent back"), ProcessPool(2) as pool:
        list(pool.map(unpicklable_result, [(1,), (2,)]))


def test_a_worker_killed_from_outside_is_a_clear_error_and_the_rest_are_ended():
    with ProcessPool(2) as pool:
        workers = [w.process for w in pool._running]
        with pytest.raises(WorkerError, match="a worker process died"):
            list(pool.map(kill_myself, [(1,), (2,)]))
    time.sleep(0.1)
    assert all(not process.is_alive() for process in workers)


def _stuck_then_fail() -> list[multiprocessing.process.BaseProcess]:
    with ProcessPool(2) as pool:
        workers = [w.process for w in pool._running]
        results = pool.map(sleep_then, [(0.0, 0), (60.0, 1), (60.0, 2)])
        assert next(results) == 0  # both workers now sleep on a task
        time.sleep(0.2)
        assert all(process.exitcode is None for process in workers)
        raise RuntimeError(workers)


def test_a_worker_that_died_while_idle_is_a_clear_error():
    with ProcessPool(2) as pool:
        assert list(pool.map(divmod, [(7, 2), (9, 4)])) == [(3, 1), (2, 1)]
        for worker in pool._running:
            worker.process.kill()
            worker.process.join()
        with pytest.raises(WorkerError, match="a worker process died"):
            list(pool.map(divmod, [(7, 2), (9, 4)]))


def test_leaving_on_an_error_kills_workers_stuck_in_a_task():
    started = time.monotonic()
    with pytest.raises(RuntimeError) as caught:
        _stuck_then_fail()
    assert time.monotonic() - started < 5
    assert all(process.exitcode is not None for process in caught.value.args[0])


def test_a_pool_must_be_entered():
    with pytest.raises(ValueError, match="use the pool as a context manager"):
        list(ProcessPool(2).map(divmod, [(1, 1), (2, 1)]))


def collecting(_: int) -> bool:
    return gc.isenabled()


def _pool_collecting_then_failing() -> None:
    with paused_collection():
        assert not gc.isenabled()
        with ProcessPool(2) as pool:
            assert list(pool.map(collecting, [(1,), (2,)])) == [False, False]
        raise KeyError("left on an error")


def test_collection_is_paused_in_the_block_and_its_workers_and_back_after_an_error():
    with pytest.raises(KeyError):
        _pool_collecting_then_failing()
    assert gc.isenabled()


def test_collection_off_before_the_block_stays_off():
    gc.disable()
    try:
        with paused_collection():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
