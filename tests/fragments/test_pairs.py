"""File pairs (:mod:`samecode.fragments.pairs`): the similarity and shares of two files are
those of the set of their tokens inside shared regions, by any scan, match or comparison."""

from __future__ import annotations

import dataclasses
import itertools
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from samecode.corpus.fragments import match_fragments
from samecode.corpus.store import Corpus
from samecode.errors import SamecodeValueError
from samecode.fragments import FragmentOptions, compare_fragments, scan_fragments
from samecode.fragments.pairs import FilePair, covered_tokens, file_pairs
from samecode.fragments.regions import Region
from samecode.sources.walk import WalkOptions

WALK = WalkOptions(gitignore=False)
NAMES = ["a.py", "b.py", "c.py"]


@st.composite
def regions_and_sizes(draw: st.DrawFn) -> tuple[list[Region], dict[str, int]]:
    sizes = {name: draw(st.integers(1, 60)) for name in NAMES}
    regions = []
    for _ in range(draw(st.integers(0, 12))):
        a, b = draw(st.sampled_from(NAMES)), draw(st.sampled_from(NAMES))
        a_first = draw(st.integers(0, sizes[a] - 1))
        a_stop = draw(st.integers(a_first + 1, sizes[a]))
        b_first = draw(st.integers(0, sizes[b] - 1))
        b_stop = draw(st.integers(b_first + 1, sizes[b]))
        tokens = draw(st.integers(1, min(a_stop - a_first, b_stop - b_first)))
        regions.append(Region(a, b, 1, 1, 1, 1, tokens, 0.0, 0.0, a_first, a_stop, b_first,
                              b_stop, ()))  # fmt: skip
    return regions, sizes


@given(regions_and_sizes())
def test_similarity_and_shares_are_those_of_the_tokens_covered(drawn):
    regions, sizes = drawn
    found = file_pairs(regions, sizes)
    expected = {}
    for region in regions:
        a_covered, b_covered, tokens, count = expected.get((region.a, region.b),
                                                           (set(), set(), 0, 0))  # fmt: skip
        a_covered |= set(range(region.a_first, region.a_stop))
        b_covered |= set(range(region.b_first, region.b_stop))
        expected[region.a, region.b] = (a_covered, b_covered, tokens + region.tokens, count + 1)
    assert {(p.a, p.b) for p in found} == set(expected)
    for pair in found:
        a_covered, b_covered, tokens, count = expected[pair.a, pair.b]
        a_size, b_size = sizes[pair.a], sizes[pair.b]
        assert pair.similarity == (len(a_covered) + len(b_covered)) / (a_size + b_size)
        assert pair.a_share == len(a_covered) / a_size
        assert pair.b_share == len(b_covered) / b_size
        assert (pair.tokens, pair.regions) == (tokens, count)
        assert 0 <= pair.similarity <= 1
    assert found == sorted(found, key=lambda p: (-p.similarity, p.a, p.b))


@given(st.lists(st.tuples(st.integers(0, 50), st.integers(1, 20))))
def test_covered_tokens_counts_each_token_once(spans):
    ranges = [(first, first + length) for first, length in spans]
    assert covered_tokens(ranges) == len({n for first, stop in ranges for n in range(first, stop)})


@given(st.integers(1, 500), st.integers(1, 5))
def test_two_files_covered_whole_are_alike_whatever_the_cut(size, parts):
    cuts = sorted({0, size, *(size * n // parts for n in range(parts))})
    regions = [Region("a", "b", 1, 1, 1, 1, stop - first, 0.0, 0.0, first, stop, first, stop, ())
               for first, stop in itertools.pairwise(cuts)]  # fmt: skip
    assert file_pairs(regions, {"a": size, "b": size}) == [
        FilePair("a", "b", 1.0, 1.0, 1.0, size, len(regions))
    ]


def test_a_file_without_its_number_of_tokens_is_an_error():
    region = Region("a.py", "b.py", 1, 1, 1, 1, 5, 0.5, 0.5, 0, 5, 0, 5, ())
    with pytest.raises(SamecodeValueError, match=r"no number of tokens is given for 'b\.py'"):
        file_pairs([region], {"a.py": 10})


BLOCK = "".join(f"total_{i} = price_{i} * count + tax_{i}\n" for i in range(12))


def test_a_scan_gives_identical_files_similarity_one_and_copies_their_share(tmp_path):
    (tmp_path / "a.py").write_text(BLOCK)
    (tmp_path / "b.py").write_text(BLOCK)
    (tmp_path / "c.py").write_text(BLOCK + BLOCK.replace("total", "sum").replace("tax", "fee"))
    result = scan_fragments([str(tmp_path)], FragmentOptions(all_pairs=True), walk=WALK)
    pairs = {(Path(p.a).name, Path(p.b).name): p for p in result.pairs()}
    assert (pairs["a.py", "b.py"].similarity, pairs["a.py", "b.py"].regions) == (1.0, 1)
    half = pairs["a.py", "c.py"]
    assert half.a_share == 1.0
    assert half.b_share == result.tokens[str(tmp_path / "a.py")] / result.tokens[
        str(tmp_path / "c.py")]  # fmt: skip
    assert result.summary()["pairs"] == len(result.pairs()) == 3
    assert [p.similarity for p in result.pairs()] == sorted(
        (p.similarity for p in result.pairs()), reverse=True
    )


def test_a_comparison_gives_the_pair_a_scan_gives(tmp_path):
    (tmp_path / "a.py").write_text("first = 1\n" + BLOCK)
    (tmp_path / "b.py").write_text(BLOCK + "last = 2\n")
    found = compare_fragments(tmp_path / "a.py", tmp_path / "b.py")
    alone = file_pairs(found.regions, {found.a: found.a_tokens}, {found.b: found.b_tokens})
    scanned = scan_fragments([str(tmp_path)], walk=WALK).pairs()
    assert alone == scanned
    assert len(alone) == 1
    assert 0.9 < alone[0].similarity < 1


def test_a_match_counts_a_stored_file_by_its_stored_tokens(tmp_path):
    """A query file that was stored with other text is counted by its text now where it
    is the query, and by the text stored where it is the stored file."""
    root = Path(os.path.realpath(tmp_path))
    changed, other = root / "changed.py", root / "other.py"
    changed.write_text(BLOCK + "\n".join(f"extra_{i} = {i}" for i in range(40)) + "\n")
    other.write_text(BLOCK)
    db = root / "c.db"
    with Corpus.create(db, fragments=FragmentOptions()) as corpus:
        corpus.sync([str(changed), str(other)], WALK)
    changed.write_text(BLOCK)  # now as short as the other
    with Corpus.open(db, readonly=True) as corpus:
        result = match_fragments(corpus, [str(changed), str(other)], walk=WALK)
    pairs = {(p.a, p.b): p for p in result.pairs()}
    assert pairs[str(changed), str(other)].similarity == 1.0
    stored_long = pairs[str(other), str(changed)]
    assert stored_long.a_share == 1.0
    assert stored_long.b_share < 0.5
    assert result.tokens[str(changed)] == result.tokens[str(other)]
    assert result.stored_tokens[str(changed)] > result.tokens[str(changed)]
    for region in result.regions:  # a region's shares are of the same counts
        pair = pairs[region.a, region.b]
        assert dataclasses.astuple(pair)[3:5] == (region.a_share, region.b_share)
