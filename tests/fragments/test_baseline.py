"""Baselines against brute force: trees made of known blocks, a baseline of one, then the
same tree shifted and with new files; what is new is known from how the trees were made."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.baseline import BaselineError, only_new, parse_baseline
from samecode.fragments.options import FragmentOptions
from samecode.fragments.report import to_json
from samecode.fragments.tree import FragmentResult, scan_fragments
from samecode.scan.pipeline import ScanOptions

OPTIONS = FragmentOptions()
BLOCKS = [
    "".join(f"block{b}_name_{i} = compute_{b}(value_{i}, factor={b * i}) + offset\n"
            for i in range(6))
    for b in range(5)
]  # fmt: skip


def filler(tag: str, n: int) -> str:
    """Lines no other place holds, enough tokens that matches do not chain across them."""
    return "".join(" ".join(f"w{tag}n{i}{c}" for c in "abcdefg") + "\n" for i in range(n))


def write(root, name: str, blocks: list[int], head: int) -> None:
    tag = name.removesuffix(".py")
    parts = [filler(f"{tag}head", head)]
    for n, b in enumerate(blocks):
        parts += [BLOCKS[b], filler(f"{tag}x{n}", 3)]
    (root / name).write_text("".join(parts))


def scan(root) -> FragmentResult:
    return scan_fragments([str(root)], OPTIONS, ScanOptions(gitignore=False, jobs=1))


def new_paths(result: FragmentResult) -> set[str]:
    assert result.baseline is not None
    return {
        o.path.rsplit("/", 1)[1]
        for clone, marks in zip(result.classes, result.baseline.classes)
        for o, new in zip(clone.occurrences, marks.new)
        if new
    }


@st.composite
def trees(draw):
    """Files of blocks: every block used is in at least two files; a new file copying
    some of them; how many lines each old file is shifted by."""
    files = draw(st.integers(2, 5))
    layout: list[list[int]] = [[] for _ in range(files)]
    used = draw(st.sets(st.integers(0, len(BLOCKS) - 1), min_size=1, max_size=3))
    for b in sorted(used):
        homes = draw(st.sets(st.integers(0, files - 1), min_size=2, max_size=files))
        for home in homes:
            layout[home].append(b)
    for blocks in layout:
        order = draw(st.permutations(blocks))
        blocks[:] = order
    added = draw(st.lists(st.sampled_from(sorted(used)), min_size=1, max_size=3, unique=True))
    shifts = draw(st.lists(st.integers(0, 4), min_size=files, max_size=files))
    return layout, added, shifts


@settings(max_examples=25, deadline=None)
@given(trees())
def test_a_new_file_of_old_clones_is_all_that_is_new(tmp_path_factory, tree):
    layout, added, shifts = tree
    root = tmp_path_factory.mktemp("tree")
    for n, blocks in enumerate(layout):
        write(root, f"f{n}.py", blocks, 1)
    before = scan(root)
    baseline = parse_baseline(to_json(before, OPTIONS.to_dict()), OPTIONS)
    same = only_new(before, baseline)
    assert same.classes == []
    assert same.regions == []
    for n, blocks in enumerate(layout):  # shifted down: nothing new
        write(root, f"f{n}.py", blocks, 1 + shifts[n])
    shifted = only_new(scan(root), baseline)
    assert shifted.classes == []
    write(root, "new.py", added, 2)
    grown = only_new(scan(root), baseline)
    assert new_paths(grown) == {"new.py"}
    new_places = [
        (o.start, o.end)
        for clone, marks in zip(grown.classes, grown.baseline.classes)
        for o, new in zip(clone.occurrences, marks.new)
        if new
    ]
    assert len(new_places) == len(added)  # one occurrence per block copied
    assert all(marks.joins for marks in grown.baseline.classes)  # each joins an old class
    assert grown.baseline.old_classes == len(before.classes) - len(grown.classes)


def test_a_second_copy_in_one_file_is_new_and_the_first_old(tmp_path):
    write(tmp_path, "a.py", [0], 1)
    write(tmp_path, "b.py", [0], 1)
    baseline = parse_baseline(to_json(scan(tmp_path), OPTIONS.to_dict()), OPTIONS)
    write(tmp_path, "b.py", [0, 0], 1)
    found = only_new(scan(tmp_path), baseline)
    marks = {
        (o.path.rsplit("/", 1)[1], o.start): new
        for clone, novelty in zip(found.classes, found.baseline.classes)
        for o, new in zip(clone.occurrences, novelty.new)
    }
    assert marks == {("a.py", 2): False, ("b.py", 2): False, ("b.py", 11): True}


def test_refusals(tmp_path):
    write(tmp_path, "a.py", [0], 1)
    write(tmp_path, "b.py", [0], 1)
    result = scan(tmp_path)
    saved = json.loads(to_json(result, OPTIONS.to_dict()))
    with pytest.raises(SamecodeTypeError):
        parse_baseline(b"{}", OPTIONS)  # type: ignore[arg-type]
    with pytest.raises(SamecodeTypeError):
        only_new(result, saved)  # type: ignore[arg-type]
    for broken, why in (
        ({**saved, "schema": 2}, "its schema is 2; this samecode reads 1"),
        ({**saved, "classes": [{"occurrences": [{"path": "a.py"}]}]}, "has no path and digest"),
        ({**saved, "regions": [{"a": "a.py"}]}, "region 1 has no paths and digests"),
        (
            {**saved, "parameters": {**saved["parameters"], "tokens": "code"}},
            "tokens 'code' \\(this scan: 'words'\\)",
        ),
    ):
        with pytest.raises(BaselineError, match=why) as caught:
            parse_baseline(json.dumps(broken), OPTIONS)
        assert isinstance(caught.value, ValueError)
    bare = FragmentResult(OPTIONS, [], [], result.regions, result.classes, result.region_class,
                          0, 0, 10, 0)  # fmt: skip
    with pytest.raises(SamecodeValueError, match="must have digests"):
        only_new(bare, parse_baseline(json.dumps(saved), OPTIONS))
