"""Fragments across a tree and between two files: planted blocks found at their lines,
boilerplate ignored and counted, renamed copies with normalize, a fixed output."""

from __future__ import annotations

import gc
import json
import multiprocessing
import os
import pickle
import random
import re
import tempfile
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from samecode.engine import RunOptions
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments import FragmentOptions, compare_fragments, scan_fragments, tasks, tree
from samecode.fragments.classes import FragmentClass, Occurrence
from samecode.fragments.ignored import REASONS, Ignored, IgnoredRanges
from samecode.fragments.index import FingerprintIndex
from samecode.fragments.regions import Match, Region
from samecode.fragments.result import FragmentResult, ignored_counts
from samecode.fragments.scratch import ReadFile, load
from samecode.fragments.tree import fingerprint_text, read_files
from samecode.reports.fragments import (
    ignored_text,
    jsonl_pieces,
    records,
    to_json,
    to_jsonl,
    to_text,
)
from samecode.sources.skipped import Skipped, SkipReason
from samecode.sources.walk import WalkOptions

WALK = WalkOptions(gitignore=False)


def filler(rng: random.Random, count: int, tag: str) -> list[str]:
    """Lines no other file has (names drawn at random, tagged by file)."""
    return [f"{tag}_{rng.getrandbits(40):x} = {rng.choice('fghk')}_{n}({n})" for n in range(count)]


BLOCK = [f"accumulate(total_{i}, weights[{i}] * scale - offset)" for i in range(15)]


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, dict[str, int]]:
    rng = random.Random(18)
    where = {"a.py": 0, "b.py": 7, "c.py": 30}
    for name, offset in where.items():
        lines = filler(rng, offset, name[0]) + BLOCK + filler(rng, 20, name[0] + "end")
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    (tmp_path / "unrelated.py").write_text("\n".join(filler(rng, 60, "u")) + "\n")
    return tmp_path, where


def test_a_planted_block_is_found_at_its_lines_in_every_file(planted):
    root, where = planted
    every = scan_fragments([str(root)], FragmentOptions(all_pairs=True), walk=WALK)
    result = scan_fragments([str(root)], walk=WALK)
    names = sorted(where)

    def got(found):
        return [(Path(r.a).name, r.a_start, r.a_end, Path(r.b).name, r.b_start, r.b_end)
                for r in found.regions]  # fmt: skip

    expected = [
        (a, where[a] + 1, where[a] + len(BLOCK), b, where[b] + 1, where[b] + len(BLOCK))
        for i, a in enumerate(names)
        for b in names[i + 1 :]
    ]
    assert got(every) == expected
    # by default, each copy with the first (a.py): the same class, N - 1 regions
    assert got(result) == [r for r in expected if r[0] == "a.py"]

    def places(found):
        return [[(o.path, o.start, o.end) for o in c.occurrences] for c in found.classes]

    assert places(every) == places(result)
    assert every.region_class == [1, 1, 1]
    block_tokens = len(" ".join(BLOCK).replace("(", " ( ").split())  # rough upper bound
    assert all(0 < r.tokens <= block_tokens * 2 for r in result.regions)
    (clone,) = result.classes
    assert [(Path(o.path).name, o.start, o.end) for o in clone.occurrences] == [
        (name, where[name] + 1, where[name] + len(BLOCK)) for name in names
    ]
    assert result.region_class == [1, 1]
    assert len(result.files) == 4


def test_the_output_is_the_same_whatever_the_order_of_the_roots(planted):
    root, _ = planted
    files = sorted(str(p) for p in root.iterdir())
    first = scan_fragments(files, walk=WALK)
    second = scan_fragments(files[::-1], walk=WALK)
    assert to_jsonl(first, {}) == to_jsonl(second, {})
    assert json.loads(to_json(first, {}))["summary"]["regions"] == 2  # each with a.py
    assert "3 occurrences" in to_text(first)


def test_the_output_is_the_same_for_any_jobs_and_batch_size(planted):
    root, _ = planted
    one = scan_fragments([str(root)], walk=WalkOptions(gitignore=False), run=RunOptions(jobs=1))
    many = scan_fragments(
        [str(root)], walk=WalkOptions(gitignore=False), run=RunOptions(jobs=2, batch_size=1)
    )
    assert to_jsonl(one, {}) == to_jsonl(many, {})
    assert len(one.regions) == 2


@pytest.mark.skipif(
    multiprocessing.get_context().get_start_method() != "fork",
    reason="the workers see this test's patch only when forked",
)
def test_at_several_jobs_the_index_is_sorted_and_asked_by_the_workers(
    planted, monkeypatch, tmp_path_factory
):
    # Sorting the index and asking it for boilerplate and candidate pairs is most of
    # what happens between reading and comparing: one process doing it all leaves the
    # others idle. Each worker takes parts of the index (ranges of hashes).
    root, _ = planted
    (root / "again.py").write_text((root / "a.py").read_text())  # and identical files
    noted = tmp_path_factory.mktemp("log") / "sorted-by"  # not in the tree scanned
    sort = FingerprintIndex._sorted

    def sorted_by(self: FingerprintIndex) -> object:
        with noted.open("a") as log:
            log.write(f"{os.getpid()}\n")
        return sort(self)

    monkeypatch.setattr(FingerprintIndex, "_sorted", sorted_by)
    # the block is boilerplate: in 4 files of 6
    options = FragmentOptions(boilerplate_share=0.5, boilerplate_files=2)
    many = scan_fragments([str(root)], options, walk=WALK, run=RunOptions(jobs=2))
    sorting = set(noted.read_text().split())
    assert len(sorting) == 2
    assert str(os.getpid()) not in sorting
    one = scan_fragments([str(root)], options, walk=WALK, run=RunOptions(jobs=1))
    assert to_jsonl(many, {}) == to_jsonl(one, {})
    assert (many.boilerplate, many.boilerplate_occurrences) == (
        one.boilerplate,
        one.boilerplate_occurrences,
    )
    assert one.boilerplate > 0


def noting(stage: Any, log: Path, said: Any) -> Any:
    """``stage``, which first appends to ``log`` the line ``said(*args)`` gives (none for
    ``None``): what a worker did, for a test to read."""

    def noted_stage(*args: object) -> object:
        line = said(*args)
        if line is not None:
            with log.open("a") as out:
                out.write(f"{line}\n")
        return stage(*args)

    return noted_stage


@pytest.mark.skipif(
    multiprocessing.get_context().get_start_method() != "fork",
    reason="the workers see this test's patch only when forked",
)
def test_the_index_parts_hold_about_as_many_fingerprints_each(
    tmp_path, monkeypatch, tmp_path_factory
):
    # Fingerprints are the least hashes of their windows: cut at even hashes, the first
    # part held nine in ten of them, and one worker sorted it while the other waited.
    rng = random.Random(7)
    for n in range(40):
        words = [f"w{rng.randrange(5000)}" for _ in range(400)]
        (tmp_path / f"f{n}.txt").write_text(" ".join(words))
    noted = tmp_path_factory.mktemp("log") / "sizes"
    sized = noting(  # when sorted now (asked from then on)
        FingerprintIndex._sorted, noted, lambda i: len(i._hashes) if i._runs is None else None
    )
    monkeypatch.setattr(FingerprintIndex, "_sorted", sized)
    scan_fragments([str(tmp_path)], walk=WALK, run=RunOptions(jobs=2, batch_size=40))
    sizes = [int(size) for size in noted.read_text().split()]
    assert len(sizes) == 4
    assert max(sizes) < 1.2 * min(sizes)


@pytest.mark.skipif(
    multiprocessing.get_context().get_start_method() != "fork",
    reason="the workers are told apart by their process ids when forked",
)
def test_the_index_compare_and_digest_stages_run_on_the_workers_that_read(
    tmp_path, monkeypatch, tmp_path_factory
):
    # fresh workers would each import numpy again (0.2 s of CPU a worker)
    rng = random.Random(3)
    blocks = [[f"w{rng.randrange(10**6)}" for _ in range(200)] for _ in range(13)]
    for n in range(12):  # each file shares a block with the one before and the one after
        (tmp_path / f"f{n}.txt").write_text(" ".join(blocks[n] + blocks[n + 1]))
    noted = tmp_path_factory.mktemp("log")

    def pid(*_: object) -> int:
        return os.getpid()

    monkeypatch.setattr(tree, "read_files", noting(tree.read_files, noted / "read", pid))
    boilerplate = noting(FingerprintIndex.boilerplate, noted / "index", pid)
    monkeypatch.setattr(FingerprintIndex, "boilerplate", boilerplate)
    monkeypatch.setattr(tree, "pair_regions", noting(tree.pair_regions, noted / "compare", pid))
    # the classes' digests too, each task removing the scratch file it read
    monkeypatch.setattr(tree, "place_digests", noting(tree.place_digests, noted / "digest", pid))
    monkeypatch.setattr(tree.os, "remove", noting(os.remove, noted / "removed", lambda p: p))
    found = scan_fragments([str(tmp_path)], walk=WALK, run=RunOptions(jobs=2, batch_size=3))
    readers = set((noted / "read").read_text().split())
    indexers = set((noted / "index").read_text().split())
    comparers = set((noted / "compare").read_text().split())
    digesters = set((noted / "digest").read_text().split())
    assert len(indexers) >= 1
    assert len(comparers) >= 1
    assert len(digesters) >= 1
    assert indexers | comparers | digesters <= readers
    assert str(os.getpid()) not in readers
    removed = (noted / "removed").read_text().split()
    assert len(removed) == len(set(removed)) == 4  # 12 files read 3 a task
    assert all(path.endswith(".scratch") for path in removed)
    one = scan_fragments([str(tmp_path)], walk=WALK)
    assert (found.regions, found.digests) == (one.regions, one.digests)
    assert found.digests


def test_a_class_digest_of_a_regions_end_is_taken_from_the_compare_stage(tmp_path, monkeypatch):
    # most occurrences are one end of a region, whose digest the compare stage made:
    # only occurrences of several ends are made again, with the same digests
    (tmp_path / "copy.py").write_text("\n".join(BLOCK) + "\n")
    later = ["accumulated" + BLOCK[0].removeprefix("accumulate"), *BLOCK[1:]]
    (tmp_path / "later.py").write_text("\n".join(later) + "\n")
    earlier = [*BLOCK[:-1], BLOCK[-1].replace("offset", "offsets")]
    (tmp_path / "earlier.py").write_text("\n".join(earlier) + "\n")
    asked: list[int] = []
    digest_places = tree._digest_places

    def counted(shared: Any, scratch: str, places: list[tuple[int, int, int]]) -> list[str]:
        asked.append(len(places))
        return digest_places(shared, scratch, places)

    monkeypatch.setattr(tree, "_digest_places", counted)
    found = scan_fragments([str(tmp_path)], walk=WALK)
    made = sum(asked)
    places = sum(len(clone.occurrences) for clone in found.classes)
    assert 0 < made < places  # copy.py's ends differ: one occurrence of two ends
    monkeypatch.setattr(tree, "end_digests", lambda *_: {})
    asked.clear()
    again = scan_fragments([str(tmp_path)], walk=WALK)
    assert sum(asked) == places
    assert (found.classes, found.digests) == (again.classes, again.digests)


def test_the_index_is_let_go_before_the_pairs_are_compared(planted, monkeypatch):
    # the compare stage's workers are forked then: each would hold the index's pages
    compare = tree._compare_candidates
    alive: list[int] = []

    def counting(*args: object, **kwargs: object) -> object:
        alive.append(sum(isinstance(o, FingerprintIndex) for o in gc.get_objects()))
        return compare(*args, **kwargs)

    monkeypatch.setattr(tree, "_compare_candidates", counting)
    root, _ = planted
    scan_fragments([str(root)], walk=WALK, run=RunOptions(jobs=1))
    assert alive == [0]


def test_the_scan_holds_its_results_with_collection_paused(planted, monkeypatch):
    # hundreds of thousands of regions and matches are held in the main process: the
    # collector walked them all again at each of its runs (4 % of the scan)
    said: list[bool] = []
    for name in ("_read_into_index", "_compare_candidates", "region_classes", "_class_digests"):
        stage = getattr(tree, name)

        def asking(*args: object, stage: Any = stage, **kwargs: object) -> object:
            said.append(gc.isenabled())
            return stage(*args, **kwargs)

        monkeypatch.setattr(tree, name, asking)
    root, _ = planted
    scan_fragments([str(root)], walk=WALK, run=RunOptions(jobs=1))
    assert said == [False] * 4
    assert gc.isenabled()


def test_regions_and_masked_ranges_pickle_as_their_fields():
    # regions and their matches cross from the workers by the hundred thousand: each as
    # its fields, not as a dataclass's state looked up field by field
    region = Region("a", "b", 1, 2, 3, 4, 30, 0.5, 0.25, 0, 30, 5, 35, (Match(0, 5, 30),))
    masked = Ignored("a", REASONS[3], 2, 3, 9, 10, 19)  # a catalogue has one a message
    for value in (region, region.matches[0], masked):
        assert value.__reduce__() == (
            type(value),
            tuple(getattr(value, f.name) for f in fields(value)),
        )
        assert pickle.loads(pickle.dumps(value)) == value


def test_tasks_of_any_size_give_the_same_output(planted, monkeypatch):
    root, _ = planted

    def scanned(jobs: int, pairs: int = 3) -> tuple[str, int]:
        ticks: list[tuple[int, int]] = []
        found = scan_fragments(
            [str(root)],
            FragmentOptions(all_pairs=True),
            walk=WalkOptions(gitignore=False),
            run=RunOptions(jobs=jobs),
            progress=lambda stage, done, total: stage == "compare" and ticks.append((done, total)),
        )
        assert ticks[-1] == (pairs, pairs)  # a, b and c: three pairs
        assert "".join(jsonl_pieces(found, {})) == to_jsonl(found, {})
        return to_jsonl(found, {}), len(ticks) - 1  # a tick as each task ends

    whole, tasks_run = scanned(1)
    assert tasks_run == 1
    monkeypatch.setattr(tasks, "TASK_TOKENS", 1)  # a task per pair: each loads its files
    for jobs in (1, 2):
        cut, tasks_run = scanned(jobs)
        assert cut == whole
        assert tasks_run == 3
    # the same, with a file's copies of itself: self-pairs and masked lines
    text = "import os\n" + "\n".join(BLOCK) + "\n" + "\n".join(BLOCK) + "\n"
    (root / "twice.py").write_text(text)
    cut, tasks_run = scanned(2, 7)  # and twice.py with each, and with itself
    assert tasks_run == 7
    monkeypatch.setattr(tasks, "TASK_TOKENS", 400_000)
    whole, _ = scanned(1, 7)
    assert cut == whole
    assert '"a": "' + str(root / "twice.py") in whole


def test_the_scratch_files_are_removed_when_the_scan_ends(planted, tmp_path, monkeypatch):
    root, _ = planted
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    seen: list[str] = []

    def look(stage: str, done: int, total: int) -> None:
        if stage == "compare" and not seen:  # every file read is in a scratch file
            (folder,) = scratch.iterdir()
            seen.extend(sorted(p.name for p in folder.iterdir()))

    found = scan_fragments(
        [str(root)], walk=WalkOptions(gitignore=False), run=RunOptions(batch_size=2), progress=look
    )
    assert len(seen) == 2
    assert all(name.endswith(".scratch") for name in seen)
    assert len(found.regions) == 2
    assert list(scratch.iterdir()) == []

    def fail(stage: str, done: int, total: int) -> None:
        if stage == "compare" and done > 0:  # workers started, and loading files
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        scan_fragments(
            [str(root)], walk=WalkOptions(gitignore=False), run=RunOptions(jobs=2), progress=fail
        )
    assert list(scratch.iterdir()) == []


def test_a_file_read_comes_back_as_fingerprinted(planted, tmp_path):
    root, _ = planted
    paths = [*sorted(str(p) for p in root.iterdir()), str(root / "missing.py")]
    options = FragmentOptions()
    got = read_files(paths, options, None, 10, None, str(tmp_path))
    assert isinstance(got[-1], Skipped)
    for path, read in zip(paths, got[:-1]):
        expected = fingerprint_text(path, Path(path).read_text(), options)
        assert isinstance(read, ReadFile)
        assert read.path == path
        assert read.fingerprints.tolist() == sorted(expected.fingerprints)
        assert load(read) == (expected.tokens, expected.kgrams)


def test_progress_counts_the_files_read_and_the_pairs_compared(planted):
    root, _ = planted
    seen: dict[str, list[tuple[int, int]]] = {}
    scan_fragments(
        [str(root)],
        walk=WalkOptions(gitignore=False),
        run=RunOptions(batch_size=3),
        progress=lambda s, d, t: seen.setdefault(s, []).append((d, t)),
    )
    assert list(seen) == ["read", "compare"]
    assert seen["read"] == [(0, 4), (3, 4), (4, 4)]
    compared = seen["compare"]
    assert compared[0][0] == 0
    assert compared[-1][0] == compared[-1][1] >= 2  # every candidate pair: a.py with b and c
    assert [d for d, _ in compared] == sorted(d for d, _ in compared)


def test_boilerplate_in_more_than_the_share_of_files_is_ignored_and_counted(tmp_path):
    header = [f"# licence line {i}: permission is granted to use copy modify" for i in range(6)]
    rng = random.Random(3)
    for n in range(12):
        (tmp_path / f"m{n}.py").write_text("\n".join(header + filler(rng, 10, f"m{n}")))
    # the header is a licence header too: kept here, so that the share alone ignores it
    ignored = scan_fragments([str(tmp_path)], FragmentOptions(keep_licenses=True), WALK)
    assert ignored.regions == []
    assert ignored.ignored == []
    assert ignored.boilerplate > 0
    assert ignored.boilerplate_occurrences >= 12 * ignored.boilerplate
    assert ignored.boilerplate_limit == 10
    kept = scan_fragments(
        [str(tmp_path)], FragmentOptions(boilerplate_share=1.0, keep_licenses=True), WALK
    )
    assert len(kept.regions) == 11  # each file with the first, m0.py
    every = FragmentOptions(boilerplate_share=1.0, keep_licenses=True, all_pairs=True)
    assert len(scan_fragments([str(tmp_path)], every, WALK).regions) == 12 * 11 // 2
    assert kept.boilerplate == 0
    (clone,) = kept.classes
    assert len(clone.occurrences) == 12
    assert {(o.start, o.end) for o in clone.occurrences} == {(1, 6)}


def test_renamed_copies_match_with_normalize_only(tmp_path):
    code = "\n".join(
        f"def handle_{i}(request, store):\n    return store.save(request.body, {i})"
        for i in range(6)
    )
    renamed = code.replace("request", "req").replace("store", "db").replace("handle", "on")
    (tmp_path / "a.py").write_text(code)
    (tmp_path / "b.py").write_text(renamed)
    plain = compare_fragments(tmp_path / "a.py", tmp_path / "b.py", FragmentOptions())
    assert plain.regions == []
    options = FragmentOptions(tokens="code", normalize=True)
    (region,) = compare_fragments(tmp_path / "a.py", tmp_path / "b.py", options).regions
    assert (region.a_start, region.a_end, region.b_start, region.b_end) == (1, 12, 1, 12)
    assert region.a_share == region.b_share == 1.0


def test_a_file_against_itself_shows_what_it_repeats(tmp_path):
    path = tmp_path / "twice.py"
    path.write_text("\n".join([*BLOCK, "separator = 1", *BLOCK]))
    (region,) = compare_fragments(path, path).regions
    assert (region.a_start, region.a_end, region.b_start, region.b_end) == (17, 31, 1, 15)


def test_bad_calls_are_refused_with_the_rule(tmp_path):
    (tmp_path / "a.txt").write_text("some words")
    with pytest.raises(SamecodeValueError, match="missing"):
        compare_fragments(tmp_path / "a.txt", tmp_path / "none.txt")
    with pytest.raises(SamecodeTypeError, match="path"):
        compare_fragments(tmp_path / "a.txt", 3)  # type: ignore[arg-type]
    with pytest.raises(SamecodeTypeError, match="FragmentOptions"):
        compare_fragments(tmp_path / "a.txt", tmp_path / "a.txt", {"k": 3})  # type: ignore[arg-type]
    with pytest.raises(SamecodeTypeError, match="roots"):
        scan_fragments(str(tmp_path))
    with pytest.raises(SamecodeTypeError, match="walk"):
        scan_fragments([str(tmp_path)], walk={})  # type: ignore[arg-type]
    with pytest.raises(SamecodeValueError, match="min_tokens must be at least k"):
        FragmentOptions(k=20, min_tokens=10)
    with pytest.raises(SamecodeValueError, match="boilerplate_share"):
        FragmentOptions(boilerplate_share=0)
    with pytest.raises(SamecodeTypeError, match="boilerplate_share"):
        FragmentOptions(boilerplate_share="0.1")  # type: ignore[arg-type]
    with pytest.raises(SamecodeValueError, match="normalize"):
        FragmentOptions(tokens="chars", normalize=True)
    with pytest.raises(SamecodeValueError, match="window"):
        FragmentOptions(window=0)
    with pytest.raises(SamecodeTypeError, match="gap"):
        FragmentOptions(gap=1.5)  # type: ignore[arg-type]


def test_the_same_tree_in_another_folder_gives_the_same_regions_and_digests(tmp_path):
    # a licence header, and an import line inside the copied block: masked tokens, whose
    # ids are made from the path, next to the fingerprints and within a region's gap
    rng = random.Random(3)
    texts = {}
    for name in ("a.py", "b.py", "c.py"):
        head = ["# Copyright 2026 Someone. Licensed under the MIT License.", ""]
        block = [*BLOCK[:8], "import os", *BLOCK[8:]]
        texts[name] = head + filler(rng, 5, name[0]) + block + filler(rng, 5, name[0] + "z")
    answers = []
    for folder in ("first", "second_folder_with_a_longer_name"):
        root = tmp_path / folder
        root.mkdir()
        for name, lines in texts.items():
            (root / name).write_text("\n".join(lines) + "\n")
        result = scan_fragments([str(root)], walk=WALK)
        assert result.regions
        assert {i.reason for i in result.ignored} == {"licence header", "import block"}
        places = [
            (Path(r.a).name, Path(r.b).name, r.a_first, r.a_stop, r.b_first, r.b_stop)
            for r in result.regions
        ]
        answers.append((places, result.region_digests, result.digests))
    assert answers[0] == answers[1]


@pytest.mark.parametrize("identical", [True, False])
def test_n_copies_cost_n_comparisons_and_n_minus_one_regions(tmp_path, identical):
    # 200 copies of one text (byte-identical, or each with lines of its own around it):
    # one class of 200 occurrences from 199 comparisons, not 19,900
    rng = random.Random(5)
    for n in range(200):
        own = [] if identical else [f"own_{n}_{rng.getrandbits(40):x} = {n}" for _ in range(3)]
        (tmp_path / f"copy_{n:03}.py").write_text("\n".join([*own, *BLOCK, *own]) + "\n")
    compared: list[int] = []
    result = scan_fragments(
        [str(tmp_path)],
        FragmentOptions(boilerplate_share=1.0),  # text in every file, not boilerplate here
        walk=WALK,
        progress=lambda stage, done, total: stage == "compare" and compared.append(total),
    )
    assert compared[-1] == 199
    assert len(result.regions) == len(result.pairs()) == 199
    assert {Path(r.a).name for r in result.regions} == {"copy_000.py"}
    (clone,) = result.classes
    assert len(clone.occurrences) == 200


@given(
    st.lists(
        st.tuples(
            # a few names often, so that a file's ranges of a reason run on (formatted
            # together), with "%" (the format's own character) among them
            st.sampled_from(["a.po", "%d%s.po", "100%.py"]) | st.text(max_size=12),
            st.sampled_from(REASONS),
            st.integers(1, 10**6),
            st.integers(0, 10**6),
            st.integers(0, 10**6),
        ),
        max_size=8,
    )
)
def test_the_jsonl_lines_of_ranges_ignored_are_their_records_encoded(items):
    # made on their own (a catalogue has one a message), they are what the JSON report
    # holds, encoded as every other line is
    ignored = [Ignored(path, reason, start, start + extra, tokens)
               for path, reason, start, extra, tokens in items]  # fmt: skip
    result = FragmentResult(FragmentOptions(), [], [], [], [], [], 0, 0, 1, 0, ignored=ignored)
    lines = to_jsonl(result, {}).split("\n")[1:]
    expected = [
        {"type": "ignored", **record} for record in json.loads(to_json(result, {}))["ignored"]
    ]
    assert [json.loads(line) for line in lines] == expected
    assert lines == [json.dumps(record) for record in expected]
    held = IgnoredRanges(ignored)  # as a scan holds them: the same lines
    assert to_jsonl(replace(result, ignored=held), {}) == to_jsonl(result, {})
    assert to_json(replace(result, ignored=held), {}) == to_json(result, {})
    counts = {  # the summary's, counted range by range
        reason: {
            "ranges": sum(1 for i in ignored if i.reason == reason),
            "files": len({i.path for i in ignored if i.reason == reason}),
            "lines": sum(i.end - i.start + 1 for i in ignored if i.reason == reason),
            "tokens": sum(i.tokens for i in ignored if i.reason == reason),
        }
        for reason in REASONS
    }
    assert ignored_counts(ignored) == ignored_counts(held) == counts


@pytest.mark.parametrize("reason", REASONS)
def test_the_table_names_the_ranges_of_every_reason_one_and_several(reason):
    def line(count: int) -> str | None:
        ignored = [Ignored(f"f{n}.po", reason, 2 * n + 1, 2 * n + 2, 5) for n in range(count)]
        return ignored_text(
            FragmentResult(FragmentOptions(), [], [], [], [], [], 0, 0, 1, 0, ignored=ignored)
        )

    one, two = line(1), line(2)
    assert one is not None
    assert two is not None
    singular = re.fullmatch(r"Ignored: 1 (.+) \(2 lines, 5 tokens, in 1 file\)", one)
    plural = re.fullmatch(r"Ignored: 2 (.+) \(4 lines, 10 tokens, in 2 files\)", two)
    assert singular is not None
    assert plural is not None
    assert singular[1] != plural[1]  # one range named as one, several as several
    assert line(0) is None


def test_many_ranges_ignored_are_written_whole_and_in_order():
    # thousands of ranges over many files, each line whole and in order (rows of the array)
    ignored = IgnoredRanges.join(
        IgnoredRanges.of(f"{n}.po", [(3, 2 * m + 1, 2 * m + 1, 5 * m, 5 * m + 3) for m in range(n)])
        for n in range(1, 140)
    )
    result = FragmentResult(FragmentOptions(), [], [], [], [], [], 0, 0, 1, 0, ignored=ignored)
    lines = [json.loads(line) for line in to_jsonl(result, {}).split("\n")[1:]]
    assert len(lines) == len(ignored) == sum(range(1, 140))
    assert [(r["path"], r["start"], r["tokens"]) for r in lines] == [
        (f"{n}.po", 2 * m + 1, 3) for n in range(1, 140) for m in range(n)
    ]
    assert json.loads(to_jsonl(result, {}).split("\n")[0])["summary"]["ignored"]["message ids"] == {
        "ranges": len(ignored),
        "files": 139,
        "lines": len(ignored),
        "tokens": 3 * len(ignored),
    }


_NAMES = ["a.py", 'q"uote.py', "é/ü.po", "tab\there", "\udcff.bin"]


@st.composite
def _results(draw: st.DrawFn) -> FragmentResult:
    paths = st.sampled_from(_NAMES)
    regions = []
    for _ in range(draw(st.integers(0, 6))):
        a_start, a_end, b_start, b_end, tokens, size = draw(
            st.lists(st.integers(0, 10**6), min_size=6, max_size=6)
        )
        a_share, b_share = draw(
            st.lists(st.floats(0, 1) | st.integers(0, 1), min_size=2, max_size=2)
        )
        matches = tuple(Match(n, n, 1) for n in range(draw(st.integers(0, 3))))
        regions.append(Region(draw(paths), draw(paths), a_start, a_end, b_start, b_end, tokens,
                              a_share, b_share, 0, size + 1, 0, size + 1, matches))  # fmt: skip
    classes = []
    for _ in range(draw(st.integers(0, 3))):
        places = [Occurrence(draw(paths), n, n + 2, n, n + draw(st.integers(1, 9)))
                  for n in range(draw(st.integers(0, 3)))]  # fmt: skip
        classes.append(FragmentClass(tuple(places), draw(st.integers(0, 50))))
    digest = st.text(max_size=4) | st.sampled_from(["0" * 32, "ab" * 16])
    made = draw(st.booleans())
    return FragmentResult(
        FragmentOptions(),
        [],
        [Skipped(draw(paths), SkipReason.BINARY)],
        regions,
        classes,
        [draw(st.none() | st.integers(1, 9)) for _ in regions],
        0,
        0,
        1,
        0,
        digests=[tuple(draw(digest) for _ in c.occurrences) for c in classes] if made else [],
        region_digests=[(draw(digest), draw(digest)) for _ in regions] if made else [],
        tokens=dict.fromkeys(_NAMES, 10**7),
    )


@given(_results())
def test_the_jsonl_lines_of_pairs_regions_and_classes_are_their_records_encoded(result):
    # made on their own (some 3 us a region, against 12 for a record encoded), they are
    # what the records give, encoded as every other line is
    lines = to_jsonl(result, {}).split("\n")[1:]
    assert lines == [json.dumps({"type": kind, **record}) for kind, record in records(result)]


def test_the_jsonl_of_a_region_with_a_share_json_cannot_hold_is_refused():
    region = Region("a", "b", 1, 1, 1, 1, 5, float("nan"), 0.5, 0, 5, 0, 5, ())
    result = FragmentResult(FragmentOptions(), [], [], [region], [], [None], 0, 0, 1, 0,
                            tokens={"a": 5, "b": 5})  # fmt: skip
    with pytest.raises(ValueError, match="Out of range float values are not JSON compliant"):
        to_jsonl(result, {})
