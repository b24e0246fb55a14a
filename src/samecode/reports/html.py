"""Fragments as one self-contained HTML page: clone classes, regions side by side.

:func:`to_html` renders the template ``templates/report.html.j2`` (jinja2, everything
escaped) into one file that works offline (its CSS and its little JavaScript are inline;
nothing is fetched):

* the **summary**: files compared and skipped (by reason), regions, classes, what was
  ignored (boilerplate and repetitive fingerprints, with counts) and the parameters;
* the **file pairs** (:mod:`~samecode.fragments.pairs`), the most alike first, each with
  a link to its first region;
* the **clone classes**, each occurrence a link to its lines, and the class's regions;
* a **side-by-side view**: following a region's link (``#region-N``) shows the lines of
  both files next to each other, the region's lines highlighted, with a few lines of
  context, and scrolls to it;
* the **files**: each file's text once, coloured by pygments (its lexer by the file's
  name), only the lines within ``context`` lines of an occurrence (gaps are marked), each
  line an anchor ``f<file>-<line>``. The side-by-side view copies its lines from there,
  so the page grows with the text of the occurrences, not with the number of regions. A
  line longer than :data:`LONGEST_LINE` characters is cut there, with a marker saying
  how many characters (which columns) are not shown.

Paths and lines show control, bidirectional and other invisible characters escaped
(:func:`~samecode.text.display.visible`; tabs in code are kept). Needs the ``cli`` extra
(jinja2 and pygments). A file that cannot be read any more, or that changed since the
scan read it, shows why instead of its lines.

>>> import pathlib, tempfile
>>> from samecode.fragments.tree import scan_fragments
>>> from samecode.sources.walk import WalkOptions
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> block = "".join(f"total_{i} = price_{i} * count + tax\\n" for i in range(10))
>>> for name in ("a.py", "b.py"):
...     _ = (root / name).write_text(block)
>>> page = to_html(scan_fragments([str(root)], walk=WalkOptions(gitignore=False)), root=root)
>>> page.startswith("<!DOCTYPE html>"), 'id="region-1"' in page, "http" in page
(True, True, False)
>>> '<a class="occ" href="#f1-1" data-file="1" data-start="1" data-end="10">a.py:1-10</a>' in page
True
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from samecode._validation import check_int, describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.result import FragmentResult
from samecode.sources.reading import read_text
from samecode.sources.skipped import Skipped
from samecode.text.display import visible

__all__ = ["LONGEST_LINE", "to_html"]

_LONE_CR = re.compile("\r(?!\n)")

#: The characters of a line the page shows: the rest of a longer line (a minified
#: bundle's one line) is left out, and a marker says how many characters and which
#: columns, so that the page's size, and a browser's work, stay those of what it shows.
LONGEST_LINE = 1000


@dataclass(frozen=True)
class _Line:
    number: int
    html: str
    marked: bool


@dataclass(frozen=True)
class _File:
    number: int
    path: str
    lines: list[_Line | int]  # a line, or the number of lines left out before the next
    error: str


def _wanted(ranges: Iterable[tuple[int, int]], context: int) -> list[tuple[int, int]]:
    """The line ranges to show, merged: each range widened by ``context``."""
    merged: list[list[int]] = []
    for start, end in sorted(ranges):
        low, high = max(1, start - context), end + context
        if merged and low <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], high)
        else:
            merged.append([low, high])
    return [(low, high) for low, high in merged]


def _css_classes() -> Any:
    """For each token type, the CSS class of pygments' default style, or ``""`` where
    the style gives it no colour or weight (plain text needs no element)."""
    from pygments.styles import get_style_by_name
    from pygments.token import STANDARD_TYPES

    style = get_style_by_name("default")

    def css(ttype: Any) -> str:
        rule = style.style_for_token(ttype)
        if not (rule["color"] or rule["bold"] or rule["italic"] or rule["bgcolor"]):
            return ""
        while ttype not in STANDARD_TYPES:
            ttype = ttype.parent
        return str(STANDARD_TYPES[ttype])

    return css


def _cut(text: str) -> tuple[str, dict[int, int]]:
    """``text`` with each line longer than :data:`LONGEST_LINE` cut to it, and the
    length of each line cut, by its index (from 0)."""
    lengths: dict[int, int] = {}
    if len(text) <= LONGEST_LINE:
        return text, lengths
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if len(line) > LONGEST_LINE:
            lengths[index] = len(line)
            lines[index] = line[:LONGEST_LINE]
    return ("\n".join(lines) if lengths else text), lengths


def _highlighted(path: str, text: str) -> list[str]:
    """Each line of ``text`` (as fragments count lines: ends at ``\\n``) as HTML: the
    tokens of pygments' lexer for the file's name, those its default style colours in a
    ``<span>`` of its CSS class, all escaped; what would not show as itself (a control
    or bidirectional character: :func:`~samecode.text.display.visible`) as an escape, but
    for tabs; a line cut at :data:`LONGEST_LINE` characters (before it is coloured: a
    construct it leaves open may colour the lines after it) and a marker saying what is
    left out."""
    from markupsafe import escape
    from pygments.lexers import TextLexer, get_lexer_for_filename
    from pygments.util import ClassNotFound

    text, lengths = _cut(_LONE_CR.sub("\u240d", text).replace("\r\n", "\n"))
    text = visible(text, keep="\t\n")
    try:
        lexer = get_lexer_for_filename(path, stripnl=False, ensurenl=True)
    except ClassNotFound:
        lexer = TextLexer(stripnl=False, ensurenl=True)
    css = _css_classes()
    classes: dict[Any, str] = {}
    lines: list[str] = []
    line: list[str] = []
    for ttype, value in lexer.get_tokens(text):
        name = classes.get(ttype)
        if name is None:
            name = classes[ttype] = css(ttype)
        parts = value.split("\n")
        for number, part in enumerate(parts):
            if number:
                lines.append("".join(line))
                line = []
            if part:
                shown = str(escape(part))
                line.append(f'<span class="{name}">{shown}</span>' if name else shown)
    lines.append("".join(line))
    count = text.count("\n") + 1
    lines = (lines + [""] * count)[:count]
    for index, length in lengths.items():
        lines[index] += (
            f'<span class="cut">\u2026 {length - LONGEST_LINE:,} more characters not shown '
            f"(columns {LONGEST_LINE + 1:,} to {length:,})</span>"
        )
    return lines


def _shown(path: str, root: str | None) -> str:
    """``path`` as the page shows it: relative to ``root`` when within it."""
    if root is not None:
        relative = os.path.relpath(os.path.abspath(path), root)
        if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
            path = relative
    return visible(path)


def _file(
    number: int,
    path: str,
    ranges: list[tuple[int, int]],
    context: int,
    root: str | None,
    unshown: Mapping[str, str],
    sha256: str | None,
) -> _File:
    if path in unshown:
        return _File(number, _shown(path, root), [], f"cannot show the file: {unshown[path]}")
    text = read_text(path, None)
    if isinstance(text, Skipped):
        return _File(number, _shown(path, root), [], f"cannot show the file: {text.reason}")
    if sha256 is not None and text.sha256 != sha256:  # its lines now are not those matched
        why = "cannot show the file: changed since it was read"
        return _File(number, _shown(path, root), [], why)
    html = _highlighted(path, text.text)
    marked: set[int] = set()
    for start, end in ranges:
        marked.update(range(start, end + 1))
    lines: list[_Line | int] = []
    shown = 0
    for low, high in _wanted(ranges, context):
        high = min(high, len(html))
        if low > high:
            continue
        if low > shown + 1:
            lines.append(low - shown - 1)
        lines += [_Line(n, html[n - 1], n in marked) for n in range(low, high + 1)]
        shown = high
    if shown < len(html):
        lines.append(len(html) - shown)
    return _File(number, _shown(path, root), lines, "")


def _template() -> Any:
    import jinja2

    source = resources.files("samecode.reports").joinpath("templates/report.html.j2")
    environment = jinja2.Environment(
        autoescape=True, undefined=jinja2.StrictUndefined, keep_trailing_newline=False
    )
    return environment.from_string(source.read_text(encoding="utf-8"))


def to_html(
    result: FragmentResult,
    parameters: dict[str, Any] | None = None,
    *,
    root: str | os.PathLike[str] | None = None,
    context: int = 3,
    unshown: Mapping[str, str] | None = None,
) -> str:
    """The result as one self-contained HTML page (see the module's description).

    :param result: a :class:`~samecode.fragments.result.FragmentResult`; its files are read
        again to show their lines, but for a file whose bytes are not those it read (its
        ``sha256``): the page says it changed, and shows none of its lines.
    :param parameters: the parameters to state (default: the result's options).
    :param root: paths within this folder are shown relative to it (as given otherwise).
    :param context: lines shown around each occurrence and region, 0 to 1000.
    :param unshown: files whose text is not to be shown, each with why (a stored file
        whose text on disk is not the text matched:
        :func:`~samecode.corpus.fragments.unshown_stored`); their regions are listed.
    :raises TypeError: for a result of the wrong type.
    :raises ValueError: for a ``context`` out of range.

    Runtime complexity: ``O(size)`` to read each file with an occurrence and colour its
    lines, each cut at :data:`LONGEST_LINE` characters, and ``O(r log r + l)`` for ``r``
    regions and the ``l`` lines shown. The same result (and files) gives the same bytes.
    """
    if not isinstance(result, FragmentResult):
        raise SamecodeTypeError(f"result must be a FragmentResult; got {describe(result)}")
    check_int(context, "context")
    if not 0 <= context <= 1000:
        raise SamecodeValueError(f"context must be from 0 to 1000; got {context}")
    ranges: dict[str, list[tuple[int, int]]] = {}
    for clone in result.classes:
        for o in clone.occurrences:
            ranges.setdefault(o.path, []).append((o.start, o.end))
    for region in result.regions:
        ranges.setdefault(region.a, []).append((region.a_start, region.a_end))
        ranges.setdefault(region.b, []).append((region.b_start, region.b_end))
    number = {path: n for n, path in enumerate(sorted(ranges), 1)}
    base = None if root is None else os.path.abspath(os.fspath(root))
    hidden = {} if unshown is None else unshown
    files = [
        _file(number[p], p, ranges[p], context, base, hidden, result.sha256.get(p))
        for p in sorted(ranges)
    ]
    marks = None if result.baseline is None else result.baseline.classes
    classes: list[dict[str, Any]] = []
    for n, clone in enumerate(result.classes, 1):
        new = (False,) * len(clone.occurrences) if marks is None else marks[n - 1].new
        classes.append(
            {
                "number": n,
                "occurrences": [
                    {
                        "file": number[o.path],
                        "path": _shown(o.path, base),
                        "start": o.start,
                        "end": o.end,
                        "tokens": o.tokens,
                        "new": fresh,
                    }
                    for o, fresh in zip(clone.occurrences, new)
                ],
                "tokens": max(o.tokens for o in clone.occurrences),
                "joins": () if marks is None else marks[n - 1].joins,
                "regions": [],
            }
        )
    regions: list[dict[str, Any]] = []
    first_region: dict[tuple[str, str], int] = {}
    for n, (region, of_class) in enumerate(zip(result.regions, result.region_class), 1):
        record = {
            "number": n,
            "a": number[region.a],
            "a_path": _shown(region.a, base),
            "a_start": region.a_start,
            "a_end": region.a_end,
            "b": number[region.b],
            "b_path": _shown(region.b, base),
            "b_start": region.b_start,
            "b_end": region.b_end,
            "tokens": region.tokens,
            "a_share": f"{region.a_share:.0%}",
            "b_share": f"{region.b_share:.0%}",
            "class": of_class,
        }
        regions.append(record)
        first_region.setdefault((region.a, region.b), n)
        if of_class is not None:
            classes[of_class - 1]["regions"].append(record)
    pairs = [
        {
            "a_path": _shown(pair.a, base),
            "b_path": _shown(pair.b, base),
            "similarity": f"{pair.similarity:.0%}",
            "a_share": f"{pair.a_share:.0%}",
            "b_share": f"{pair.b_share:.0%}",
            "tokens": pair.tokens,
            "regions": pair.regions,
            "region": first_region[pair.a, pair.b],
        }
        for pair in result.pairs()
    ]
    from markupsafe import Markup
    from pygments.formatters import HtmlFormatter

    summary = result.summary()
    baseline = summary.get("baseline")
    if baseline is not None:
        baseline = {**baseline, "source": visible(baseline["source"])}
    page: str = _template().render(
        css=Markup(HtmlFormatter().get_style_defs(".code")),  # pygments' own rules
        summary=summary,
        parameters=result.options.to_dict() if parameters is None else parameters,
        pairs=pairs,
        classes=classes,
        regions=regions,
        files=files,
        context=context,
        baseline=baseline,
    )
    return page
