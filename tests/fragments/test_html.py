"""The HTML report: one self-contained page, everything escaped, each file's lines once
however many regions point at them, in a data blob the page's script reads
(:func:`~samecode.reports.html.page_data` reads it here)."""

from __future__ import annotations

import json
import re
import unicodedata
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.baseline import Baseline, only_new
from samecode.fragments.options import FragmentOptions
from samecode.fragments.tree import scan_fragments
from samecode.reports.html import LONGEST_LINE, page_data, to_html
from samecode.sources.walk import WalkOptions

BLOCK = "".join(f"total_{i} = price_{i} * count + tax_rate  # <b>&\n" for i in range(12))
VOID = {"meta", "br", "hr", "img", "input", "link"}


class Page(HTMLParser):
    """The tags of a page, checked to nest, its ids, and the text of its scripts."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.open: list[str] = []
        self.ids: list[str] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts = 0
        self.feed(text)
        self.close()
        assert self.open == []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self.scripts += tag == "script"
        if "id" in dict(attrs):
            self.ids.append(dict(attrs)["id"])
        if tag not in VOID:
            self.open.append(tag)

    def handle_endtag(self, tag):
        assert self.open, tag
        assert self.open.pop() == tag


def scan(root: Path, **options):
    return scan_fragments([str(root)], FragmentOptions(**options), WalkOptions(gitignore=False))


def region_rows(data):
    """The regions as rows: ``(a, a_start, a_end, b, b_start, b_end)``."""
    r = data["regions"]
    return list(zip(r["a"], r["a_start"], r["a_end"], r["b"], r["b_start"], r["b_end"]))


def test_names_and_text_are_escaped_and_nothing_is_fetched(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n" + BLOCK)
    evil = tmp_path / '<script>alert("name")&.py'
    code = '"""</script><script>alert("text")</script>"""'
    evil.write_text(code + "\n" + BLOCK)
    page = to_html(scan(tmp_path), root=tmp_path)
    parsed = Page(page)
    assert parsed.scripts == 3  # the data, the lines, and ours
    assert "<script>alert" not in page
    assert "</script><script>" not in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert sorted(set(parsed.ids)) == sorted(parsed.ids)  # ids unique
    data = page_data(page)
    assert [path for path, _ in data["files"]] == ['<script>alert("name")&.py', "a.py"]
    assert data["lines"][0][1] == code  # as it is: the page's script writes it as text
    assert "\\u003cscript\\u003ealert" in page  # the name, inside the JSON


def test_each_line_is_in_the_page_once_however_many_regions(tmp_path):
    copies = 8
    for n in range(copies):
        head = "".join(f"head_{n}_{i} = {i * n}\n" for i in range(20))
        (tmp_path / f"f{n}.py").write_text(head + BLOCK + head.replace("head", "tail"))
    result = scan(tmp_path, all_pairs=True)
    assert len(result.regions) == copies * (copies - 1) // 2
    data = page_data(to_html(result, context=2))
    for file in range(copies):
        assert sorted(data["lines"][file]) == list(range(19, 35))  # lines 21-32 and 2 around
    packed = re.search(r'id="lines">([^<]*)<', to_html(result, context=2)).group(1)
    assert len(packed) < 2_000  # 8 files of 16 lines, once each
    assert len(region_rows(data)) == len(result.regions)


def test_a_region_carries_its_lines_in_both_files(tmp_path):
    (tmp_path / "a.py").write_text("import os\n" * 5 + BLOCK)
    (tmp_path / "b.py").write_text(BLOCK + "done()\n")
    result = scan(tmp_path)
    (region,) = result.regions
    data = page_data(to_html(result))
    ((a, a_start, a_end, b, b_start, b_end),) = region_rows(data)
    assert (a, b) == (0, 1)
    assert (a_start, a_end, b_start, b_end) == (
        region.a_start,
        region.a_end,
        region.b_start,
        region.b_end,
    )
    lines = (tmp_path / "a.py").read_text().split("\n")
    assert all(data["lines"][0][n] == lines[n - 1] for n in range(a_start, a_end + 1))
    assert data["pairs"]["region"] == [1]
    assert data["pairs"]["similarity"] == [int(result.pairs()[0].similarity * 10000 + 0.5)]


def test_a_baseline_marks_the_new_occurrences(tmp_path):
    (tmp_path / "a.py").write_text(BLOCK)
    (tmp_path / "b.py").write_text("x = 1\n" + BLOCK)
    result = scan(tmp_path)
    old = Baseline(
        "old.json", {(result.classes[0].occurrences[0].path, result.digests[0][0]): (3,)}
    )
    page = to_html(only_new(result, old))
    data = page_data(page)
    assert data["classes"]["first"] == [0, 2]
    assert data["classes"]["occurrences"]["new"] == [0, 1]
    assert data["classes"]["joins"] == [[3]]
    assert (
        "Since the baseline old.json: 0 classes and 0 regions left out (all in it); 1 new " in page
    )


def test_the_same_result_gives_the_same_bytes_and_bad_arguments_are_refused(tmp_path):
    (tmp_path / "a.py").write_text(BLOCK)
    (tmp_path / "b.py").write_text(BLOCK)
    result = scan(tmp_path)
    assert to_html(result) == to_html(scan(tmp_path))
    with pytest.raises(SamecodeTypeError):
        to_html("result")  # type: ignore[arg-type]
    with pytest.raises(SamecodeValueError, match="context must be from 0 to 1000; got -1"):
        to_html(result, context=-1)
    with pytest.raises(SamecodeTypeError, match="texts must map paths to Text; got str"):
        to_html(result, texts={str(tmp_path / "a.py"): "x = 1"})  # type: ignore[dict-item]
    with pytest.raises(SamecodeValueError, match="not a samecode HTML report"):
        page_data("<!DOCTYPE html><p>hello</p>")
    (tmp_path / "b.py").unlink()
    data = page_data(to_html(result))
    assert data["files"][1][1] == "cannot show the file: vanished"
    assert data["lines"][1] == {}


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(0, 30), min_size=2, max_size=4),
    st.sampled_from(["\n", "\r\n"]),
    st.integers(0, 4),
)
def test_the_lines_shown_are_the_files_lines_around_the_occurrences(
    tmp_path_factory, heads, newline, context
):
    root = tmp_path_factory.mktemp("tree")
    for n, head in enumerate(heads):
        text = "".join(f"line_{n}_{i} = {i}\n" for i in range(head)) + BLOCK + "end\n"
        (root / f"f{n}.py").write_bytes(text.replace("\n", newline).encode())
    result = scan(root)
    shown = page_data(to_html(result, context=context))["lines"]
    places: dict[str, set[int]] = {}
    for clone in result.classes:
        for o in clone.occurrences:
            places.setdefault(o.path, set()).update(range(o.start, o.end + 1))
    assert len(shown) == len(places)
    for file, path in enumerate(sorted(places)):
        lines = Path(path).read_bytes().decode().split("\n")
        near = {n for n in range(1, len(lines) + 1)
                if any(abs(n - m) <= context for m in places[path])}  # fmt: skip
        assert sorted(shown[file]) == sorted(near)
        for number, text in shown[file].items():
            assert text == lines[number - 1].removesuffix("\r")


def test_bidirectional_and_invisible_characters_are_escaped_in_names_and_code(tmp_path):
    hidden = "\u202e\u2066\u200b\ufeff\u061c\u2028\x1b"
    evil = tmp_path / "\u202eyp.txt"
    evil.write_text("".join(f"{line.rstrip()} \t# {hidden}\n" for line in BLOCK.splitlines()))
    (tmp_path / "plain.py").write_text(evil.read_text())
    page = to_html(scan(tmp_path), root=tmp_path)
    assert [c for c in page if unicodedata.category(c) in ("Cf", "Zl", "Zp") or c == "\x1b"] == []
    data = page_data(page)
    assert data["files"][1][0] == "\\u202eyp.txt"
    for lines in data["lines"]:
        assert lines[1].endswith(" \t# " + r"\u202e\u2066\u200b\ufeff\u061c\u2028\x1b")
        assert " \t" in lines[1]  # a tab in code is a tab


def test_a_file_changed_after_the_scan_is_said_so_and_no_lines_are_shown(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n" + BLOCK)
    (tmp_path / "b.py").write_text(BLOCK)
    result = scan(tmp_path)
    (tmp_path / "a.py").write_text("\n".join(["inserted = 0"] * 5) + "\nx = 1\n" + BLOCK)
    data = page_data(to_html(result, root=tmp_path))
    assert data["files"] == [["a.py", "cannot show the file: changed since it was read"],
                             ["b.py", ""]]  # fmt: skip
    assert data["lines"][0] == {}
    assert sorted(data["lines"][1]) == list(range(1, 14))  # b.py, as it was read


def test_a_long_line_is_cut_with_a_marker_and_the_page_stays_small(tmp_path):
    bundle = "".join(f"var a{i}=function(b,c){{return b+c*{i % 997}}};" for i in range(25_000))
    assert len(bundle) > 1_000_000
    (tmp_path / "a.min.js").write_text(bundle)
    (tmp_path / "b.min.js").write_text("var first=1;\n" + bundle + "\n")
    result = scan(tmp_path)
    assert len(result.regions) == 1
    page = to_html(result, root=tmp_path)
    assert len(page.encode()) < 100_000
    data = page_data(page)
    assert data["cuts"] == [[0, 1, len(bundle)], [1, 2, len(bundle)]]
    assert data["lines"][0][1] == data["lines"][1][2] == bundle[:LONGEST_LINE]
    assert data["lines"][1][1] == "var first=1;"


def test_masked_lines_are_in_the_data_with_why(tmp_path):
    imports = "import os\nimport sys\nfrom pathlib import Path\n"
    (tmp_path / "a.py").write_text(imports + BLOCK)
    (tmp_path / "b.py").write_text("x = 1\n" + imports + BLOCK)
    result = scan(tmp_path)
    data = page_data(to_html(result, root=tmp_path))
    assert data["reasons"] == ["licence header", "import block", "boilerplate file", "message ids"]
    assert sorted(data["masked"]) == [[0, 1, 3, 1], [1, 2, 4, 1]]
    assert data["lines"][0][1] == "import os"  # shown, as masked, when near a region


def test_the_summary_is_text_not_python(tmp_path):
    (tmp_path / "a.py").write_text("import os\n" + BLOCK)
    (tmp_path / "b.py").write_text(BLOCK)
    (tmp_path / "empty.py").write_text("")
    parameters = {"k": 12, "profile": "duplicates", "profile_set": {"k": 5, "window": 4},
                  "keep_imports": False, "boilerplate_files": None}  # fmt: skip
    page = to_html(scan(tmp_path), parameters, root=tmp_path)
    summary = page[page.index('<section id="summary">') : page.index("</section>")]
    assert "{" not in summary
    assert "'" not in summary
    assert "<dd>2 files compared; 1 skipped (1 empty).</dd>" in summary
    assert "<dd>1 region shared by 1 file pair, in 1 clone class.</dd>" in summary
    assert "<dd>Masked: 1 line as import block (1 range, 2 tokens, in 1 file).</dd>" in summary
    assert "<dt>profile set</dt><dd>k 5, window 4</dd>" in summary
    assert "<dt>keep imports</dt><dd>no</dd>" in summary
    assert "<dt>boilerplate files</dt><dd>none</dd>" in summary


def pairs_tree(root: Path, pairs: int) -> None:
    """``pairs`` pairs of files, each sharing a block of its own."""
    for n in range(pairs):
        block = "".join(f"value_{n}_{i} = compute_{i}(data, {n})\n" for i in range(10))
        for side in "ab":
            head = "".join(f"{side}_{n}_{i} = {i}\n" for i in range(6))
            (root / f"{side}{n}.py").write_text(head + block + head.replace(side, side * 2))


def test_the_page_grows_linearly_with_the_regions(tmp_path):
    sizes = {}
    for pairs in (40, 80, 160):
        root = tmp_path / str(pairs)
        root.mkdir()
        pairs_tree(root, pairs)
        result = scan(root)
        assert len(result.regions) == pairs
        sizes[pairs] = len(to_html(result, root=root).encode())
    shell = sizes[40] - (sizes[80] - sizes[40])  # the page without a region
    per_region = (sizes[160] - sizes[80]) / 80
    assert 0 < shell < 40_000
    assert per_region < 400  # two files' 16 lines each, compressed, and the rows
    assert abs((sizes[80] - sizes[40]) / 40 - per_region) < 0.1 * per_region


def test_the_data_blob_holds_no_markup_that_could_close_it(tmp_path):
    (tmp_path / "a.py").write_text(BLOCK)
    (tmp_path / "b &amp; <!-- <script>.py").write_text(BLOCK)
    page = to_html(scan(tmp_path), root=tmp_path)
    blob = page[page.index('id="data">') + 10 : page.index("</script>")]
    assert not set("<>&") & set(blob)
    assert json.loads(blob)["files"][1][0] == "b &amp; <!-- <script>.py"


def test_a_query_file_changed_after_a_match_is_said_so(tmp_path):
    from samecode.corpus.fragments import match_fragments
    from samecode.corpus.store import Corpus

    (tmp_path / "known.py").write_text(BLOCK)
    (tmp_path / "new.py").write_text("x = 1\n" + BLOCK)
    walk = WalkOptions(gitignore=False)
    with Corpus.create(str(tmp_path / "c.db"), fragments=FragmentOptions()) as corpus:
        corpus.sync([str(tmp_path / "known.py")], walk)
        found = match_fragments(corpus, [str(tmp_path / "new.py")], walk=walk)
    assert page_data(to_html(found, root=tmp_path))["files"][1] == ["new.py", ""]
    (tmp_path / "new.py").write_text("y = 2\n" + BLOCK)
    data = page_data(to_html(found, root=tmp_path))
    assert data["files"][1] == ["new.py", "cannot show the file: changed since it was read"]
    assert data["lines"][1] == {}
    assert sorted(data["lines"][0]) == list(range(1, 14))  # known.py, unchanged


def test_paths_under_the_root_folder_are_shown_relative_to_it(tmp_path):
    (tmp_path / "a.py").write_text(BLOCK)
    (tmp_path / "b.py").write_text(BLOCK)
    result = scan(tmp_path)
    shown = [path for path, _ in page_data(to_html(result, root="/"))["files"]]
    assert shown == [str(tmp_path / name).lstrip("/") for name in ("a.py", "b.py")]
    shown = [path for path, _ in page_data(to_html(result, root=tmp_path))["files"]]
    assert shown == ["a.py", "b.py"]
