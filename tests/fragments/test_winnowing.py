"""Robust winnowing against its definition, and the guarantee against brute force."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from budget import line_budget
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.tokens import TokenSpans
from samecode.fragments.winnowing import fingerprints, winnow
from samecode.text.shingling import Shingling, kgram_hashes, token_ids


def robust_by_definition(hashes, w):
    """Schleimer et al.'s robust winnowing, window by window: the previous choice if it
    is in the window and a minimum, else the rightmost minimum."""
    if not hashes:
        return []
    if len(hashes) < w:
        low = min(hashes)
        return [max(i for i, h in enumerate(hashes) if h == low)]
    chosen, last = [], -1
    for start in range(len(hashes) - w + 1):
        window = range(start, start + w)
        low = min(hashes[i] for i in window)
        if last in window and hashes[last] == low:
            continue
        last = max(i for i in window if hashes[i] == low)
        chosen.append(last)
    return chosen


@given(st.lists(st.integers(0, 5), max_size=60), st.integers(1, 9))
def test_winnow_is_robust_winnowing(hashes, w):
    assert winnow(hashes, w) == robust_by_definition(hashes, w)


@given(st.lists(st.integers(0, 5), max_size=60), st.integers(1, 9), st.integers(0, 5))
def test_winnow_skips_what_it_is_told_as_if_filtered_after(hashes, w, skip):
    chosen = robust_by_definition(hashes, w)
    assert winnow(hashes, w, skip=skip) == [at for at in chosen if hashes[at] != skip]


def test_winnow_refuses_a_skip_that_is_no_int():
    with pytest.raises(SamecodeTypeError, match="skip"):
        winnow([1, 2], 1, skip=1.0)  # type: ignore[arg-type]


def shared_runs(a, b, least):
    """Every maximal run of equal items a[i:i+n] == b[j:j+n] with n >= least, by brute
    force."""
    runs = []
    for i in range(len(a)):
        for j in range(len(b)):
            if i and j and a[i - 1] == b[j - 1]:
                continue
            n = 0
            while i + n < len(a) and j + n < len(b) and a[i + n] == b[j + n]:
                n += 1
            if n >= least:
                runs.append((i, j, n))
    return runs


TOKENS = st.lists(st.sampled_from("abcd"), max_size=50)


@given(TOKENS, TOKENS, st.integers(1, 4), st.integers(1, 6))
def test_every_shared_run_of_w_plus_k_minus_1_tokens_shares_a_fingerprint(a, b, k, w):
    ha, hb = kgram_hashes(token_ids(a), k), kgram_hashes(token_ids(b), k)
    fa, fb = winnow(ha, w), winnow(hb, w)
    for i, j, n in shared_runs(a, b, w + k - 1):
        inside_a = {ha[p] for p in fa if i <= p <= i + n - k}
        inside_b = {hb[q] for q in fb if j <= q <= j + n - k}
        assert inside_a & inside_b, (i, j, n)


@given(TOKENS, st.integers(1, 4), st.integers(1, 6))
def test_fingerprints_are_k_tokens_at_least_one_per_window(tokens, k, w):
    text = " ".join(tokens)
    found = fingerprints(TokenSpans.of(text, Shingling()), k, w)
    assert all(f.stop - f.start == k for f in found)
    if len(tokens) < k:
        assert found == []
    else:
        starts = [f.start for f in found]
        assert starts[0] < w
        assert len(tokens) - k - starts[-1] < w
        assert all(0 < y - x <= w for x, y in pairwise(starts))
        hashes = kgram_hashes(token_ids(tokens), k)
        assert [f.hash for f in found] == [hashes[s] for s in starts]


def test_fingerprints_know_their_lines_and_columns():
    text = "alpha beta\n  gamma delta\nepsilon"
    (first, *_) = fingerprints(TokenSpans.of(text, Shingling()), 3, 1)
    assert (first.start_line, first.start_column, first.end_line, first.end_column) == (
        1,
        1,
        2,
        8,
    )


@pytest.mark.parametrize("w", [1, 50, 5000])
def test_winnowing_is_linear_whatever_the_window_and_ties(w):
    n = 20_000
    for hashes in ([7] * n, list(range(n)), list(range(n, 0, -1))):
        with line_budget(20 * n):
            winnow(hashes, w)


def test_bad_windows_are_refused():
    with pytest.raises(SamecodeValueError, match="window"):
        winnow([1], 0)
    with pytest.raises(SamecodeTypeError, match="window"):
        winnow([1], 2.0)  # type: ignore[arg-type]
    with pytest.raises(SamecodeValueError, match="k must"):
        fingerprints(TokenSpans.of("a b", Shingling()), 0, 2)
