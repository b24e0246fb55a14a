"""The HTML report: one self-contained page, everything escaped, each file's lines once
however many regions point at them."""

from __future__ import annotations

import re
import unicodedata
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.baseline import Baseline, only_new
from samecode.fragments.options import FragmentOptions
from samecode.fragments.tree import scan_fragments
from samecode.reports.html import LONGEST_LINE, to_html
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

    def lines(self, file: int) -> list[int]:
        return [int(a["data-n"]) for t, a in self.tags
                if t == "div" and (a.get("id") or "").startswith(f"f{file}-")]  # fmt: skip


def scan(root: Path, **options):
    return scan_fragments([str(root)], FragmentOptions(**options), WalkOptions(gitignore=False))


def test_names_and_text_are_escaped_and_nothing_is_fetched(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n" + BLOCK)
    evil = tmp_path / '<script>alert("name")&.py'
    evil.write_text('"""</script><script>alert("text")</script>"""\n' + BLOCK)
    page = to_html(scan(tmp_path))
    parsed = Page(page)
    assert parsed.scripts == 1  # ours alone
    assert "<script>alert" not in page
    assert "&lt;script&gt;alert(&#34;name&#34;)&amp;.py" in page
    assert "&lt;/script&gt;&lt;script&gt;alert" in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    assert sorted(set(parsed.ids)) == sorted(parsed.ids)  # ids unique


def test_each_line_is_in_the_page_once_however_many_regions(tmp_path):
    copies = 8
    for n in range(copies):
        head = "".join(f"head_{n}_{i} = {i * n}\n" for i in range(20))
        (tmp_path / f"f{n}.py").write_text(head + BLOCK + head.replace("head", "tail"))
    result = scan(tmp_path, all_pairs=True)
    assert len(result.regions) == copies * (copies - 1) // 2
    parsed = Page(to_html(result, context=2))
    for file in range(1, copies + 1):
        assert parsed.lines(file) == list(range(19, 35))  # lines 21-32 and 2 around them
    region_rows = [a for t, a in parsed.tags if t == "a" and a.get("class") == "region"]
    assert len(region_rows) == len(result.regions)


def test_a_region_link_carries_its_lines_in_both_files(tmp_path):
    (tmp_path / "a.py").write_text("import os\n" * 5 + BLOCK)
    (tmp_path / "b.py").write_text(BLOCK + "done()\n")
    result = scan(tmp_path)
    (region,) = result.regions
    parsed = Page(to_html(result))
    (link,) = [a for t, a in parsed.tags if t == "a" and a.get("id") == "region-1"]
    assert (link["data-as"], link["data-ae"], link["data-bs"], link["data-be"]) == tuple(
        str(n) for n in (region.a_start, region.a_end, region.b_start, region.b_end)
    )
    assert {f"f{link['data-a']}-{region.a_start}", f"f{link['data-b']}-{region.b_end}"} <= set(
        parsed.ids
    )


def test_a_baseline_marks_the_new_occurrences(tmp_path):
    (tmp_path / "a.py").write_text(BLOCK)
    (tmp_path / "b.py").write_text("x = 1\n" + BLOCK)
    result = scan(tmp_path)
    old = Baseline(
        "old.json", {(result.classes[0].occurrences[0].path, result.digests[0][0]): (3,)}
    )
    page = to_html(only_new(result, old))
    assert page.count('<span class="new">new</span>') == 2  # the summary's key, one place
    assert "joins baseline class 3" in page


def test_the_same_result_gives_the_same_bytes_and_bad_arguments_are_refused(tmp_path):
    (tmp_path / "a.py").write_text(BLOCK)
    (tmp_path / "b.py").write_text(BLOCK)
    result = scan(tmp_path)
    assert to_html(result) == to_html(scan(tmp_path))
    with pytest.raises(SamecodeTypeError):
        to_html("result")  # type: ignore[arg-type]
    with pytest.raises(SamecodeValueError, match="context must be from 0 to 1000; got -1"):
        to_html(result, context=-1)
    (tmp_path / "b.py").unlink()
    assert "cannot show the file" in to_html(result)


LINE = re.compile(
    r'^<div class="l[^"]*" id="f(\d+)-(\d+)" data-n="\d+">(.*)</div>$',
    re.MULTILINE,
)


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
    page = to_html(result, context=context)
    shown: dict[int, dict[int, str]] = {}
    for file, line, html in LINE.findall(page):
        text = unescape(re.sub("<[^>]+>", "", html))
        shown.setdefault(int(file), {})[int(line)] = text
    places: dict[str, set[int]] = {}
    for clone in result.classes:
        for o in clone.occurrences:
            places.setdefault(o.path, set()).update(range(o.start, o.end + 1))
    assert len(shown) == len(places)
    for file, path in enumerate(sorted(places), 1):
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
    parsed = Page(page)
    assert sorted(parsed.ids) == sorted(set(parsed.ids))
    assert '<h3 id="path-2">\\u202eyp.txt</h3>' in page
    assert r"\u202e\u2066\u200b\ufeff\u061c\u2028\x1b" in page
    assert " \t" in page  # a tab in code is a tab


def test_a_file_changed_after_the_scan_is_said_so_and_no_lines_are_marked(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n" + BLOCK)
    (tmp_path / "b.py").write_text(BLOCK)
    result = scan(tmp_path)
    (tmp_path / "a.py").write_text("\n".join(["inserted = 0"] * 5) + "\nx = 1\n" + BLOCK)
    page = to_html(result, root=tmp_path)
    parsed = Page(page)
    assert parsed.lines(1) == []  # a.py
    assert (
        'id="file-1">\n<h3 id="path-1">a.py</h3>\n<p class="muted">cannot show the file: '
        "changed since it was read</p>" in page
    )
    assert parsed.lines(2) == list(range(1, 14))  # b.py, as it was read
    assert all(a.get("id", "").startswith("f2-") for t, a in parsed.tags if a.get("class") == "l m")


def test_a_long_line_is_cut_with_a_marker_and_the_page_stays_small(tmp_path):
    bundle = "".join(f"var a{i}=function(b,c){{return b+c*{i % 997}}};" for i in range(25_000))
    assert len(bundle) > 1_000_000
    (tmp_path / "a.min.js").write_text(bundle)
    (tmp_path / "b.min.js").write_text("var first=1;\n" + bundle + "\n")
    result = scan(tmp_path)
    assert len(result.regions) == 1
    page = to_html(result, root=tmp_path)
    assert len(page.encode()) < 100_000
    more = len(bundle) - LONGEST_LINE
    marker = (f'<span class="cut">\u2026 {more:,} more characters not shown (columns '
              f"{LONGEST_LINE + 1:,} to {len(bundle):,})</span>")  # fmt: skip
    assert page.count(marker + "</div>") == 2
    (line,) = [m for m in LINE.findall(page) if m[:2] == ("2", "2")]
    shown = unescape(re.sub("<[^>]+>", "", line[2].removesuffix(marker)))
    assert shown == bundle[:LONGEST_LINE]


def test_a_query_file_changed_after_a_match_is_said_so(tmp_path):
    from samecode.corpus.fragments import match_fragments
    from samecode.corpus.store import Corpus

    (tmp_path / "known.py").write_text(BLOCK)
    (tmp_path / "new.py").write_text("x = 1\n" + BLOCK)
    walk = WalkOptions(gitignore=False)
    with Corpus.create(str(tmp_path / "c.db"), fragments=FragmentOptions()) as corpus:
        corpus.sync([str(tmp_path / "known.py")], walk)
        found = match_fragments(corpus, [str(tmp_path / "new.py")], walk=walk)
    assert "cannot show" not in to_html(found, root=tmp_path)
    (tmp_path / "new.py").write_text("y = 2\n" + BLOCK)
    page = to_html(found, root=tmp_path)
    assert (
        '<h3 id="path-2">new.py</h3>\n<p class="muted">cannot show the file: changed since '
        "it was read</p>" in page
    )
    assert Page(page).lines(2) == []
    assert Page(page).lines(1) == list(range(1, 14))  # known.py, unchanged
