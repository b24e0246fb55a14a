"""The keyed pipeline: any partitioning of the documents, any number of partitions and
any engine give the brute-force answer of every exact method, byte for byte the same."""

from __future__ import annotations

import dataclasses
import itertools
import json
import multiprocessing
import random
import time
from array import array
from fractions import Fraction
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_scan import brute

from samecode.engine import ProcessPool, RunOptions, Serial, WorkerError, engine_for
from samecode.errors import SamecodeError
from samecode.scan import Document, ScanOptions, scan
from samecode.scan.candidates import Method, all_pairs, method, method_names, owned
from samecode.scan.join import ShingleCounts
from samecode.scan.pipeline import (
    count_shingles,
    join_sets,
    key_documents,
    propose_partition,
    run_pipeline,
    verify_pairs,
)
from samecode.sources.walk import WalkOptions

# Small alphabets make many shared shingles, ties and near-copies.
set_lists = st.lists(
    st.lists(st.integers(0, 30), min_size=1, max_size=25).map(
        lambda xs: array("Q", sorted({(x * 0x9E3779B97F4A7C15) % 2**64 for x in xs}))
    ),
    max_size=20,
)
thresholds = st.fractions(min_value=Fraction(1, 10), max_value=1, max_denominator=10)


def split(items, cuts):
    """``items`` cut at the given positions (a random partitioning)."""
    bounds = sorted({min(c, len(items)) for c in cuts} | {0, len(items)})
    return [items[a:b] for a, b in itertools.pairwise(bounds)]


@given(
    set_lists,
    thresholds,
    st.sampled_from(["jaccard", "containment"]),
    st.lists(st.integers(0, 20), max_size=4),
    st.lists(st.integers(0, 20), max_size=4),
    st.integers(1, 5),
)
@settings(max_examples=300, deadline=None)
def test_stages_over_random_partitions_match_brute_force(
    sets, threshold, measure, count_cuts, key_cuts, partitions
):
    ids = list(range(len(sets)))
    bits = ShingleCounts.for_total(sum(map(len, sets))).bits
    # count: each part on its own, merged in any grouping, equals counting all at once
    counts = ShingleCounts(bits)
    for part in split(ids, count_cuts):
        counts = counts.merge(count_shingles([sets[i] for i in part], bits))
    assert counts == count_shingles(sets, bits)
    prepared = method("exact").prepare(threshold, measure, counts=counts, documents=len(sets))
    # key: documents in other parts, records sent to `partitions` partitions by key
    table = {}
    records = [(array("Q"), array("q"), array("q")) for _ in range(partitions)]
    for part in split(ids, key_cuts):
        keyed, parts = key_documents(prepared, [(i, sets[i]) for i in part], partitions)
        table.update(keyed)
        for mine, theirs in zip(records, parts):
            for column, more in zip(mine, theirs):
                column.extend(more)
    candidates = []
    for part in records:
        candidates += propose_partition(prepared, part, table)
    assert len(candidates) == len(set(candidates))  # every pair proposed once
    got = verify_pairs(sorted(candidates), dict(enumerate(sets)), threshold, measure)
    assert got == brute(sets, threshold, measure)


@dataclasses.dataclass(frozen=True)
class TinyBlocks(type(method("exact"))):  # type: ignore[misc]
    """The exact method with groups split into blocks of 2."""

    name: ClassVar[str] = "exact-tiny-blocks"
    block: ClassVar[int] = 2

    def prepare(self, threshold, measure, *, counts=None, documents=0):
        prepared = super().prepare(threshold, measure, counts=counts, documents=documents)
        return TinyBlocks(prepared.threshold, prepared.measure, prepared.order)


class Everything(Method):
    """One key for every document: every pair proposed once."""

    name = "all-pairs"
    exact = True

    def keys(self, shingles):
        return ([0],)

    def propose(self, members, table, others=None, cache=None):
        return all_pairs(members, others)


def documents_of(sets):
    return [Document(f"d{i:03}", 1, "x", len(s), s) for i, s in enumerate(sets)]


def answer(pairs):
    return [(p.a, p.b, p.shared, p.notes) for p in pairs]


@given(set_lists, thresholds)
@settings(max_examples=100, deadline=None)
def test_oversized_groups_compared_block_against_block_miss_nothing(sets, threshold):
    documents = documents_of(sets)
    expected = answer(run_pipeline(documents, ScanOptions(threshold=threshold)))
    assert (
        answer(run_pipeline(documents, ScanOptions(threshold=threshold, method=TinyBlocks())))
        == expected
    )
    assert (
        answer(run_pipeline(documents, ScanOptions(threshold=threshold, method=Everything())))
        == expected
    )


def test_blocks_pair_a_larger_member_with_a_smaller_one_in_a_later_block():
    # The smaller set of a pair may sit in either block; seeded cases that reach it.
    rng = random.Random(5)
    for _ in range(300):
        sets = []
        for _ in range(rng.randint(3, 20)):
            values = {rng.randint(0, 30) for _ in range(rng.randint(1, 25))}
            sets.append(array("Q", sorted((v * 0x9E3779B97F4A7C15) % 2**64 for v in values)))
        threshold = Fraction(rng.randint(1, 10), 10)
        documents = documents_of(sets)
        expected = [
            (f"d{i:03}", f"d{j:03}", shared) for i, j, shared in brute(sets, threshold, "jaccard")
        ]
        got = run_pipeline(documents, ScanOptions(threshold=threshold, method=TinyBlocks()))
        assert [(p.a, p.b, p.shared) for p in got] == expected


def near_copies(seed, count=40):
    rng = random.Random(seed)
    base = [rng.getrandbits(64) for _ in range(300)]
    sets = []
    for _ in range(count):
        keep = [v for v in base if rng.random() < 0.9] + [rng.getrandbits(64) for _ in range(20)]
        sets.append(array("Q", sorted(set(keep))))
    sets += [sets[3], sets[3]]  # identical copies
    sets += [array("Q", sorted(rng.getrandbits(64) for _ in range(200))) for _ in range(10)]
    return sets


def test_a_process_pool_gives_the_same_answer_for_any_batch_size():
    documents = documents_of(near_copies(1))
    for name in [*method_names(), Everything()]:
        options = ScanOptions(method=name, threshold=Fraction(7, 10))
        expected = answer(run_pipeline(documents, options))
        assert expected
        with ProcessPool(2) as engine:
            for batch in (1, 7, 64):
                batched = dataclasses.replace(options, run=RunOptions(jobs=2, batch_size=batch))
                assert answer(run_pipeline(documents, batched, engine)) == expected, (name, batch)


def test_scan_output_is_identical_for_jobs_and_batch_sizes(tmp_path):
    for i, s in enumerate(near_copies(2, 12)):
        words = " ".join(f"w{v % 997}" for v in s)
        (tmp_path / f"f{i:02}.txt").write_text(words)
    runs = set()
    for jobs, batch in [(1, 32), (2, 1), (2, 5), (3, 2)]:
        result = scan(
            [str(tmp_path)],
            ScanOptions(
                walk=WalkOptions(gitignore=False), run=RunOptions(jobs=jobs, batch_size=batch)
            ),
        )
        runs.add(json.dumps(answer(result.pairs)) + json.dumps([c.members for c in result.classes]))
    assert len(runs) == 1
    assert result.pairs


def test_progress_counts_every_stage(tmp_path):
    for i in range(6):
        (tmp_path / f"f{i}.txt").write_text(" ".join(f"w{j}" for j in range(i, i + 60)))
    seen = {}
    scan(
        [str(tmp_path)],
        ScanOptions(walk=WalkOptions(gitignore=False)),
        lambda s, d, t: seen.__setitem__(s, (d, t)),
    )
    assert list(seen) == ["read", "count", "key", "join", "verify", "classes"]
    assert all(done == total for done, total in seen.values())
    assert seen["read"] == (6, 6)


def test_owned_picks_the_first_shared_key():
    table = {1: ([5, 8, 9],), 2: ([8, 9],), 3: ([2, 9],)}
    # 1 and 2 share 8 then 9: the group of 8 proposes them, the group of 9 does not
    assert owned((1, 1), (2, 0), table)
    assert not owned((1, 2), (2, 1), table)
    assert owned((1, 2), (3, 1), table)


def test_engines():
    with Serial() as engine:
        assert list(engine.map(divmod, [(7, 2), (9, 4)])) == [(3, 1), (2, 1)]
    with ProcessPool(2) as engine:
        assert list(engine.map(divmod, [(7, 2), (9, 4), (5, 5)])) == [(3, 1), (2, 1), (1, 0)]
    assert isinstance(engine_for(1), Serial)
    with pytest.raises(ValueError, match="workers must be from 2 to 1024; got 1"):
        ProcessPool(1)
    with pytest.raises(TypeError, match="workers must be an int"):
        ProcessPool("2")  # type: ignore[arg-type]


def test_an_error_in_a_worker_reaches_the_caller_and_ends_the_pool():
    with pytest.raises(ZeroDivisionError), ProcessPool(2) as engine:
        list(engine.map(divmod, [(1, 0), (2, 1)]))


def test_workers_that_cannot_start_are_one_clear_error(monkeypatch):
    real = multiprocessing.get_context()
    started = []

    class NoSecondFork:  # the first worker starts, the second cannot
        def __getattr__(self, name):
            return getattr(real, name)

        def Process(self, *args, **kwargs):
            if started:
                raise BlockingIOError(11, "Resource temporarily unavailable")
            started.append(real.Process(*args, **kwargs))
            return started[-1]

    monkeypatch.setattr(multiprocessing, "get_context", lambda *a: NoSecondFork())
    with pytest.raises(WorkerError, match="cannot start 2 worker processes") as caught:
        ProcessPool(2).__enter__()
    assert isinstance(caught.value, SamecodeError)
    assert started[0].exitcode is not None  # the one that started was ended


def test_flags_must_be_booleans():
    for flag in ("gitignore", "default_excludes", "follow_symlinks"):
        with pytest.raises(TypeError, match=f"{flag} must be True or False; got str 'no'"):
            WalkOptions(**{flag: "no"})
    with pytest.raises(TypeError, match="walk must be a WalkOptions; got dict"):
        ScanOptions(walk={"gitignore": False})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="run must be a RunOptions; got int"):
        ScanOptions(run=2)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="batch_size must be from 1"):
        ScanOptions(run=RunOptions(batch_size=0))
    with pytest.raises(TypeError, match="method must be a name or a Method"):
        ScanOptions(method=3)  # type: ignore[arg-type]


def test_keys_must_be_unsigned_64_bit_ints():
    class Negative(Everything):
        name = "negative"

        def keys(self, shingles):
            return ([5, -1],)

    with pytest.raises(ValueError, match=r"keys of method 'negative' must be ints from 0 to "):
        key_documents(Negative(), [(0, array("Q", [1]))], 1)
    with pytest.raises(ValueError, match=r"got int -1"):
        key_documents(Negative(), [(0, array("Q", [1]))], 3)

    class Named(Everything):
        name = "named"

        def keys(self, shingles):
            return ([5, "five"],)

    for partitions in (1, 2):
        with pytest.raises(ValueError, match=r"keys of method 'named' .* got str 'five'"):
            key_documents(Named(), [(0, array("Q", [1]))], partitions)


def test_wide_table_keys_are_digested_to_64_bits_one_per_table_and_key():
    from samecode.hamming.plan import Plan, even_blocks

    halo = method("halo").prepare(Fraction(4, 5), "jaccard", documents=2)
    wide = dataclasses.replace(halo, plan=Plan(128, 1, even_blocks(128, 2), ((0,), (1,))))

    class Fixed(type(wide)):  # a 128-bit fingerprint of our choosing: its two blocks
        def fingerprint(self, shingles):
            return int(shingles[0]) << 64 | int(shingles[1])

    fixed = Fixed(wide.distance, wide.plan)
    a = fixed.keys(array("Q", [1, 12345]))[0]
    b = fixed.keys(array("Q", [7, 12345]))[0]  # same low block, other high block
    c = fixed.keys(array("Q", [12345, 1]))[0]  # the blocks swapped between tables
    assert all(0 <= k < 1 << 64 for k in a + b + c)
    assert a[0] == b[0]
    assert a[1] != b[1]
    assert not set(a) & set(c)


def test_join_sets_verifies_only_the_pairs_it_keeps():
    sets = dict(enumerate(near_copies(3, 6)))
    everything = join_sets(sets, Fraction(7, 10), "jaccard", method("exact"))
    assert everything == sorted(everything)
    assert len(everything) > 3
    odd_even = join_sets(
        sets, Fraction(7, 10), "jaccard", method("exact"), keep=lambda a, b: (a + b) % 2 == 1
    )
    assert odd_even == [p for p in everything if (p[0] + p[1]) % 2 == 1]
    with ProcessPool(2) as engine:
        assert join_sets(sets, Fraction(7, 10), "jaccard", method("exact"), engine) == everything


def test_tasks_and_partitions_bounded_by_shingles_give_the_same_answer(monkeypatch):
    from samecode.scan import pipeline

    documents = documents_of(near_copies(4, 30))
    options = ScanOptions(threshold=Fraction(7, 10), run=RunOptions(jobs=2))
    expected = answer(run_pipeline(documents, options))
    cut = []
    real = pipeline._balanced
    monkeypatch.setattr(pipeline, "_TASK_SHINGLES", 500)
    monkeypatch.setattr(pipeline, "_PARTITION_SHINGLES", 2000)
    monkeypatch.setattr(pipeline, "_balanced", lambda *a: cut.append(a[2]) or real(*a))
    with ProcessPool(2) as engine:
        assert answer(run_pipeline(documents, options, engine)) == expected
    assert max(cut) > 10  # the tasks were many, not one per worker


def test_a_pool_keeps_a_few_tasks_ahead_not_every_task():
    with ProcessPool(2) as engine:
        submitted = []
        real = engine._send
        engine._send = lambda *a: submitted.append(1) or real(*a)
        results = engine.map(divmod, [(i, 1) for i in range(50)])
        assert next(results) == (0, 0)
        assert len(submitted) <= 8  # eight results ahead of the one awaited, at most
        assert list(results) == [(i, 0) for i in range(1, 50)]
        assert len(submitted) == 50


def _sends(engine: ProcessPool) -> list[tuple[int, int, int]]:
    """Record ``(task number, tasks the worker held before, bytes)`` of every send."""
    seen: list[tuple[int, int, int]] = []
    real = engine._send

    def send(worker: Any, message: bytes, number: int) -> None:
        seen.append((number, len(worker.held), len(message)))
        real(worker, message, number)

    engine._send = send  # type: ignore[method-assign]
    return seen


def _slept(number: int, seconds: float) -> int:
    time.sleep(seconds)
    return number


def test_a_pool_worker_holds_a_second_small_task_but_not_the_last_ones():
    with ProcessPool(2) as engine:
        seen = _sends(engine)
        # uneven tasks: a worker's two outcomes come back while the other's are pending
        tasks = [(n, 0.002 * (n % 7)) for n in range(40)]
        assert list(engine.map(_slept, tasks)) == list(range(40))
    assert sorted(number for number, _, _ in seen) == list(range(40))
    assert all(held <= 1 for _, held, _ in seen)
    assert any(held == 1 for _, held, _ in seen)  # a second task waited in a pipe
    # the last two (one per worker) went to a free worker only
    assert all(held == 0 for number, held, _ in seen if number >= 38)


def test_a_pool_sends_a_large_task_to_a_free_worker_only():
    from samecode import engine as engine_module

    big = "x" * (engine_module._SECOND_TASK_BYTES + 1)
    with ProcessPool(2) as engine:
        seen = _sends(engine)
        assert list(engine.map(len, [(big,) for _ in range(30)])) == [len(big)] * 30
    assert all(held == 0 for _, held, size in seen if size > engine_module._SECOND_TASK_BYTES)
    assert len(seen) == 30


def test_a_pool_raises_a_task_error_with_tasks_still_held_then_runs_the_next_map():
    with ProcessPool(2) as engine:
        with pytest.raises(ZeroDivisionError):
            list(engine.map(divmod, [(1, 0 if i == 3 else 1) for i in range(40)]))
        assert list(engine.map(divmod, [(i, 1) for i in range(20)])) == [(i, 0) for i in range(20)]


def test_pipe_room_is_the_smaller_buffer_and_a_second_task_a_quarter_of_it():
    import socket

    from samecode import engine as engine_module

    main_end, worker_end = multiprocessing.Pipe()
    with main_end, worker_end:
        room = engine_module._pipe_room(main_end)
        assert room >= 4 * engine_module._SECOND_TASK_BYTES  # Linux: some 200 KB
        with socket.fromfd(main_end.fileno(), socket.AF_UNIX, socket.SOCK_STREAM) as end:
            end.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            smaller = end.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
        assert engine_module._pipe_room(main_end) == smaller < room
    with ProcessPool(2) as pool:
        worker = pool._running[0]
        worker.room = 8192
        assert engine_module._second_task_bytes(worker) == 2048
        worker.room = 0  # a pipe that is not a socket: no second task
        assert engine_module._second_task_bytes(worker) == 0
        worker.room = None
        assert engine_module._second_task_bytes(worker) == engine_module._SECOND_TASK_BYTES
