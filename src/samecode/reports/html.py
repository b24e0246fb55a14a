"""Fragments as one self-contained HTML page: file pairs, clone classes and regions in
tables, and any of them side by side on demand.

:func:`to_html` writes a small page (the template ``templates/report.html.j2``: its CSS
and plain JavaScript inline, nothing fetched, so it works offline) and one JSON data
blob in it (:func:`page_data` reads it back). The page's script builds from the blob:

* the **summary** (written as text, not by the script): files compared and skipped (by
  reason), regions, pairs, classes, what was ignored (boilerplate and repetitive
  fingerprints, masked lines by reason) and the parameters;
* three **tables**, a page of rows at a time: the file pairs
  (:mod:`~samecode.fragments.pairs`, the most alike first), the clone classes and the
  regions; a click on a header sorts by it, the pairs filter by path, similarity and
  tokens, and a search box keeps the rows whose paths or lines hold its text;
* a **side-by-side pane**, made when a row is opened (or ``#pair-N``, ``#class-N``,
  ``#region-N`` is followed): the lines of both files, the region's highlighted, masked
  lines (licence headers, import blocks, boilerplate files) shown as masked, with a few
  lines of context; it takes the bottom of the window (the tables stay above it) and
  closes with Escape or its button.

The page holds each file's lines within ``context`` lines of an occurrence or a region,
each line once however many regions show it, zlib-compressed (a browser's
``DecompressionStream`` reads them), so the page grows with the text shown, not with the
number of regions. A line longer than :data:`LONGEST_LINE` characters is cut there, with
a marker saying how many characters (which columns) are not shown. Lines are shown as
plain text. Shares and similarities are in the blob as whole ten-thousandths (``0.5``
is ``5000``): integers cost less to write and to read than decimals.

Paths and lines show control, bidirectional and other invisible characters escaped
(:func:`~samecode.text.display.visible`; tabs in code are kept); the script writes them
as text, never as markup. Needs jinja2 (the ``cli`` extra). A file that cannot be read
any more, or that changed since the scan read it, shows why instead of its lines; texts
given (a corpus's stored files) are shown as given.

>>> import pathlib, tempfile
>>> from samecode.fragments.tree import scan_fragments
>>> from samecode.sources.walk import WalkOptions
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> block = "".join(f"total_{i} = price_{i} * count + tax\\n" for i in range(10))
>>> for name in ("a.py", "b.py"):
...     _ = (root / name).write_text(block)
>>> page = to_html(scan_fragments([str(root)], walk=WalkOptions(gitignore=False)), root=root)
>>> page.startswith("<!DOCTYPE html>"), "http" in page
(True, False)
>>> data = page_data(page)
>>> data["files"], data["regions"]["a_start"], data["regions"]["b_end"]
([['a.py', ''], ['b.py', '']], [1], [10])
>>> data["lines"][1][3]
'total_2 = price_2 * count + tax'
"""

from __future__ import annotations

import base64
import functools
import json
import os
import re
import zlib
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from importlib import resources
from itertools import accumulate
from operator import attrgetter
from typing import Any

from samecode._validation import check_int, describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.ignored import REASONS
from samecode.fragments.result import FragmentResult
from samecode.sources.reading import Text, read_text
from samecode.sources.skipped import Skipped
from samecode.text.display import counted, visible

__all__ = ["LONGEST_LINE", "page_data", "to_html"]

_LONE_CR = re.compile("\r(?!\n)")
#: The ASCII characters that show as themselves, and the tab and new line a page keeps.
_SHOWN_ASCII = bytes(range(0x20, 0x7F)) + b"\t\n"
_BLOB = re.compile(r'<script type="application/json" id="data">(.*?)</script>', re.DOTALL)
_PACKED = re.compile(r'<script type="application/octet-stream" id="lines">([^<]*)</script>')

#: The characters of a line the page shows: the rest of a longer line (a minified
#: bundle's one line) is left out, and a marker says how many characters and which
#: columns, so that the page's size, and a browser's work, stay those of what it shows.
LONGEST_LINE = 1000


def _wanted(ranges: list[int], context: int) -> list[tuple[int, int]]:
    """The line ranges to show, merged: each range (``ranges`` are first, last, first,
    last...) widened by ``context``."""
    merged: list[list[int]] = []
    # a class's occurrence is most often a region's end too: each range once
    for start, end in sorted(set(zip(ranges[::2], ranges[1::2]))):
        low, high = max(1, start - context), end + context
        if merged and low <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], high)
        else:
            merged.append([low, high])
    return [(low, high) for low, high in merged]


class _Lines:
    """The lines the page shows: for each file its runs of lines, ``[first line, how
    many]``, the text of them all in order, and the cut lines ``[file, line, length]``."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.files: list[list[list[int]]] = []
        self.cuts: list[list[int]] = []

    def add(self, number: int, text: str, ranges: list[int], context: int) -> None:
        """Of file ``number``'s ``text`` (as read), the lines within ``context`` of
        ``ranges``: a lone CR shown as U+240D, each line cut at :data:`LONGEST_LINE`,
        escaped (:func:`visible`, tabs kept)."""
        if "\r" in text:
            text = _LONE_CR.sub("\u240d", text).replace("\r\n", "\n")
        # Most code is ASCII with no control character but tabs: no line needs an escape.
        plain = text.isascii() and not text.encode("ascii").translate(None, _SHOWN_ASCII)
        lines = text.split("\n")  # as fragments count lines: each ends at "\n"
        long = len(text) > LONGEST_LINE and max(map(len, lines)) > LONGEST_LINE
        runs: list[list[int]] = []
        for low, high in _wanted(ranges, context):
            chunk = lines[low - 1 : high]
            if not chunk:
                continue
            if long:
                chunk = [self._cut(number, n, line) for n, line in enumerate(chunk, low)]
            if not plain:
                chunk = [visible(line, keep="\t") for line in chunk]
            self.text += chunk
            runs.append([low, len(chunk)])
        self.files.append(runs)

    def _cut(self, number: int, line_number: int, line: str) -> str:
        if len(line) <= LONGEST_LINE:
            return line
        self.cuts.append([number, line_number, len(line)])
        return line[:LONGEST_LINE]

    def packed(self) -> str:
        """The lines as the page holds them, before compression: on the first line the
        files' runs, as JSON, then the lines of the runs, in order (none holds a new
        line). zlib's window finds most repeats within a file; a line copied from file to
        file is in each, which costs less to write than to find."""
        return "\n".join([json.dumps(self.files, separators=(",", ":")), *self.text])


def _shown(path: str, root: str | None) -> str:
    """``path`` as the page shows it: relative to ``root`` (absolute and normalised)
    when within it."""
    if root is not None:
        absolute = os.path.abspath(path)
        inside = root if root.endswith(os.sep) else root + os.sep  # "/" ends in one
        if absolute.startswith(inside):
            path = absolute[len(inside) :]
        elif absolute == root:
            path = os.curdir
    return visible(path)


def _readable(path: str, unshown: Mapping[str, str], sha256: str | None) -> Text | str:
    """``path``'s text, or why its lines cannot be shown."""
    if path in unshown:
        return f"cannot show the file: {unshown[path]}"
    text = read_text(path, None)
    if isinstance(text, Skipped):
        return f"cannot show the file: {text.reason}"
    if sha256 is not None and text.sha256 != sha256:  # its lines now are not those matched
        return "cannot show the file: changed since it was read"
    return text


def _value(value: Any) -> str:
    """A parameter's value as people read it (a mapping as ``key value, ...``)."""
    if isinstance(value, Mapping):
        return ", ".join(f"{key} {_value(item)}" for key, item in value.items()) or "none"
    if isinstance(value, (list, tuple)):
        return ", ".join(_value(item) for item in value) or "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return "none"
    return str(value)


def _summary(summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The summary as sentences, each with a short term for it."""
    skipped = ", ".join(
        f"{count:,} {reason}" for reason, count in summary["skipped_by_reason"].items()
    )
    said = [
        (
            "files",
            f"{counted(summary['compared'], 'file')} compared"
            + (f"; {summary['skipped']:,} skipped ({skipped})." if summary["skipped"] else "."),
        ),
        (
            "found",
            f"{counted(summary['regions'], 'region')} shared by "
            f"{counted(summary['pairs'], 'file pair')}, in "
            f"{counted(summary['classes'], 'clone class', 'clone classes')}.",
        ),
        (
            "boilerplate",
            f"{counted(summary['boilerplate_fingerprints'], 'fingerprint')} ignored as "
            f"boilerplate, each in more than {counted(summary['boilerplate_limit'], 'file')} "
            f"({counted(summary['boilerplate_occurrences'], 'occurrence')}); "
            f"{counted(summary['repetitive_fingerprints'], 'repetitive fingerprint')} "
            "(a k-gram repeated too often in a file seeds nothing there).",
        ),
    ]
    masked = [
        f"{counted(count['lines'], 'line')} as {reason} ({counted(count['ranges'], 'range')}, "
        f"{counted(count['tokens'], 'token')}, in {counted(count['files'], 'file')})"
        for reason, count in summary["ignored"].items()
        if count["ranges"]
    ]
    said.append(("masked", "Masked: " + "; ".join(masked) + "." if masked else "No line masked."))
    baseline = summary.get("baseline")
    if baseline is not None:
        said.append(
            (
                "baseline",
                f"Since the baseline {visible(baseline['source'])}: "
                f"{counted(baseline['old_classes'], 'class', 'classes')} and "
                f"{counted(baseline['old_regions'], 'region')} left out (all in it); "
                f"{counted(baseline['new_occurrences'], 'new occurrence')} (marked new).",
            )
        )
    known = {"compared", "skipped", "skipped_by_reason", "regions", "pairs", "classes",
             "boilerplate_fingerprints", "boilerplate_limit", "boilerplate_occurrences",
             "repetitive_fingerprints", "ignored", "baseline"}  # fmt: skip
    said += [(key.replace("_", " "), _value(value)) for key, value in summary.items()
             if key not in known]  # fmt: skip
    return said


def _script_json(value: Any) -> str:
    """``value`` as JSON that a ``<script>`` element holds as it is: ``<``, ``>`` and
    ``&`` escaped (only strings hold them), so no text can close the element."""
    text = json.dumps(value, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


@functools.cache
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
    texts: Mapping[str, Text] | None = None,
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
    :param texts: files' texts to show instead of reading the files (the texts a corpus
        keeps of its files: :func:`~samecode.corpus.fragments.stored_texts`).
    :raises TypeError: for a result of the wrong type, or a text that is not a
        :class:`~samecode.sources.reading.Text`.
    :raises ValueError: for a ``context`` out of range.

    Runtime complexity: ``O(size)`` to read each file with an occurrence, and
    ``O(r log r + l)`` for ``r`` regions and the ``l`` lines shown, each cut at
    :data:`LONGEST_LINE` characters. The same result (and files) gives the same bytes.
    """
    if not isinstance(result, FragmentResult):
        raise SamecodeTypeError(f"result must be a FragmentResult; got {describe(result)}")
    check_int(context, "context")
    if not 0 <= context <= 1000:
        raise SamecodeValueError(f"context must be from 0 to 1000; got {context}")
    # Each file's places as first, last, first, last...: ints, which Python need not
    # collect, rather than as many pairs (as are the keys of the pairs, below).
    ranges: dict[str, list[int]] = {}
    for clone in result.classes:
        for o in clone.occurrences:
            ranges.setdefault(o.path, []).extend((o.start, o.end))
    for region in result.regions:
        ranges.setdefault(region.a, []).extend((region.a_start, region.a_end))
        ranges.setdefault(region.b, []).extend((region.b_start, region.b_end))
    paths = sorted(ranges)
    number = {path: n for n, path in enumerate(paths)}
    base = None if root is None else os.path.abspath(os.fspath(root))
    hidden = {} if unshown is None else unshown
    given = {} if texts is None else texts
    for kept in given.values():
        if not isinstance(kept, Text):
            raise SamecodeTypeError(f"texts must map paths to Text; got {describe(kept)}")
    lines = _Lines()
    files: list[list[str]] = []
    for n, path in enumerate(paths):
        text = given[path] if path in given else _readable(path, hidden, result.sha256.get(path))
        if isinstance(text, str):
            files.append([_shown(path, base), text])
            lines.files.append([])
        else:
            files.append([_shown(path, base), ""])
            lines.add(n, text.text, ranges[path], context)
    # The lines are most of the page, and most of its time: zlib's fastest level, in a
    # thread (zlib lets go of the GIL) while this one makes the tables.
    with ThreadPoolExecutor(1) as pool:
        packing = pool.submit(_packed, lines.packed())
        blob = _script_json(_data(result, number, files, lines.cuts, context))
        packed = packing.result()
    from markupsafe import Markup

    stated = result.options.to_dict() if parameters is None else parameters
    page: str = _template().render(
        summary=_summary(result.summary()),
        parameters=[(key.replace("_", " "), _value(value)) for key, value in stated.items()],
        data=Markup(blob),  # escaped for a <script> element
        packed=Markup(packed),  # base64: nothing to escape
        longest=LONGEST_LINE,
    )
    return page


def _ten_thousandths(shares: Iterable[float]) -> list[int]:
    """Each of ``shares`` (0 to 1) in whole ten-thousandths, rounded half up."""
    return [int(share * 10000 + 0.5) for share in shares]


def _packed(lines: str) -> str:
    """The page's lines compressed, as its script unpacks them."""
    return base64.b64encode(zlib.compress(lines.encode("utf-8"), 1)).decode()


def _data(
    result: FragmentResult,
    number: dict[str, int],
    files: list[list[str]],
    cuts: list[list[int]],
    context: int,
) -> dict[str, Any]:
    """The page's data but its lines: the files (numbered ``number``), classes, regions,
    pairs and masked lines, as its script reads them."""
    # Columns, not rows: a list per field, not per region, is much less for Python to
    # make and collect, and for the page to parse.
    marks = None if result.baseline is None else result.baseline.classes
    places = [o for clone in result.classes for o in clone.occurrences]
    occurrences = {
        "file": list(map(number.__getitem__, map(attrgetter("path"), places))),
        "start": list(map(attrgetter("start"), places)),
        "end": list(map(attrgetter("end"), places)),
        "tokens": [o.stop - o.first for o in places],
        "new": [0] * len(places) if marks is None else [int(n) for m in marks for n in m.new],
    }
    firsts = list(accumulate((len(clone.occurrences) for clone in result.classes), initial=0))
    found = result.regions
    a_files = list(map(number.__getitem__, map(attrgetter("a"), found)))
    b_files = list(map(number.__getitem__, map(attrgetter("b"), found)))
    regions: dict[str, list[Any]] = {
        "a": a_files,
        "a_start": list(map(attrgetter("a_start"), found)),
        "a_end": list(map(attrgetter("a_end"), found)),
        "b": b_files,
        "b_start": list(map(attrgetter("b_start"), found)),
        "b_end": list(map(attrgetter("b_end"), found)),
        "tokens": list(map(attrgetter("tokens"), found)),
        "a_share": _ten_thousandths(map(attrgetter("a_share"), found)),
        "b_share": _ten_thousandths(map(attrgetter("b_share"), found)),
        "class": [n or 0 for n in result.region_class],
    }
    first_region: dict[int, int] = {}
    for n, (a, b) in enumerate(zip(a_files, b_files), 1):
        first_region.setdefault(a * len(files) + b, n)
    alike = result.pairs()
    pairs = {
        "a": [number[p.a] for p in alike],
        "b": [number[p.b] for p in alike],
        "similarity": _ten_thousandths(map(attrgetter("similarity"), alike)),
        "a_share": _ten_thousandths(map(attrgetter("a_share"), alike)),
        "b_share": _ten_thousandths(map(attrgetter("b_share"), alike)),
        "tokens": [p.tokens for p in alike],
        "regions": [p.regions for p in alike],
        "region": [first_region[number[p.a] * len(files) + number[p.b]] for p in alike],
    }
    masked = [[number[item.path], item.start, item.end, REASONS.index(item.reason)]
              for item in result.ignored if item.path in number]  # fmt: skip
    return {
        "context": context,
        "files": files,
        "reasons": list(REASONS),
        "masked": masked,
        "cuts": cuts,
        "pairs": pairs,
        "classes": {
            "first": firsts,
            "joins": [] if marks is None else [list(m.joins) for m in marks],
            "occurrences": occurrences,
        },
        "regions": regions,
    }


def page_data(page: str) -> dict[str, Any]:
    """The data of a page :func:`to_html` made, as its script reads it: ``files`` (each
    ``[path as shown, why its lines are not shown or ""]``); ``pairs``, columns ``a``,
    ``b``, ``similarity``, ``a_share``, ``b_share``, ``tokens``, ``regions`` and
    ``region`` (the number of its first); ``regions``, columns ``a``, ``a_start``,
    ``a_end``, ``b``, ``b_start``, ``b_end``, ``tokens``, ``a_share``, ``b_share`` and
    ``class`` (0 for none); ``classes``: ``occurrences`` in columns ``file``, ``start``,
    ``end``, ``tokens``, ``new`` (1 or 0), class ``n``'s from ``first[n - 1]`` to
    ``first[n]``, and the baseline classes each ``joins``; ``masked`` (``[file, start,
    end, reason]``, the reason an index in ``reasons``); ``cuts`` (``[file, line, its
    length]``); ``context``; and, unpacked, ``lines``: for each file, the text of each
    line the page holds, by its number. Files are numbered from 0, pairs, classes and
    regions from 1; similarities and shares are whole ten-thousandths (``5000`` is half).

    :param page: the text of the page.
    :raises ValueError: for a page that holds no such data.
    """
    found, packed = _BLOB.search(page), _PACKED.search(page)
    if found is None or packed is None:
        raise SamecodeValueError("not a samecode HTML report: no data in the page")
    data: dict[str, Any] = json.loads(found.group(1))
    runs, *text = zlib.decompress(base64.b64decode(packed.group(1))).decode().split("\n")
    shown = iter(text)
    lines: list[dict[int, str]] = []
    for of_file in json.loads(runs):
        lines.append({})
        for first, count in of_file:
            lines[-1].update(zip(range(first, first + count), shown))
    return {**data, "lines": lines}
