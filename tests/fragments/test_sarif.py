"""SARIF of fragments: valid against the official 2.1.0 schema, one result per occurrence,
the others related and linked, within GitHub's limits by the stated rule, the same bytes
for the same input."""

from __future__ import annotations

import gzip
import json
import os
import pathlib
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft4Validator

from samecode.engine import RunOptions
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.baseline import Baseline, only_new
from samecode.fragments.classes import region_classes
from samecode.fragments.options import FragmentOptions
from samecode.fragments.regions import Region
from samecode.fragments.result import FragmentResult
from samecode.fragments.tree import scan_fragments
from samecode.reports.sarif import RULE_ID, SarifLimits, common_root, to_sarif
from samecode.sources.walk import WalkOptions

SCHEMA = json.loads(
    (pathlib.Path(__file__).parent / "sarif" / "sarif-schema-2.1.0.json").read_text()
)
VALIDATOR = Draft4Validator(SCHEMA)
BLOCK = "".join(f"total_{i} = price_{i} * count + tax_rate\n" for i in range(10))
LINK = re.compile(r"\]\((\d+)\)")


def valid(text: str) -> dict:
    log = json.loads(text)
    errors = sorted(VALIDATOR.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    return log


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "tree"
    (root / "pkg").mkdir(parents=True)
    (root / "a.py").write_text("x = 1\n" + BLOCK + "done = True\n")
    (root / "pkg" / "b c.py").write_text("y = 2\nz = 3\n" + BLOCK)
    (root / "c.py").write_text(BLOCK + "\n\nother = 4\n" + BLOCK.replace("price", "cost"))
    return root


def scanned(root):
    return scan_fragments([str(root)], walk=WalkOptions(gitignore=False), run=RunOptions(jobs=1))


def test_a_tree_gives_one_valid_result_per_occurrence_with_the_others_linked(tree):
    result = scanned(tree)
    (clone,) = result.classes
    log = valid(to_sarif(result, root=tree))
    (run,) = log["runs"]
    assert run["tool"]["driver"]["rules"][0]["id"] == RULE_ID
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == tree.as_uri() + "/"
    results = run["results"]
    assert len(results) == len(clone.occurrences) == 3
    places = [(os.path.relpath(o.path, tree), o.start, o.end) for o in clone.occurrences]
    for number, found in enumerate(results):
        location = found["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uriBaseId"] == "SRCROOT"
        where = (location["artifactLocation"]["uri"].replace("%20", " "),
                 location["region"]["startLine"], location["region"]["endLine"])  # fmt: skip
        assert where == places[number]
        related = found["relatedLocations"]
        assert [r["id"] for r in related] == [1, 2]
        others = [
            (r["physicalLocation"]["artifactLocation"]["uri"].replace("%20", " "),
             r["physicalLocation"]["region"]["startLine"],
             r["physicalLocation"]["region"]["endLine"]) for r in related
        ]  # fmt: skip
        assert others == [p for n, p in enumerate(places) if n != number]
        assert sorted(map(int, LINK.findall(found["message"]["text"]))) == [1, 2]
        digest = result.digests[0][number]
        assert found["partialFingerprints"]["primaryLocationLineHash"] == f"{digest[:16]}:1"
    assert places[1] == ("c.py", 1, 10)  # the renamed copy below is not the same text
    assert "truncated" not in json.dumps(run["invocations"])


def test_the_same_text_moved_down_its_file_keeps_its_fingerprint(tree):
    before = valid(to_sarif(scanned(tree), root=tree))["runs"][0]["results"]
    (tree / "a.py").write_text("x = 1\n# a comment\n\n" + BLOCK + "done = True\n")
    after = valid(to_sarif(scanned(tree), root=tree))["runs"][0]["results"]
    assert before[0]["locations"] != after[0]["locations"]
    assert [r["partialFingerprints"] for r in before] == [r["partialFingerprints"] for r in after]


def test_the_same_input_gives_the_same_bytes(tree):
    result = scanned(tree)
    assert to_sarif(result, root=tree) == to_sarif(scanned(tree), root=str(tree))


def test_a_path_outside_the_root_is_an_absolute_uri(tree):
    log = valid(to_sarif(scanned(tree), root=tree / "pkg"))
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"] for r in
            log["runs"][0]["results"]]  # fmt: skip
    assert uris[0] == {"uri": (tree / "a.py").as_uri()}
    assert uris[2] == {"uri": "b%20c.py", "uriBaseId": "SRCROOT"}


def test_with_a_baseline_only_the_new_occurrences_are_results(tree):
    result = scanned(tree)
    old = Baseline(
        "old.json", {(result.classes[0].occurrences[0].path, result.digests[0][0]): (1,)}
    )
    log = valid(to_sarif(only_new(result, old), root=tree))
    results = log["runs"][0]["results"]
    assert len(results) == 2
    assert all(len(r["relatedLocations"]) == 2 for r in results)
    assert log["runs"][0]["properties"]["summary"]["baseline"]["old_occurrences"] == 1


def test_common_root_and_refusals(tree):
    assert common_root([tree / "pkg", tree / "a.py"]) == str(tree)
    with pytest.raises(SamecodeTypeError):
        common_root(str(tree))
    with pytest.raises(SamecodeValueError):
        common_root([])
    with pytest.raises(SamecodeValueError, match="results must be at least 1; got 0"):
        SarifLimits(results=0)
    with pytest.raises(SamecodeTypeError):
        to_sarif("not a result", root=tree)  # type: ignore[arg-type]
    bare = FragmentResult(FragmentOptions(), [], [], [], scanned(tree).classes, [], 0, 0, 10, 0)
    with pytest.raises(SamecodeValueError, match="a digest for each class"):
        to_sarif(bare, root=tree)
    with pytest.raises(SamecodeValueError, match="no results is larger"):
        to_sarif(scanned(tree), root=tree, limits=SarifLimits(gzip_bytes=10))


NAMES = st.sampled_from(["a.py", "b c.py", "x[1].py", "<script>.js", "ü/é.txt", "d/e.py"])


@st.composite
def fragment_results(draw):
    """Random regions between a few files, their classes, and random digests."""
    regions = []
    for _ in range(draw(st.integers(0, 12))):
        a, b = draw(NAMES), draw(NAMES)
        first, other = draw(st.integers(0, 40)) * 10, draw(st.integers(0, 40)) * 10
        size = draw(st.integers(1, 9)) * 10
        if a == b and abs(first - other) < size:
            continue
        if b < a or (a == b and other < first):
            a, b, first, other = b, a, other, first
        line, other_line = first // 10 + 1, other // 10 + 1
        regions.append(Region(a, b, line, line + size // 10 - 1, other_line,
                              other_line + size // 10 - 1, size, 0.5, 0.5, first, first + size,
                              other, other + size, ()))  # fmt: skip
    regions.sort(key=lambda r: (r.a, r.b, r.a_first, r.b_first, r.a_stop, r.b_stop))
    classes, region_class = region_classes(regions)
    hexes = st.text("0123456789abcdef", min_size=32, max_size=32)
    digests = [tuple(draw(hexes) for _ in clone.occurrences) for clone in classes]
    return FragmentResult(FragmentOptions(), sorted({r.a for r in regions} | {r.b for r in
                          regions}), [], regions, classes, region_class, 0, 0, 10, 0,
                          digests=digests)  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    fragment_results(),
    st.integers(1, 8),
    st.integers(1, 6),
    st.sampled_from([10**7, 900, 1400, 2500]),
)
def test_any_result_is_valid_and_kept_within_the_limits_by_the_rule(found, most, locations, size):
    limits = SarifLimits(results=most, locations=locations, gzip_bytes=size)
    if size < 953:  # the gzipped size of a log with no results
        with pytest.raises(SamecodeValueError, match="no results is larger"):
            to_sarif(found, root="/work", limits=limits)
        return
    text = to_sarif(found, root="/work", limits=limits)
    assert text == to_sarif(found, root="/work", limits=limits)
    log = valid(text)
    (run,) = log["runs"]
    results = run["results"]
    occurrences = [
        (n, i) for n, c in enumerate(found.classes, 1) for i in range(len(c.occurrences))
    ]
    cut = run["properties"]["truncated"]
    assert len(results) + cut["results"] == len(occurrences)
    assert cut["results_by_count"] == max(0, len(occurrences) - most)
    assert len(results) <= most
    assert len(gzip.compress(text.encode(), compresslevel=6, mtime=0)) <= size
    if cut["results_by_size"]:  # the longest prefix that fits: one more would not
        assert len(results) < min(most, len(occurrences))
    omitted = 0
    for found_result, (number, index) in zip(results, occurrences):
        clone = found.classes[number - 1]
        assert found_result["properties"]["class"] == number
        assert found_result["locations"][0]["physicalLocation"]["region"] == {
            "startLine": clone.occurrences[index].start,
            "endLine": clone.occurrences[index].end,
        }
        related = found_result["relatedLocations"]
        assert 1 + len(related) <= locations
        assert len(related) == min(len(clone.occurrences) - 1, locations - 1)
        assert [r["id"] for r in related] == list(range(1, len(related) + 1))
        assert set(map(int, LINK.findall(found_result["message"]["text"]))) <= {
            r["id"] for r in related
        }
        gone = found_result["properties"].get("omittedRelatedLocations", 0)
        assert gone == len(clone.occurrences) - 1 - len(related)
        omitted += gone
    assert cut["related_locations"] == omitted
    notes = run["invocations"][0].get("toolExecutionNotifications", [])
    assert bool(notes) == bool(cut["results"] or omitted)


def test_a_log_too_large_gzipped_keeps_the_results_that_fit_and_says_so():
    names = [f"f{n:02}.py" for n in range(30)]
    regions = [Region(names[0], name, 1, 5, 1, 5, 50, 0.5, 0.5, 0, 50, 0, 50, ())
               for name in names[1:]]  # fmt: skip
    classes, region_class = region_classes(regions)
    digests = [tuple(f"{n:032x}" for n in range(30))]
    found = FragmentResult(FragmentOptions(), names, [], regions, classes, region_class, 0, 0,
                           10, 0, digests=digests)  # fmt: skip
    whole = valid(to_sarif(found, root="/", limits=SarifLimits(locations=4)))
    run = whole["runs"][0]
    assert len(run["results"]) == 30
    assert run["properties"]["truncated"]["related_locations"] == 30 * (29 - 3)
    assert (
        "and 26 more places (26 not listed: too many locations)."
        in run["results"][0]["message"]["text"]
    )
    text = to_sarif(found, root="/", limits=SarifLimits(locations=4, gzip_bytes=2200))
    run = valid(text)["runs"][0]
    kept = len(run["results"])
    assert 0 < kept < 30
    assert len(gzip.compress(text.encode(), compresslevel=6, mtime=0)) <= 2200
    assert run["properties"]["truncated"]["results_by_size"] == 30 - kept
    (note,) = run["invocations"][0]["toolExecutionNotifications"]
    assert note["level"] == "warning"
    assert (
        f"{30 - kept} results left out (0 past the most results, {30 - kept} past"
        in (note["message"]["text"])
    )


def test_with_room_for_the_primary_location_alone_the_message_counts_the_others(tree):
    log = valid(to_sarif(scanned(tree), root=tree, limits=SarifLimits(locations=1)))
    first = log["runs"][0]["results"][0]
    assert first["relatedLocations"] == []
    assert first["message"]["text"] == (
        "Lines 2-11 are copied: the same text is in 2 other places (2 not listed: too many "
        "locations)."
    )
    assert first["properties"]["omittedRelatedLocations"] == 2
