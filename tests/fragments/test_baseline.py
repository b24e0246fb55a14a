"""Baselines against brute force: trees made of known blocks, a baseline of one, then the
same tree shifted and with new files; what is new is known from how the trees were made."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from samecode.engine import RunOptions
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.baseline import (
    MATCHED_PARAMETERS,
    BaselineError,
    only_new,
    parse_baseline,
)
from samecode.fragments.boilerplate import BoilerplateFiles
from samecode.fragments.options import FragmentOptions
from samecode.fragments.result import FragmentResult
from samecode.fragments.tree import scan_fragments
from samecode.reports.fragments import to_json
from samecode.sources.walk import WalkOptions

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
    return scan_fragments(
        [str(root)], OPTIONS, WalkOptions(gitignore=False), run=RunOptions(jobs=1)
    )


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


def saved_report(tmp_path, parameters=None) -> dict:
    """A fragments report of a small tree (two copies of a block), as JSON reads it."""
    write(tmp_path, "a.py", [0], 1)
    write(tmp_path, "b.py", [0], 1)
    stated = OPTIONS.to_dict() if parameters is None else parameters
    return json.loads(to_json(scan(tmp_path), stated))


# For each parameter, a value other than the default (each moves ends or digests).
OTHER_VALUES = {
    "k": 10,
    "window": 8,
    "min_tokens": 50,
    "gap": 0,
    "max_repeats": 4,
    "boilerplate_share": 0.5,
    "boilerplate_files": 3,
    "tokens": "code",
    "normalize": True,
    "keep_licenses": True,
    "keep_imports": True,
    "keep_msgids": True,
    "keep_msgid_copies": True,
}


def test_every_fragment_parameter_is_matched():
    # all_pairs but: which copies are compared changes no class, and a baseline is read
    # by its classes' occurrences
    fields = {field.name for field in dataclasses.fields(FragmentOptions)} - {"all_pairs"}
    assert {*fields, "boilerplate_digest"} == set(MATCHED_PARAMETERS)
    assert fields == set(OTHER_VALUES)


@pytest.mark.parametrize("name", ["keep_msgids", "keep_msgid_copies"])
def test_a_baseline_made_before_a_catalogue_option_was_stated_kept_them(tmp_path, name):
    saved = saved_report(tmp_path)
    del saved["parameters"][name]
    with pytest.raises(BaselineError, match=f"{name} True"):
        parse_baseline(json.dumps(saved), FragmentOptions(), "old.json")
    parse_baseline(json.dumps(saved), FragmentOptions(**{name: True}), "old.json")


def test_a_baseline_made_with_all_pairs_serves_a_scan_without(tmp_path):
    saved = saved_report(tmp_path)
    assert "all_pairs" not in saved["parameters"] or saved["parameters"]["all_pairs"] is False
    saved["parameters"]["all_pairs"] = True
    parse_baseline(json.dumps(saved), FragmentOptions(), "old.json")


@pytest.mark.parametrize("name", sorted(OTHER_VALUES))
def test_a_baseline_made_with_another_parameter_is_refused_naming_it(tmp_path, name):
    saved = json.dumps(saved_report(tmp_path))
    other = FragmentOptions(**{name: OTHER_VALUES[name]})
    with pytest.raises(BaselineError, match="was made with other fragment parameters") as caught:
        parse_baseline(saved, other)
    message = str(caught.value)
    assert f" {name} {OPTIONS.to_dict()[name]!r} (this scan: {OTHER_VALUES[name]!r});" in message
    assert message.count("(this scan:") == 1  # that one alone


def test_which_files_are_compared_and_the_corpus_name_may_differ(tmp_path):
    stated = {**OPTIONS.to_dict(), "min_file_tokens": 50, "max_size": 10**6, "corpus": "a.db"}
    saved = json.dumps(saved_report(tmp_path, stated))
    now = {**stated, "min_file_tokens": 1, "max_size": 10, "corpus": "b.db", "guaranteed": 0}
    assert parse_baseline(saved, now).count(str(tmp_path / "a.py"), "x") == 0


def test_a_report_of_the_other_command_is_refused(tmp_path):
    scanned = json.dumps(saved_report(tmp_path))
    matched = json.dumps(saved_report(tmp_path, {**OPTIONS.to_dict(), "corpus": "c.db"}))
    with pytest.raises(BaselineError, match="is a report of scan --fragments, not of match"):
        parse_baseline(scanned, {**OPTIONS.to_dict(), "corpus": "c.db", "corpus_lsh": None})
    with pytest.raises(BaselineError, match="is a report of match --fragments, not of scan"):
        parse_baseline(matched, OPTIONS)


def test_boilerplate_files_must_be_the_same_text(tmp_path):
    header = tmp_path / "header.txt"
    header.write_text("generated by a tool do not edit this file by hand please")
    files = BoilerplateFiles.read([header], OPTIONS)
    stated = {**OPTIONS.to_dict(), "boilerplate_digest": files.digest()}
    (tmp_path / "tree").mkdir()
    saved = json.dumps(saved_report(tmp_path / "tree", stated))
    assert parse_baseline(saved, stated).source == "<text>"
    with pytest.raises(BaselineError, match=r"boilerplate_digest '[0-9a-f]{32}' \(this scan: None"):
        parse_baseline(saved, OPTIONS)
    header.write_text("other text entirely that is not the same as the first one at all")
    other = BoilerplateFiles.read([header], OPTIONS).digest()
    again = {**OPTIONS.to_dict(), "boilerplate_digest": other}
    with pytest.raises(BaselineError, match="boilerplate_digest"):
        parse_baseline(saved, again)
    # a report without it (older, or made without boilerplate files) had none
    with pytest.raises(BaselineError, match=r"boilerplate_digest None \(this scan: '"):
        parse_baseline(json.dumps(saved_report(tmp_path / "tree")), stated)


def deep(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"regions": None}, "its regions are NoneType None, not a list"),
        ({"regions": 5}, "its regions are int 5, not a list"),
        ({"classes": {}}, "its classes are dict {}, not a list"),
        ({"parameters": []}, "its parameters are list"),
        ({"schema": True}, "its schema is bool True"),
        ({"schema": "1"}, "its schema is str '1'"),
        ({"parameters": {**OPTIONS.to_dict(), "k": "12"}}, "not fragment parameters"),
        ({"parameters": {**OPTIONS.to_dict(), "normalize": 0}}, "not fragment parameters"),
        ({"parameters": {**OPTIONS.to_dict(), "boilerplate_digest": 7}}, "boilerplate_digest"),
        ({"parameters": {"k": 12}}, "its parameters have no 'window'"),
        ({"classes": [{"id": [1], "occurrences": []}]}, "class 1 has the id list"),
        ({"classes": [{"id": {"a": 1}, "occurrences": []}]}, "class 1 has the id dict"),
        ({"classes": [{"id": True, "occurrences": []}]}, "class 1 has the id bool"),
        ({"classes": [{"id": 0, "occurrences": []}]}, "class 1 has the id int 0"),
        ({"classes": [5]}, "class 1 has no list of occurrences"),
        ({"regions": [[]]}, "region 1 has no paths and digests"),
    ],
)
def test_a_malformed_report_is_refused(tmp_path, change, why):
    saved = saved_report(tmp_path)
    refusal = "is not a samecode fragments JSON report: .*" + re.escape(why)
    with pytest.raises(BaselineError, match=refusal):
        parse_baseline(json.dumps({**saved, **change}), OPTIONS)


def test_a_malformed_region_class_is_refused(tmp_path):
    saved = saved_report(tmp_path)
    saved["regions"][0]["class"] = [1]
    with pytest.raises(BaselineError, match="region 1 has the class list"):
        parse_baseline(json.dumps(saved), OPTIONS)


@pytest.mark.parametrize("text", [deep(100_000), deep(990), '{"schema": 1, "regions": ' +
                                  deep(995) + "}"])  # fmt: skip
def test_a_report_nested_too_deep_is_refused(text):
    with pytest.raises(BaselineError, match="is not a samecode fragments JSON report"):
        parse_baseline(text, OPTIONS)


JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)


def fields(value, at=()):
    """Every place in a JSON value (a path of keys and indexes), the whole first."""
    yield at
    if isinstance(value, dict):
        for key, item in value.items():
            yield from fields(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from fields(item, (*at, index))


@pytest.fixture(scope="module")
def found_and_saved(tmp_path_factory):
    root = tmp_path_factory.mktemp("tree")
    write(root, "a.py", [0, 1], 1)
    write(root, "b.py", [0], 1)
    write(root, "c.py", [1], 1)
    found = scan(root)
    return found, json.loads(to_json(found, OPTIONS.to_dict()))


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_value_in_any_field_is_read_or_refused(found_and_saved, data):
    found, saved = found_and_saved
    broken = json.loads(json.dumps(saved))
    at = data.draw(st.sampled_from(list(fields(broken))))
    value = data.draw(JSONISH | st.sampled_from([None, [], {}, 0, -1, "", True]))
    if at:
        holder = broken
        for key in at[:-1]:
            holder = holder[key]
        holder[at[-1]] = value
    else:
        broken = value
    try:
        baseline = parse_baseline(json.dumps(broken), OPTIONS)
    except BaselineError:
        return
    only_new(found, baseline)  # what was read is used without an error
