"""Compare tasks: every pair in one task, written hub first; a task's files within the
budget unless it is one pair; the dearest tasks first; bad arguments refused."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.tasks import TASK_TOKENS, compare_tasks


@st.composite
def pairs_and_sizes(draw):
    sizes = draw(st.lists(st.integers(1, 60), min_size=1, max_size=25))
    files = st.integers(0, len(sizes) - 1)
    drawn = draw(st.lists(st.tuples(files, files), max_size=80))
    return sorted({(min(pair), max(pair)) for pair in drawn}), sizes


def _cost(task, sizes):
    return sum(sizes[i] + sizes[j] for i, j in task)


@given(pairs_and_sizes(), st.integers(1, 4), st.integers(1, 200))
@example(([(0, 0), (0, 1)], [5, 5]), 1, 4)  # a pair of one file; both over the budget
def test_every_pair_once_within_the_budget_dearest_first(drawn, workers, most):
    pairs, sizes = drawn
    tasks = compare_tasks(pairs, sizes, workers, most)
    got = [pair for task in tasks for pair in task]
    assert sorted((min(pair), max(pair)) for pair in got) == pairs  # each once
    assert all((sizes[hub], hub) >= (sizes[other], other) for hub, other in got)
    assert all(task for task in tasks)
    for task in tasks:
        files = {file for pair in task for file in pair}
        assert len(task) == 1 or sum(sizes[file] for file in files) <= most
    costs = [_cost(task, sizes) for task in tasks]
    assert costs == sorted(costs, reverse=True)
    if workers > 1 and pairs:
        share = _cost(pairs, sizes) / (16 * workers)
        # a task ends once it holds its share: all but its last pair are below it
        assert all(_cost(task[:-1], sizes) < share for task in tasks)


@given(pairs_and_sizes())
def test_one_worker_and_room_enough_make_one_task(drawn):
    pairs, sizes = drawn
    tasks = compare_tasks(pairs, sizes, 1, sum(sizes))
    assert tasks == ([] if not pairs else [[pair for task in tasks for pair in task]])


def test_a_hubs_pairs_come_together_largest_hub_first():
    sizes = [10, 500, 20, 300, 30]
    pairs = [(0, 1), (0, 3), (1, 2), (2, 3), (1, 4), (3, 4)]
    assert compare_tasks(pairs, sizes, 1) == [[(1, 0), (1, 2), (1, 4), (3, 0), (3, 2), (3, 4)]]
    # 500 + 10 + 20 + 30 tokens for the hub 1; then the hub 3 with its three
    assert compare_tasks(pairs, sizes, 1, most_tokens=600) == [
        [(1, 0), (1, 2), (1, 4)],
        [(3, 0), (3, 2), (3, 4)],
    ]


def test_the_default_budget_is_stated():
    assert TASK_TOKENS == 400_000
    half = TASK_TOKENS // 2
    assert compare_tasks([(0, 1), (2, 3)], [half, half, 1, 1], 1) == [[(1, 0)], [(3, 2)]]
    assert compare_tasks([(0, 1), (2, 3)], [half, half - 2, 1, 1], 1) == [[(0, 1), (3, 2)]]


def test_a_task_ends_once_it_holds_its_share():
    # 32 pairs of 2 tokens over 2 workers: a share of 2, one pair each
    pairs = [(2 * n, 2 * n + 1) for n in range(32)]
    assert len(compare_tasks(pairs, [1] * 64, 2)) == 32
    assert len(compare_tasks(pairs, [1] * 64, 1)) == 1


@pytest.mark.parametrize(
    ("workers", "most", "error", "words"),
    [
        (0, 10, SamecodeValueError, "1 or more; got 0 and 10"),
        (1, 0, SamecodeValueError, "1 or more; got 1 and 0"),
        (1.0, 10, SamecodeTypeError, "workers must be an int"),
        (1, True, SamecodeTypeError, "most_tokens must be an int"),
    ],
)
def test_bad_arguments_are_refused_with_the_rule(workers, most, error, words):
    with pytest.raises(error, match=words):
        compare_tasks([(0, 1)], [1, 1], workers, most)


@pytest.mark.parametrize("pair", [(-1, 0), (0, 2), (2, 2)])
def test_a_pair_naming_an_unknown_file_is_refused(pair):
    with pytest.raises(
        SamecodeValueError, match=r"files 0 to 1 \(the sizes given\); got " + re.escape(str(pair))
    ):
        compare_tasks([(0, 1), pair], [1, 1], 1)
