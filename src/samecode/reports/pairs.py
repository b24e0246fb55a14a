"""Reports of a scan: a table people read, and JSON, JSONL, CSV and SARIF for machines.

Machine formats are byte-identical for the same files and options (no times, no absolute
paths added, fixed key order, pairs sorted by paths), whatever the number of jobs. Paths
are written as found under the roots given; a name that is not valid UTF-8 (its bytes
kept as lone surrogates by Python) is escaped by JSON as ``\\udcXX`` (``os.fsencode``
gives the bytes back), percent-encoded in SARIF URIs, and shown with ``\\xXX`` escapes in
the table and SARIF's messages (:func:`visible`: so are control, bidirectional and other
invisible characters).

The JSON schema (``"schema": 1``): an object with ``parameters`` (the options that define
the similarity), ``summary`` (counts), ``pairs`` (objects with ``a``, ``b``, ``jaccard``,
``shared``, ``a_shingles``, ``b_shingles``, ``class``, and ``containment_a`` /
``containment_b`` when containment is the measure, ``corpus: true`` for a match against a
corpus), ``classes`` (``id``, ``members``, ``representative``, ``size``, ``min_jaccard``,
``max_jaccard``, ``link_jaccard``) and ``skipped`` (``path``, ``reason``). JSONL gives the
same records one per line, each with a ``type`` (``pair``, ``class``, ``skipped``), after a
first ``{"type": "scan", ...}`` line holding the parameters.

>>> from samecode.scan.pipeline import Pair, CloneClass
>>> report = Report({"threshold": 0.8}, [Pair("a.py", "b.py", 9, 10, 10)],
...                 [CloneClass(("a.py", "b.py"), "a.py", 9 / 11, 9 / 11, 9 / 11)], [], 2)
>>> print(to_jsonl(report))
{"type": "scan", "schema": 1, "parameters": {"threshold": 0.8}, "summary": {...}}
{"type": "pair", "a": "a.py", "b": "b.py", "jaccard": 0.8181818181818182, "shared": 9, ...}
{"type": "class", "id": 1, "members": ["a.py", "b.py"], "representative": "a.py", ...}
"""

from __future__ import annotations

import csv
import io
import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from samecode.reports._sarif import sarif_log, sarif_uri
from samecode.reports.format import Format, Formats, Output, TextFormat
from samecode.scan.model import CloneClass, Findings, Pair
from samecode.sources.skipped import Skipped
from samecode.text.display import visible

if TYPE_CHECKING:
    from samecode.corpus.store import Corpus
    from samecode.scan.pipeline import ScanOptions

__all__ = [
    "FORMATS",
    "PAIR_FORMATS",
    "Report",
    "corpus_parameters",
    "render",
    "scan_parameters",
    "to_csv",
    "to_json",
    "to_jsonl",
    "to_sarif",
    "to_table",
    "visible",
]

SCHEMA = 1


@dataclass
class Report:
    """What a report says: the parameters, pairs, classes, skipped files, and how many
    files were compared. Pairs in ``corpus_pairs`` matched a stored corpus file."""

    parameters: dict[str, Any]
    pairs: Sequence[Pair]
    classes: Sequence[CloneClass]
    skipped: Sequence[Skipped]
    compared: int
    corpus_pairs: Sequence[Pair] = field(default_factory=list)
    containment: bool = False

    @classmethod
    def of(
        cls,
        found: Findings,
        parameters: dict[str, Any],
        corpus_pairs: Sequence[Pair] = (),
    ) -> Report:
        """The report of what a scan found, whichever engine ran it, with the pairs it
        matched in a corpus; its similarity is the parameters' ``measure``.

        >>> from samecode.scan.pipeline import ScanOptions, ScanResult
        >>> options = ScanOptions()
        >>> found = ScanResult(options, [], [], [], [])
        >>> Report.of(found, scan_parameters(options)).summary()["compared"]
        0
        """
        return cls(
            parameters,
            found.pairs,
            found.classes,
            found.skipped,
            found.compared,
            corpus_pairs,
            parameters.get("measure") == "containment",
        )

    def class_of(self) -> dict[str, int]:
        """Each path in a class, with its class number (from 1)."""
        return {path: number for number, c in enumerate(self.classes, 1) for path in c.members}

    def summary(self) -> dict[str, Any]:
        reasons = Counter(s.kind.value for s in self.skipped)
        return {
            "compared": self.compared,
            "skipped": len(self.skipped),
            "skipped_by_reason": dict(sorted(reasons.items())),
            "pairs": len(self.pairs),
            "classes": len(self.classes),
            "pairs_between_classes": self.pairs_between_classes(),
            "corpus_matches": len(self.corpus_pairs),
        }

    def pairs_between_classes(self) -> int:
        """How many pairs join files of two classes (or a file in none): none when the
        classes are linked groups; with ``chaining="star"``, the pairs cut."""
        class_of = self.class_of()
        return sum(
            1 for p in self.pairs if class_of.get(p.a) != class_of.get(p.b) or p.a not in class_of
        )


def scan_parameters(options: ScanOptions) -> dict[str, Any]:
    """The options that define a report's similarity, as its ``parameters`` say them:
    threshold, measure, method (and the method's settings), the shingling rules,
    ``min_tokens`` and ``max_size``.

    >>> from samecode.scan.pipeline import ScanOptions
    >>> scan_parameters(ScanOptions())["threshold"], scan_parameters(ScanOptions())["shingle"]
    (0.8, 5)
    """
    chosen = options.chosen_method
    rules = options.shingling.to_dict()
    return {
        "threshold": float(options.exact_threshold),
        "measure": options.measure,
        "method": options.method_name,
        **{("shingle" if key == "size" else key): value for key, value in rules.items()},
        "min_tokens": options.walk.min_tokens,
        "max_size": options.walk.max_size,
        "chaining": options.chaining,
        **chosen.parameters(options.exact_threshold),
    }


def corpus_parameters(name: str, corpus: Corpus) -> dict[str, Any]:
    """The corpus a report matched against (as ``name``), and how it finds candidates
    (``corpus_lsh``: ``None`` for exact prefixes; an LSH corpus may miss a pair, and its
    settings say how likely that was)."""
    lsh = corpus.lsh
    return {"corpus": name, "corpus_lsh": None if lsh is None else lsh.to_dict()}


def _pair_record(
    pair: Pair, report: Report, classes: dict[str, int], corpus: bool
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "a": pair.a,
        "b": pair.b,
        "jaccard": pair.jaccard,
        "shared": pair.shared,
        "a_shingles": pair.a_shingles,
        "b_shingles": pair.b_shingles,
    }
    record.update(pair.notes)
    if report.containment:
        record["containment_a"] = pair.containment_a
        record["containment_b"] = pair.containment_b
    if corpus:
        record["corpus"] = True
    else:
        record["class"] = classes.get(pair.a)
    return record


def _class_record(number: int, clone: CloneClass) -> dict[str, Any]:
    return {
        "id": number,
        "members": list(clone.members),
        "representative": clone.representative,
        "size": len(clone.members),
        "min_jaccard": clone.min_jaccard,
        "max_jaccard": clone.max_jaccard,
        "link_jaccard": clone.link_jaccard,
    }


def _records(report: Report) -> Iterable[tuple[str, dict[str, Any]]]:
    classes = report.class_of()
    for pair in report.pairs:
        yield "pair", _pair_record(pair, report, classes, False)
    for pair in report.corpus_pairs:
        yield "pair", _pair_record(pair, report, classes, True)
    for number, clone in enumerate(report.classes, 1):
        yield "class", _class_record(number, clone)
    for skipped in report.skipped:
        yield "skipped", {"path": skipped.path, "reason": skipped.reason}


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=True, allow_nan=False)


def to_json(report: Report) -> str:
    """The report as one JSON object (see the module's schema)."""
    groups: dict[str, list[dict[str, Any]]] = {"pair": [], "class": [], "skipped": []}
    for kind, record in _records(report):
        groups[kind].append(record)
    whole = {
        "schema": SCHEMA,
        "parameters": report.parameters,
        "summary": report.summary(),
        "pairs": groups["pair"],
        "classes": groups["class"],
        "skipped": groups["skipped"],
    }
    return json.dumps(whole, ensure_ascii=True, allow_nan=False, indent=2)


def to_jsonl(report: Report) -> str:
    """The report as JSON lines: a ``scan`` line, then a line per pair, class, skipped."""
    head = {
        "type": "scan",
        "schema": SCHEMA,
        "parameters": report.parameters,
        "summary": report.summary(),
    }
    lines = [_dumps(head)]
    lines += [_dumps({"type": kind, **record}) for kind, record in _records(report)]
    return "\n".join(lines)


def to_csv(report: Report) -> str:
    """The pairs as CSV, with a header row: the pair's counts, its clone ``class`` (the
    number of :func:`to_json`'s classes; empty for a corpus match), the method's notes,
    and whether it matched a ``corpus`` file."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    header = ["a", "b", "jaccard", "shared", "a_shingles", "b_shingles"]
    if report.containment:
        header += ["containment_a", "containment_b"]
    notes = list(dict.fromkeys(name for pair in report.pairs for name, _ in pair.notes))
    writer.writerow([*header, "class", *notes, "corpus"])
    classes = report.class_of()
    for pairs, corpus in ((report.pairs, ""), (report.corpus_pairs, "yes")):
        for pair in pairs:
            row: list[Any] = [pair.a, pair.b, repr(pair.jaccard), pair.shared, pair.a_shingles]
            row.append(pair.b_shingles)
            if report.containment:
                row += [repr(pair.containment_a), repr(pair.containment_b)]
            row.append("" if corpus else classes.get(pair.a, ""))
            said = dict(pair.notes)
            row += [_csv_note(said.get(name)) for name in notes]
            writer.writerow([*row, corpus])
    return out.getvalue().rstrip("\n")


def _csv_note(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else ""
    return "" if value is None else repr(value) if isinstance(value, float) else str(value)


def to_sarif(report: Report) -> str:
    """The pairs as a SARIF 2.1.0 log: a ``note`` per pair, on ``a``, related to ``b``."""
    results = []
    for pairs, corpus in ((report.pairs, False), (report.corpus_pairs, True)):
        for pair in pairs:
            where = "a corpus file" if corpus else "another file"
            results.append(
                {
                    "ruleId": "near-duplicate",
                    "level": "note",
                    "message": {
                        "text": f"{visible(pair.a)} is {pair.jaccard:.1%} similar to "
                        f"{where}, {visible(pair.b)} (Jaccard of shingles; {pair.shared} "
                        f"shared of {pair.a_shingles} and {pair.b_shingles})"
                    },
                    "locations": [
                        {"physicalLocation": {"artifactLocation": {"uri": sarif_uri(pair.a)}}}
                    ],
                    "relatedLocations": [
                        {
                            "id": 1,
                            "message": {"text": "the near-copy"},
                            "physicalLocation": {"artifactLocation": {"uri": sarif_uri(pair.b)}},
                        }
                    ],
                    "properties": {
                        "jaccard": pair.jaccard,
                        "shared": pair.shared,
                        "corpus": corpus,
                    },
                }
            )
    rule = {
        "id": "near-duplicate",
        "name": "NearDuplicateFile",
        "shortDescription": {"text": "Near-duplicate file"},
        "fullDescription": {
            "text": "Two files whose sets of token shingles have a "
            "Jaccard index at or above the threshold."
        },
        "defaultConfiguration": {"level": "note"},
    }
    log = sarif_log([rule], {"properties": {"parameters": report.parameters}, "results": results})
    return json.dumps(log, ensure_ascii=True, allow_nan=False, indent=2)


def to_table(report: Report, width: int | None = None) -> Any:
    """The clone classes (and corpus matches) as ``rich`` renderables.

    :raises ImportError: without ``rich`` (the ``cli`` extra).

    >>> from samecode.scan.pipeline import Pair, CloneClass
    >>> report = Report({}, [Pair("src/a.py", "src/b.py", 9, 10, 10)],
    ...                 [CloneClass(("src/a.py", "src/b.py"), "src/a.py", 0.8, 0.8, 0.8)], [], 2)
    >>> print(PAIR_FORMATS["table"].render(report))
    Near-duplicate files, in classes (paths under src)
    ┏━━━┳━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┓
    ┃ # ┃ file ┃ shingles ┃ Jaccard with the first ┃
    ┡━━━╇━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━┩
    │ 1 │ a.py │       10 │                        │
    │   │ b.py │       10 │                  0.818 │
    └───┴──────┴──────────┴────────────────────────┘
    """
    from rich.console import Group
    from rich.text import Text

    shown = [p for c in report.classes for p in c.members]
    shown += [p for pair in report.corpus_pairs for p in (pair.a, pair.b)]
    base = _common_folder(shown)
    where = f" (paths under {visible(base)})" if base else ""

    def short(path: str) -> str:
        return visible(path[len(base) :].lstrip("/\\") if base else path)

    parts: list[Any] = []
    if report.classes:
        parts.append(_classes_table(report, short, where))
    noted = [pair for pair in report.pairs if pair.notes]
    if noted:
        parts.append(_notes_table(noted, short, where))
    if report.corpus_pairs:
        parts.append(_corpus_table(report.corpus_pairs, short, where))
    if not parts:
        parts.append(Text("No near-duplicates at this threshold."))
    return Group(*parts)


def _classes_table(report: Report, short: Callable[[str], str], where: str) -> Any:
    """Each clone class, its representative first and bold, each other member with its
    Jaccard with the representative (``linked`` when only a chain joins them)."""
    from rich.table import Table
    from rich.text import Text

    table = Table(
        title=f"Near-duplicate files, in classes{where}", title_justify="left", expand=False
    )
    table.add_column("#", justify="right")
    table.add_column("file", overflow="fold")
    table.add_column("shingles", justify="right")
    table.add_column("Jaccard with the first", justify="right")
    best: dict[tuple[str, str], float] = {(p.a, p.b): p.jaccard for p in report.pairs}
    sizes = _sizes(report.pairs)  # once: the table is linear in pairs and members
    for number, clone in enumerate(report.classes, 1):
        first = clone.representative
        rows = [first, *(m for m in clone.members if m != first)]
        for index, member in enumerate(rows):
            similarity = "" if member == first else _similarity(best, first, member)
            table.add_row(
                str(number) if index == 0 else "",
                Text(short(member), style="bold" if index == 0 else ""),
                str(sizes.get(member, "")),
                similarity,
                end_section=index == len(rows) - 1,
            )
    return table


def _corpus_table(pairs: Sequence[Pair], short: Callable[[str], str], where: str) -> Any:
    """Each file that matched a stored one, with the stored file and their Jaccard."""
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"Matches in the corpus{where}", title_justify="left")
    table.add_column("file", overflow="fold")
    table.add_column("corpus file", overflow="fold")
    table.add_column("Jaccard", justify="right")
    for pair in pairs:
        table.add_row(Text(short(pair.a)), Text(short(pair.b)), f"{pair.jaccard:.3f}")
    return table


def _notes_table(pairs: Sequence[Pair], short: Callable[[str], str], where: str) -> Any:
    """Every pair with what the method said of it (seed 004's report)."""
    from rich.table import Table
    from rich.text import Text

    names = list(dict(pairs[0].notes))
    proposed = sum(1 for pair in pairs if dict(pair.notes).get("lsh_candidate"))
    title = f"Pairs{where}, exact and as the method saw them"
    if "lsh_candidate" in names:
        title += f" (LSH proposed {proposed} of {len(pairs)})"
    table = Table(title=title, title_justify="left")
    table.add_column("a", overflow="fold")
    table.add_column("b", overflow="fold")
    table.add_column("Jaccard", justify="right")
    for name in names:
        table.add_column(name.replace("_", " "), justify="right")
    for pair in pairs:
        notes = dict(pair.notes)
        cells = [_note_text(notes.get(name)) for name in names]
        table.add_row(Text(short(pair.a)), Text(short(pair.b)), f"{pair.jaccard:.3f}", *cells)
    return table


def _note_text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return "" if value is None else str(value)


def _common_folder(paths: Sequence[str]) -> str:
    """The deepest folder holding every path, if it is more than the root or nothing."""

    if len(paths) < 2:
        return ""
    try:
        common = os.path.commonpath(paths)
    except ValueError:  # absolute and relative paths mixed
        return ""
    if common in ("", ".", os.sep) or common in paths:
        return ""
    return common


def _sizes(pairs: Sequence[Pair]) -> dict[str, int]:
    sizes: dict[str, int] = {}
    for pair in pairs:
        sizes[pair.a] = pair.a_shingles
        sizes[pair.b] = pair.b_shingles
    return sizes


def _similarity(best: dict[tuple[str, str], float], first: str, member: str) -> str:
    key = (first, member) if first < member else (member, first)
    value = best.get(key)
    return "linked" if value is None else f"{value:.3f}"


class _Table(Format[Report]):
    """The ``rich`` tables of :func:`to_table`, drawn."""

    def write(self, report: Report, out: Output) -> None:
        out.drawing(to_table(report))


#: The formats of a scan's report, by name: ``table`` (:func:`to_table`, the default),
#: ``json``, ``jsonl``, ``csv`` and ``sarif``.
PAIR_FORMATS: Formats[Format[Report]] = Formats(
    "pairs",
    [
        _Table("table"),
        TextFormat("json", to_json),
        TextFormat("jsonl", to_jsonl),
        TextFormat("csv", to_csv),
        TextFormat("sarif", to_sarif),
    ],
)
#: The names of :data:`PAIR_FORMATS`.
FORMATS = tuple(PAIR_FORMATS)


def render(report: Report, format: str) -> str:
    """The report in a format of :data:`PAIR_FORMATS` (``table`` needs ``rich``).

    :raises ~samecode.reports.format.UnknownFormatError: for another format.

    >>> render(Report({}, [], [], [], 0), "csv")
    'a,b,jaccard,shared,a_shingles,b_shingles,class,corpus'
    """
    return PAIR_FORMATS.lookup(format).render(report)
