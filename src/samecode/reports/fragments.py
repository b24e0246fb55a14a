"""Reports of fragments: JSON lines and JSON for machines, text people read.

JSON lines (``"schema": 1``): a first ``{"type": "fragments", ...}`` line with the
``parameters`` and the ``summary`` (counts, boilerplate and repetitive fingerprints
ignored), then one object per file pair, region, clone class and skipped file:

* ``{"type": "pair", "a", "b", "similarity", "a_share", "b_share", "tokens",
  "regions"}``: two files that share regions (:mod:`~samecode.fragments.pairs`), the most
  alike first: ``similarity`` the share of both files' tokens inside their shared
  regions, ``a_share`` and ``b_share`` that of each file's, ``tokens`` the tokens the
  regions matched, ``regions`` how many;
* ``{"type": "region", "a", "a_start", "a_end", "b", "b_start", "b_end", "tokens",
  "a_share", "b_share", "matches", "class", "a_digest", "b_digest"}``: lines from 1,
  inclusive; ``a_digest`` and ``b_digest`` the :mod:`~samecode.fragments.digest` of its
  tokens in each file; ``tokens`` the tokens matched, ``a_share`` and ``b_share`` their
  share of each file's tokens, ``matches`` how many exact matches the region chains,
  ``class`` its clone class;
* ``{"type": "class", "id", "occurrences": [{"path", "start", "end", "tokens",
  "digest"}], "regions"}``: ``digest`` the :mod:`~samecode.fragments.digest` of the
  occurrence's tokens; with a baseline (:mod:`~samecode.fragments.baseline`), each
  occurrence says whether it is ``new`` and the class which baseline classes it
  ``joins``;
* ``{"type": "skipped", "path", "reason"}``;
* ``{"type": "ignored", "path", "reason", "start", "end", "tokens"}``: lines whose tokens
  were ignored as boilerplate (``reason``: ``licence header``, ``import block`` or
  ``boilerplate file``; :mod:`~samecode.fragments.boilerplate`), counted by reason in the
  summary's ``ignored``.

JSON is one object holding the same: ``schema``, ``parameters``, ``summary``, ``pairs``,
``regions``, ``classes``, ``skipped``, ``ignored``. CSV is the file pairs alone, a row
each under a header row (``a,b,similarity,a_share,b_share,tokens,regions``). The same
files and options give the same bytes.

:data:`FRAGMENT_FORMATS` writes a :class:`FragmentReport` (the result, its parameters and
the roots scanned) in each format; :data:`FRAGMENT_COMPARISON_FORMATS` writes the regions
of two files (:func:`~samecode.fragments.tree.compare_fragments`).

>>> from samecode.fragments.options import FragmentOptions
>>> from samecode.fragments.tree import FragmentResult
>>> empty = FragmentResult(FragmentOptions(), [], [], [], [], [], 0, 0, 10, 0)
>>> print(to_jsonl(empty, {"k": 12}))
{"type": "fragments", "schema": 1, "parameters": {"k": 12}, "summary": {"compared": 0, ...}}
>>> print(to_text(empty))
No shared fragments of 40 tokens or more.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from samecode.fragments.boilerplate import BoilerplateFiles
from samecode.fragments.classes import FragmentClass
from samecode.fragments.ignored import groups_of, rows_of
from samecode.fragments.options import FragmentOptions
from samecode.fragments.pairs import FilePair, file_pairs
from samecode.fragments.regions import Region
from samecode.fragments.result import SCHEMA, FragmentResult
from samecode.fragments.tree import FragmentComparison
from samecode.reports.format import Format, Formats, TextFormat
from samecode.reports.html import to_html
from samecode.reports.sarif import common_root, to_sarif
from samecode.sources.reading import Text
from samecode.sources.walk import WalkOptions
from samecode.text.display import visible

if TYPE_CHECKING:
    from samecode.corpus.store import Corpus

__all__ = [
    "FORMATS",
    "FRAGMENT_COMPARISON_FORMATS",
    "FRAGMENT_FORMATS",
    "FragmentFormat",
    "FragmentReport",
    "comparison_json",
    "comparison_text",
    "fragment_parameters",
    "ignored_text",
    "jsonl_pieces",
    "records",
    "to_csv",
    "to_json",
    "to_jsonl",
    "to_text",
]


def fragment_parameters(
    options: FragmentOptions, walk: WalkOptions, boilerplate: BoilerplateFiles | None = None
) -> dict[str, Any]:
    """What a fragments report's parameters state: the fragment options, the walk's
    ``min_tokens`` (as ``min_file_tokens``) and ``max_size``, and the digest of the
    ``boilerplate`` files' k-grams (``boilerplate_digest``, none without any), so that a
    baseline made with other ones is refused
    (:mod:`~samecode.fragments.baseline`).

    >>> parameters = fragment_parameters(FragmentOptions(), WalkOptions())
    >>> parameters["k"], parameters["min_file_tokens"], "boilerplate_digest" in parameters
    (12, 10, False)
    """
    return {
        **options.to_dict(),
        "min_file_tokens": walk.min_tokens,
        "max_size": walk.max_size,
        **({} if boilerplate is None else {"boilerplate_digest": boilerplate.digest()}),
    }


def _region_record(
    region: Region, number: int | None, digests: tuple[str, str] | None = None
) -> dict[str, Any]:
    record = {
        "a": region.a,
        "a_start": region.a_start,
        "a_end": region.a_end,
        "b": region.b,
        "b_start": region.b_start,
        "b_end": region.b_end,
        "tokens": region.tokens,
        "a_share": region.a_share,
        "b_share": region.b_share,
        "matches": len(region.matches),
        "class": number,
    }
    if digests is not None:
        record["a_digest"], record["b_digest"] = digests
    return record


def _pair_record(pair: FilePair) -> dict[str, Any]:
    return {
        "a": pair.a,
        "b": pair.b,
        "similarity": pair.similarity,
        "a_share": pair.a_share,
        "b_share": pair.b_share,
        "tokens": pair.tokens,
        "regions": pair.regions,
    }


def _class_record(number: int, clone: FragmentClass, result: FragmentResult) -> dict[str, Any]:
    occurrences = [
        {"path": o.path, "start": o.start, "end": o.end, "tokens": o.tokens}
        for o in clone.occurrences
    ]
    if result.digests:
        for record, digest in zip(occurrences, result.digests[number - 1]):
            record["digest"] = digest
    record = {"id": number, "occurrences": occurrences, "regions": clone.regions}
    if result.baseline is not None:
        novelty = result.baseline.classes[number - 1]
        for place, new in zip(occurrences, novelty.new):
            place["new"] = new
        record["joins"] = list(novelty.joins)
    return record


def records(result: FragmentResult) -> Iterable[tuple[str, dict[str, Any]]]:
    """``(type, record)`` for every file pair, region, class, skipped file and range
    ignored, in the report's order."""
    yield from _found_records(result)
    for path, reason, start, end, tokens, _, _ in rows_of(result.ignored):
        yield (
            "ignored",
            {"path": path, "reason": reason, "start": start, "end": end, "tokens": tokens},
        )


def _found_records(result: FragmentResult) -> Iterator[tuple[str, dict[str, Any]]]:
    """The records of :func:`records` but the ranges ignored."""
    for found in result.pairs():
        yield "pair", _pair_record(found)
    digests: list[tuple[str, str] | None] = [*result.region_digests]
    digests += [None] * (len(result.regions) - len(digests))
    for region, number, pair in zip(result.regions, result.region_class, digests):
        yield "region", _region_record(region, number, pair)
    for number, clone in enumerate(result.classes, 1):
        yield "class", _class_record(number, clone, result)
    yield from _skipped_records(result)


def _skipped_records(result: FragmentResult) -> Iterator[tuple[str, dict[str, Any]]]:
    for skipped in result.skipped:
        yield "skipped", {"path": skipped.path, "reason": skipped.reason}


_dumps = json.JSONEncoder(ensure_ascii=True, allow_nan=False).encode  # one encoder for all


def jsonl_pieces(result: FragmentResult, parameters: dict[str, Any]) -> Iterator[str]:
    """:func:`to_jsonl`'s text in pieces, each a whole line or lines (a newline before
    each, but the first): to write a long report without holding it whole. A file's
    ranges ignored for one reason are one piece.

    >>> from samecode.fragments.options import FragmentOptions
    >>> empty = FragmentResult(FragmentOptions(), [], [], [], [], [], 0, 0, 1, 0)
    >>> pieces = list(jsonl_pieces(empty, {}))
    >>> len(pieces), "".join(pieces) == to_jsonl(empty, {})
    (1, True)
    """
    head = {
        "type": "fragments",
        "schema": SCHEMA,
        "parameters": parameters,
        "summary": result.summary(),
    }
    yield _dumps(head)
    # Pairs, regions and ranges ignored are tens of thousands of lines of one shape each,
    # made here as the encoder makes them (its separators; a number as its repr), each
    # path encoded once: some 3 us a region, against 12 us for a record encoded.
    encoded: dict[str, str] = {}

    def text(value: str) -> str:
        found = encoded.get(value)
        if found is None:
            found = encoded[value] = _dumps(value)
        return found

    for pair in result.pairs():
        yield _pair_json(pair, text)
    digests = result.region_digests
    for at, (region, number) in enumerate(zip(result.regions, result.region_class)):
        yield _region_json(region, number, digests[at] if at < len(digests) else None, text)
    for number, clone in enumerate(result.classes, 1):
        if result.baseline is None:
            places = result.digests[number - 1] if result.digests else ()
            yield _class_json(number, clone, places, text)
        else:
            yield "\n" + _dumps({"type": "class", **_class_record(number, clone, result)})
    for kind, record in _skipped_records(result):
        yield "\n" + _dumps({"type": kind, **record})
    # a file's ranges of one reason (a catalogue's tens of them) formatted in C's loops
    for path, reason, starts, ends, tokens in groups_of(result.ignored):
        opening = f'\n{{"type": "ignored", "path": {text(path)}, "reason": {text(reason)}, '
        line = opening.replace("%", "%%") + '"start": %d, "end": %d, "tokens": %d}'
        yield "".join(map(line.__mod__, zip(starts, ends, tokens)))


def _number(value: object) -> str:
    """``value`` as the encoder gives it: an ``int`` or a finite ``float`` by its repr,
    anything else by the encoder (which refuses what JSON cannot hold)."""
    if type(value) is int or (type(value) is float and math.isfinite(value)):
        return repr(value)
    return _dumps(value)


def _pair_json(pair: FilePair, text: Callable[[str], str]) -> str:
    """The JSON line of a file pair, its newline first: as ``_dumps`` of its record."""
    return (
        f'\n{{"type": "pair", "a": {text(pair.a)}, "b": {text(pair.b)}, '
        f'"similarity": {_number(pair.similarity)}, "a_share": {_number(pair.a_share)}, '
        f'"b_share": {_number(pair.b_share)}, "tokens": {_number(pair.tokens)}, '
        f'"regions": {_number(pair.regions)}}}'
    )


def _class_json(
    number: int, clone: FragmentClass, digests: Sequence[str], text: Callable[[str], str]
) -> str:
    """The JSON line of a class without a baseline, its newline first: as ``_dumps`` of
    its record (``digests``: its occurrences', or none)."""
    places = []
    for at, o in enumerate(clone.occurrences):
        digest = "" if at >= len(digests) else f', "digest": {_dumps(digests[at])}'
        places.append(
            f'{{"path": {text(o.path)}, "start": {_number(o.start)}, '
            f'"end": {_number(o.end)}, "tokens": {_number(o.tokens)}{digest}}}'
        )
    return (
        f'\n{{"type": "class", "id": {_number(number)}, "occurrences": [{", ".join(places)}], '
        f'"regions": {_number(clone.regions)}}}'
    )


def _region_json(
    region: Region,
    number: int | None,
    digests: tuple[str, str] | None,
    text: Callable[[str], str],
) -> str:
    """The JSON line of a region, its newline first: as ``_dumps`` of its record."""
    line = (
        f'\n{{"type": "region", "a": {text(region.a)}, "a_start": {_number(region.a_start)}, '
        f'"a_end": {_number(region.a_end)}, "b": {text(region.b)}, '
        f'"b_start": {_number(region.b_start)}, "b_end": {_number(region.b_end)}, '
        f'"tokens": {_number(region.tokens)}, "a_share": {_number(region.a_share)}, '
        f'"b_share": {_number(region.b_share)}, "matches": {len(region.matches):d}, '
        f'"class": {"null" if number is None else _number(number)}'
    )
    if digests is None:
        return line + "}"
    a_digest, b_digest = digests
    return f'{line}, "a_digest": {_dumps(a_digest)}, "b_digest": {_dumps(b_digest)}}}'


def to_jsonl(result: FragmentResult, parameters: dict[str, Any]) -> str:
    """The result as JSON lines (see the module's description), ``parameters`` stated in
    the first."""
    return "".join(jsonl_pieces(result, parameters))


def to_json(result: FragmentResult, parameters: dict[str, Any]) -> str:
    """The result as one JSON object (see the module's description)."""
    groups: dict[str, list[dict[str, Any]]] = {
        "pair": [],
        "region": [],
        "class": [],
        "skipped": [],
        "ignored": [],
    }
    for kind, record in records(result):
        groups[kind].append(record)
    whole = {
        "schema": SCHEMA,
        "parameters": parameters,
        "summary": result.summary(),
        "pairs": groups["pair"],
        "regions": groups["region"],
        "classes": groups["class"],
        "skipped": groups["skipped"],
        "ignored": groups["ignored"],
    }
    return json.dumps(whole, ensure_ascii=True, allow_nan=False, indent=2)


def _share(value: float) -> str:
    return f"{value:.0%}" if value >= 0.01 else "<1%"


def _region_line(region: Region) -> str:
    return (
        f"{visible(region.a)}:{region.a_start}-{region.a_end} = "
        f"{visible(region.b)}:{region.b_start}-{region.b_end}, {region.tokens:,} tokens "
        f"({_share(region.a_share)} of a, {_share(region.b_share)} of b)"
    )


def _pair_line(pair: FilePair) -> str:
    regions = "1 region" if pair.regions == 1 else f"{pair.regions:,} regions"
    return (
        f"{visible(pair.a)} = {visible(pair.b)}: {_share(pair.similarity)} similar "
        f"({_share(pair.a_share)} of a, {_share(pair.b_share)} of b), "
        f"{pair.tokens:,} tokens in {regions}"
    )


_PAIRS_HEAD = (
    "File pairs, the most alike first (similar: the share of both files' tokens in their regions)"
)


#: What a range ignored for each reason is called, one and several.
_NAMES = {
    "licence header": ("licence header", "licence headers"),
    "import block": ("import block", "import blocks"),
    "boilerplate file": ("boilerplate file", "boilerplate-file ranges"),
    "message ids": ("run of message ids", "runs of message ids"),
}


def ignored_text(result: FragmentResult) -> str | None:
    """One line saying what was ignored as boilerplate, by reason, or ``None``.

    >>> from samecode.fragments.ignored import Ignored
    >>> from samecode.fragments.options import FragmentOptions
    >>> ignored = [Ignored("a.py", "import block", 1, 3, 9)]
    >>> print(ignored_text(FragmentResult(FragmentOptions(), [], [], [], [], [], 0, 0, 10, 0,
    ...                                   ignored=ignored)))
    Ignored: 1 import block (3 lines, 9 tokens, in 1 file)
    >>> ignored = [Ignored("de.po", "message ids", 1, 2, 4),
    ...            Ignored("de.po", "message ids", 4, 4, 2)]
    >>> print(ignored_text(FragmentResult(FragmentOptions(), [], [], [], [], [], 0, 0, 10, 0,
    ...                                   ignored=ignored)))
    Ignored: 2 runs of message ids (3 lines, 6 tokens, in 1 file)
    """
    parts = []
    for reason, count in result.summary()["ignored"].items():
        if count["ranges"]:
            name = _NAMES[reason][count["ranges"] != 1]
            files = "1 file" if count["files"] == 1 else f"{count['files']:,} files"
            parts.append(
                f"{count['ranges']:,} {name} ({count['lines']:,} lines, "
                f"{count['tokens']:,} tokens, in {files})"
            )
    return f"Ignored: {', '.join(parts)}" if parts else None


def to_text(result: FragmentResult) -> str:
    """The file pairs, the most alike first, then the clone classes, each with its
    occurrences as ``path:first-last`` lines, then every region, then what was ignored as
    boilerplate (:func:`ignored_text`)."""
    ignored = ignored_text(result)
    tail = [] if ignored is None else [ignored]
    if not result.regions and result.baseline is not None:
        return "\n".join(
            [
                f"Nothing new since the baseline ({result.baseline.old_classes} clone classes "
                "left out, all in it).",
                *tail,
            ]
        )
    if not result.regions:
        return "\n".join(
            [f"No shared fragments of {result.options.min_tokens} tokens or more.", *tail]
        )
    lines = [_PAIRS_HEAD]
    lines += [f"  {_pair_line(pair)}" for pair in result.pairs()]
    lines.append("Clone classes (the same text in several places)")
    marks = None if result.baseline is None else result.baseline.classes
    for number, clone in enumerate(result.classes, 1):
        longest = max(o.tokens for o in clone.occurrences)
        head = f"{number:>4}. {len(clone.occurrences)} occurrences, up to {longest:,} tokens"
        new = (False,) * len(clone.occurrences) if marks is None else marks[number - 1].new
        if marks is not None and marks[number - 1].joins:
            head += f"; joins baseline class {', '.join(map(str, marks[number - 1].joins))}"
        lines.append(head)
        lines += [f"    {'+ ' if fresh else '  '}{visible(o.path)}:{o.start}-{o.end}"
                  for o, fresh in zip(clone.occurrences, new)]  # fmt: skip
    if marks is not None:
        lines.append("(+ new since the baseline)")
    lines.append("Regions (file:lines = file:lines)")
    lines += [f"  {_region_line(region)}" for region in result.regions]
    return "\n".join(lines + tail)


def to_csv(result: FragmentResult) -> str:
    """The file pairs as CSV, the most alike first, under a header row: ``a``, ``b``,
    ``similarity``, ``a_share``, ``b_share``, ``tokens``, ``regions`` (as in JSON lines).

    >>> from samecode.fragments.options import FragmentOptions
    >>> print(to_csv(FragmentResult(FragmentOptions(), [], [], [], [], [], 0, 0, 10, 0)))
    a,b,similarity,a_share,b_share,tokens,regions
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["a", "b", "similarity", "a_share", "b_share", "tokens", "regions"])
    for pair in result.pairs():
        writer.writerow([pair.a, pair.b, repr(pair.similarity), repr(pair.a_share),
                         repr(pair.b_share), pair.tokens, pair.regions])  # fmt: skip
    return out.getvalue().rstrip("\n")


def _comparison_pair(comparison: FragmentComparison) -> FilePair | None:
    """The pair of the two files compared, ``None`` if they share no region."""
    found = file_pairs(
        comparison.regions,
        {comparison.a: comparison.a_tokens},
        {comparison.b: comparison.b_tokens},
    )
    return found[0] if found else None


def comparison_json(comparison: FragmentComparison) -> str:
    """The regions of two files as one JSON object: ``a``, ``b``, their ``a_tokens`` and
    ``b_tokens``, ``repetitive``, their ``pair`` (as in JSON lines, without ``a`` and
    ``b``; ``null`` if they share no region) and ``regions`` (as in JSON lines, with no
    class)."""
    pair = _comparison_pair(comparison)
    shown = None
    if pair is not None:
        shown = _pair_record(pair)
        del shown["a"], shown["b"]
    regions = []
    for region in comparison.regions:
        record = _region_record(region, None)
        del record["class"]
        regions.append(record)
    whole = {
        "a": comparison.a,
        "b": comparison.b,
        "a_tokens": comparison.a_tokens,
        "b_tokens": comparison.b_tokens,
        "repetitive": comparison.repetitive,
        "pair": shown,
        "regions": regions,
    }
    return _dumps(whole)


def _numbered(text: str, start: int, end: int) -> list[str]:
    lines = text.split("\n")[start - 1 : end]
    width = len(str(end))
    # what would not show as itself is escaped first, so that tabs are laid out at the
    # columns of the text as shown, escapes and all; only blanks and a CRLF's CR are
    # taken off the end (a form feed or a line separator there is shown)
    shown = [visible(line.rstrip(" \t\r"), keep="\t").expandtabs() for line in lines]
    return [f"  {start + n:>{width}} | {line}" for n, line in enumerate(shown)]


def comparison_text(comparison: FragmentComparison) -> str:
    """How alike two files are (their pair's similarity and shares), then each region
    with its shared text: the lines of ``a``, and those of ``b`` when they differ (names
    made placeholders by ``normalize``, or lines in a gap).

    >>> import pathlib, tempfile
    >>> from samecode.fragments.options import FragmentOptions
    >>> from samecode.fragments.tree import compare_fragments
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> block = "".join(f"row_{i} = load(path_{i})\\n" for i in range(6))
    >>> _ = (folder / "a.py").write_text(block)
    >>> _ = (folder / "b.py").write_text("import os\\n" + block)
    >>> found = compare_fragments(folder / "a.py", folder / "b.py", FragmentOptions(k=5,
    ...                           window=4, min_tokens=20))
    >>> print(comparison_text(found).replace(str(folder), "<tmp>"))
    <tmp>/a.py = <tmp>/b.py: 97% similar (100% of a, 95% of b), 36 tokens in 1 region
    region 1: <tmp>/a.py:1-6 = <tmp>/b.py:2-7, 36 tokens (100% of a, 95% of b)
      1 | row_0 = load(path_0)
      2 | row_1 = load(path_1)
    ...
      6 | row_5 = load(path_5)
    """
    if not comparison.regions:
        return (
            f"{visible(comparison.a)} and {visible(comparison.b)} share no region of "
            "the minimum length"
        )
    pair = _comparison_pair(comparison)
    lines = [] if pair is None else [_pair_line(pair)]
    for number, region in enumerate(comparison.regions, 1):
        lines.append(f"region {number}: {_region_line(region)}")
        shared = _numbered(comparison.a_text, region.a_start, region.a_end)
        lines += shared
        other = _numbered(comparison.b_text, region.b_start, region.b_end)
        if [line.split("|", 1)[1] for line in other] != [line.split("|", 1)[1] for line in
                                                         shared]:  # fmt: skip
            lines.append(f"  in {visible(region.b)}:")
            lines += other
    return "\n".join(lines)


@dataclass(frozen=True)
class FragmentReport:
    """A fragments result and all its formats need to write it.

    :param result: the :class:`~samecode.fragments.result.FragmentResult`.
    :param parameters: the parameters the report states (JSON, JSON lines, the page).
    :param roots: the paths scanned: SARIF's URIs and the page's paths are relative to the
        folder that holds them all (:func:`~samecode.reports.sarif.common_root`).
    :param unshown: stored files whose text the page must not show, each with why
        (:meth:`FragmentFormat.stored_views`).
    :param texts: stored files' texts as a corpus keeps them, which the page shows
        instead of reading the files (:meth:`FragmentFormat.stored_views`).

    >>> from samecode.fragments.options import FragmentOptions
    >>> empty = FragmentResult(FragmentOptions(), [], [], [], [], [], 0, 0, 10, 0)
    >>> FragmentReport(empty, {}, ["/src/a", "/src/b"]).root
    '/src'
    """

    result: FragmentResult
    parameters: dict[str, Any]
    roots: Sequence[str]
    unshown: Mapping[str, str] = field(default_factory=dict)
    texts: Mapping[str, Text] = field(default_factory=dict)

    @property
    def root(self) -> str:
        """The folder that holds every one of :attr:`roots`, absolute."""
        return common_root(self.roots)


class FragmentFormat(TextFormat[FragmentReport]):
    """A format of a :class:`FragmentReport`, made by one function of it.

    :param name: the format's name.
    :param make: the function making the report's text (whole or in pieces).
    :param shows_text: whether the format shows the files' lines, read again from disk
        (then :meth:`stored_views` asks the corpus for the texts it keeps and which
        files it must not show).

    >>> from samecode.fragments.options import FragmentOptions
    >>> empty = FragmentResult(FragmentOptions(), [], [], [], [], [], 0, 0, 10, 0)
    >>> FRAGMENT_FORMATS["table"].render(FragmentReport(empty, {}, ["."]))
    'No shared fragments of 40 tokens or more.'
    """

    def __init__(
        self,
        name: str,
        make: Callable[[FragmentReport], str | Iterable[str]],
        shows_text: bool = False,
    ) -> None:
        super().__init__(name, make)
        self.shows_text = shows_text

    def stored_views(
        self, corpus: Corpus, result: FragmentResult
    ) -> tuple[dict[str, Text], dict[str, str]]:
        """For a format that shows lines, of the stored files of ``result`` (matched
        against ``corpus``, still open): the texts the corpus keeps of them
        (:func:`~samecode.corpus.fragments.stored_texts`, format version 4), and those
        whose text on disk is not the text stored, each with why
        (:func:`~samecode.corpus.fragments.unshown_stored`); nothing for the others (at
        no cost: no file is read).

        >>> FRAGMENT_FORMATS["json"].stored_views(None, None)
        ({}, {})
        """
        if not self.shows_text:
            return {}, {}
        from samecode.corpus.fragments import stored_texts, unshown_stored

        return stored_texts(corpus, result), unshown_stored(corpus, result)


#: The formats of a fragments report (a :class:`FragmentReport`), by name: ``table``
#: (:func:`to_text`, the default), ``json``, ``jsonl``, ``csv`` (:func:`to_csv`), ``sarif``
#: (:mod:`~samecode.reports.sarif`) and ``html`` (:mod:`~samecode.reports.html`).
FRAGMENT_FORMATS: Formats[FragmentFormat] = Formats(
    "fragments",
    [
        FragmentFormat("table", lambda report: to_text(report.result)),
        FragmentFormat("json", lambda report: to_json(report.result, report.parameters)),
        FragmentFormat("jsonl", lambda report: jsonl_pieces(report.result, report.parameters)),
        FragmentFormat("csv", lambda report: to_csv(report.result)),
        FragmentFormat("sarif", lambda report: to_sarif(report.result, report.root)),
        FragmentFormat(
            "html",
            lambda report: to_html(
                report.result,
                report.parameters,
                root=report.root,
                unshown=report.unshown,
                texts=report.texts,
            ),
            shows_text=True,
        ),
    ],
)
#: The names of :data:`FRAGMENT_FORMATS`.
FORMATS = tuple(FRAGMENT_FORMATS)

#: The formats of two files' regions (a
#: :class:`~samecode.fragments.tree.FragmentComparison`), by name: ``text``
#: (:func:`comparison_text`, the default) and ``json`` (:func:`comparison_json`).
FRAGMENT_COMPARISON_FORMATS: Formats[Format[FragmentComparison]] = Formats(
    "fragment comparison",
    [TextFormat("text", comparison_text), TextFormat("json", comparison_json)],
)
