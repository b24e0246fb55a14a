"""Baselines: report only what is new since a fragments report saved earlier.

A baseline is a JSON fragments report (:func:`~samecode.reports.fragments.to_json`, what
``samecode scan --fragments --format json`` writes). Places are matched by **path and
digest**: the path as the report gives it, and the :mod:`~samecode.fragments.digest` of
the place's tokens (its normalised text), not its line numbers, so a place that only
moved (lines added above it) is still old. Matches are *counted*: what the baseline holds
twice accounts for two places now, and a third is new (in each file, the places in
order: the later ones are new).

* A region is old when the baseline holds a region of the same two paths with the same
  two digests (counted).
* An occurrence is old when the baseline holds an occurrence of the same path and digest
  (counted), or when an old region ends in it (an old occurrence that a new copy matches
  over more lines than the old copies did grows, and so changes its digest).
* A clone class all of whose occurrences are old is left out.
* A class with at least one new occurrence is reported whole, its new occurrences marked,
  with the baseline classes it joins (those holding its old occurrences): a new copy of
  a clone the baseline already had.
* Of its regions, those with an end in a new occurrence are reported.

The baseline must be a report of the same command (``scan --fragments`` or ``match
--fragments``) made with the same :data:`MATCHED_PARAMETERS` (every fragment parameter,
and the boilerplate files' text: each moves the ends of regions or what their digests
are of); another one is refused with the parameters that differ, as is a file that is
not a fragments JSON report of this schema (any field a baseline reads missing or of
another type), or one made before reports held digests.

>>> import json
>>> from samecode.fragments.options import FragmentOptions
>>> region = {"a": "a.py", "b": "b.py", "a_digest": "d1", "b_digest": "d1", "class": 1}
>>> saved = {"schema": 1, "parameters": FragmentOptions().to_dict(), "regions": [region],
...          "classes": [{"id": 1, "occurrences": [{"path": "a.py", "digest": "d1"},
...                                                {"path": "b.py", "digest": "d1"}]}]}
>>> baseline = parse_baseline(json.dumps(saved), FragmentOptions())
>>> baseline.count("b.py", "d1"), baseline.count("c.py", "d1")
(1, 0)
"""

from __future__ import annotations

import dataclasses
import json
import os
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from samecode._validation import describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.options import UNSTATED, FragmentOptions
from samecode.fragments.regions import Region
from samecode.fragments.result import SCHEMA, BaselineNovelty, ClassNovelty, FragmentResult

__all__ = [
    "MATCHED_PARAMETERS",
    "Baseline",
    "BaselineError",
    "only_new",
    "parse_baseline",
    "read_baseline",
]

_OPTIONS = tuple(
    field.name for field in dataclasses.fields(FragmentOptions) if field.name != "all_pairs"
)
#: The parameters a baseline's report must state as the new report does (both made with
#: the same values): every field of
#: :class:`~samecode.fragments.options.FragmentOptions` (each decides which k-grams are
#: fingerprints, which of them seed a match, where a region ends or which tokens a digest
#: is of) but ``all_pairs`` (which pairs of copies are compared: the classes, which a
#: baseline is read by, are the same), and ``boilerplate_digest``, the
#: :meth:`~samecode.fragments.boilerplate.BoilerplateFiles.digest` of the boilerplate
#: files (a report without it was made without such files). ``guaranteed`` follows from
#: ``k`` and ``window``; ``min_file_tokens``, ``max_size`` and the corpus's name decide
#: which files are compared, as adding or removing files does, not what a file's places
#: are, and may differ.
MATCHED_PARAMETERS = (*_OPTIONS, "boilerplate_digest")


class BaselineError(SamecodeValueError):
    """A baseline that cannot be used: not a fragments JSON report, of another schema, or
    made with other parameters (the message says which and why)."""


@dataclass(frozen=True)
class Baseline:
    """A baseline read: where from; for each ``(path, digest)`` the baseline class
    numbers holding it (one entry per occurrence, in the baseline's order); and for each
    ``(a, a_digest, b, b_digest)`` the class numbers of its regions (one per region, 0
    for a region of no class)."""

    source: str
    places: dict[tuple[str, str], tuple[int, ...]]
    regions: dict[tuple[str, str, str, str], tuple[int, ...]] = dataclasses.field(
        default_factory=dict
    )

    def count(self, path: str, digest: str) -> int:
        """How many occurrences of ``digest`` in ``path`` the baseline holds."""
        return len(self.places.get((path, digest), ()))


def _refuse(source: str, why: str) -> BaselineError:
    return BaselineError(f"baseline {source} is not a samecode fragments JSON report: {why}")


def _made_by(parameters: Mapping[str, Any]) -> str:
    """The command whose report has these parameters: a match states its corpus."""
    return "match" if "corpus" in parameters else "scan"


def _matched(parameters: Mapping[str, Any], refuse: Callable[[str], Exception]) -> dict[str, Any]:
    """The :data:`MATCHED_PARAMETERS` of a report's ``parameters``, checked as
    :class:`~samecode.fragments.options.FragmentOptions` checks them (``refuse(why)``
    is raised for what is missing or wrong)."""
    parameters = {**UNSTATED, **parameters}
    absent = [name for name in _OPTIONS if name not in parameters]
    if absent:
        raise refuse(f"its parameters have no {', '.join(map(repr, absent))}")
    try:
        options = FragmentOptions(**{name: parameters[name] for name in _OPTIONS})
    except (TypeError, ValueError) as error:
        raise refuse(f"its parameters are not fragment parameters ({error})") from None
    boilerplate = parameters.get("boilerplate_digest")
    if boilerplate is not None and not isinstance(boilerplate, str):
        raise refuse(f"its boilerplate_digest is {describe(boilerplate)}, not a string")
    return {**options.to_dict(), "boilerplate_digest": boilerplate}


def _positive(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def parse_baseline(
    text: str, options: FragmentOptions | Mapping[str, Any], source: str = "<text>"
) -> Baseline:
    """Read a baseline from the text of a JSON fragments report.

    The report is checked whole, every field a baseline reads of its type (so that
    :func:`only_new` cannot fail on it), and refused unless it is of the same command as
    the new report (a ``scan``, or a ``match``, whose parameters name a ``corpus``) and
    made with the same :data:`MATCHED_PARAMETERS`, which decide its places and digests.

    :param text: the report's JSON.
    :param options: the parameters of the new report, as it states them (what
        :func:`~samecode.reports.fragments.to_json` is given: a scan's or a match's, with
        the ``boilerplate_digest`` of its boilerplate files if it has any); or the scan's
        :class:`~samecode.fragments.options.FragmentOptions`, for a scan without
        boilerplate files.
    :param source: where the text came from, for messages.
    :raises TypeError: if ``text`` is not a ``str`` or ``options`` not
        :class:`~samecode.fragments.options.FragmentOptions` or a mapping.
    :raises ValueError: if ``options``, a mapping, lacks a field of
        :class:`~samecode.fragments.options.FragmentOptions` or holds one it refuses.
    :raises BaselineError: (a :class:`ValueError`) for text that is not such a report, or
        one of the other command or made with other parameters (the message names them).

    Runtime complexity: ``O(len(text))``.

    >>> parse_baseline("[1, 2]", FragmentOptions())
    Traceback (most recent call last):
    ...
    samecode.fragments.baseline.BaselineError: baseline <text> is not a samecode fragments
    JSON report: it holds list [1, 2], not an object
    """
    if not isinstance(text, str):
        raise SamecodeTypeError(f"text must be a str; got {describe(text)}")
    if isinstance(options, FragmentOptions):
        options = options.to_dict()
    elif not isinstance(options, Mapping):
        raise SamecodeTypeError(
            f"options must be FragmentOptions or a report's parameters; got {describe(options)}"
        )

    def wrong(why: str) -> Exception:
        return SamecodeValueError(f"options must be a fragments report's parameters: {why}")

    ours = _matched(options, wrong)
    try:  # a report nested deeper than Python's recursion limit is no report
        return _parse(text, ours, _made_by(options), source)
    except RecursionError:
        raise _refuse(source, "it is nested too deep") from None


def _parse(text: str, ours: dict[str, Any], command: str, source: str) -> Baseline:
    """:func:`parse_baseline` once its arguments are checked: ``ours`` the new report's
    :data:`MATCHED_PARAMETERS`, ``command`` what made it."""
    data = _report_head(text, source)
    _check_parameters(data["parameters"], ours, command, source)
    return Baseline(
        source,
        _read_classes(data["classes"], source),
        _read_regions(data["regions"], source),
    )


def _json_object(text: str, source: str) -> dict[str, Any]:
    """The JSON object in ``text``."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise _refuse(source, f"not JSON ({error})") from None
    if not isinstance(data, dict):
        raise _refuse(source, f"it holds {describe(data)}, not an object")
    return data


def _report_head(text: str, source: str) -> dict[str, Any]:
    """The report in ``text``, refused unless it is a JSON object of this schema with
    ``parameters`` (an object), ``regions`` and ``classes`` (lists)."""
    data = _json_object(text, source)
    missing = [key for key in ("schema", "parameters", "regions", "classes") if key not in data]
    if missing:
        raise _refuse(
            source,
            f"it has no {', '.join(map(repr, missing))} (a JSON lines or file-level "
            "report? save one with scan --fragments --format json)",
        )
    schema = data["schema"]
    if isinstance(schema, bool) or not isinstance(schema, int) or schema != SCHEMA:
        shown = repr(schema) if type(schema) is int else describe(schema)
        raise _refuse(source, f"its schema is {shown}; this samecode reads {SCHEMA}")
    if not isinstance(data["parameters"], dict):
        raise _refuse(source, f"its parameters are {describe(data['parameters'])}, not an object")
    for name in ("regions", "classes"):
        if not isinstance(data[name], list):
            raise _refuse(source, f"its {name} are {describe(data[name])}, not a list")
    return data


def _check_parameters(
    parameters: Mapping[str, Any], ours: dict[str, Any], command: str, source: str
) -> None:
    """Refuse a report's ``parameters`` unless they are of ``command`` and state the
    :data:`MATCHED_PARAMETERS` as ``ours`` does."""
    theirs = _matched(parameters, lambda why: _refuse(source, why))
    made_by = _made_by(parameters)
    if made_by != command:
        raise BaselineError(
            f"baseline {source} is a report of {made_by} --fragments, not of {command} "
            "--fragments: its places cannot be compared"
        )
    different = [
        f"{name} {theirs[name]!r} (this {command}: {ours[name]!r})"
        for name in MATCHED_PARAMETERS
        if theirs[name] != ours[name]
    ]
    if different:
        raise BaselineError(
            f"baseline {source} was made with other fragment parameters: "
            f"{', '.join(different)}; its digests cannot be compared"
        )


def _read_classes(classes: list[Any], source: str) -> dict[tuple[str, str], tuple[int, ...]]:
    """:attr:`Baseline.places` from a report's ``classes``."""
    places: dict[tuple[str, str], list[int]] = {}
    for number, clone in enumerate(classes, 1):
        occurrences = clone.get("occurrences") if isinstance(clone, dict) else None
        if not isinstance(occurrences, list):
            raise _refuse(source, f"class {number} has no list of occurrences")
        ident = clone.get("id", number)
        if not _positive(ident):
            raise _refuse(source, f"class {number} has the id {describe(ident)}, not a "
                          "number from 1")  # fmt: skip
        for place in occurrences:
            places.setdefault(_occurrence_place(place, number, source), []).append(ident)
    return {key: tuple(value) for key, value in places.items()}


def _occurrence_place(place: object, number: int, source: str) -> tuple[str, str]:
    """The ``(path, digest)`` of an occurrence of class ``number``."""
    path = place.get("path") if isinstance(place, dict) else None
    digest = place.get("digest") if isinstance(place, dict) else None
    if not isinstance(path, str) or not isinstance(digest, str):
        raise _refuse(source, f"an occurrence of class {number} has no path and "
                      "digest (made by an older samecode? make it again)")  # fmt: skip
    return path, digest


def _read_regions(
    regions: list[Any], source: str
) -> dict[tuple[str, str, str, str], tuple[int, ...]]:
    """:attr:`Baseline.regions` from a report's ``regions``."""
    pairs: dict[tuple[str, str, str, str], list[int]] = {}
    for number, record in enumerate(regions, 1):
        key = _region_key(record, number, source)
        klass = record.get("class")
        if klass is not None and not _positive(klass):
            raise _refuse(source, f"region {number} has the class {describe(klass)}, not "
                          "a number from 1 or null")  # fmt: skip
        pairs.setdefault(key, []).append(klass or 0)
    return {key: tuple(value) for key, value in pairs.items()}


def _region_key(record: object, number: int, source: str) -> tuple[str, str, str, str]:
    """The ``(a, a_digest, b, b_digest)`` of region ``number``."""
    fields = [record.get(key) if isinstance(record, dict) else None
              for key in ("a", "a_digest", "b", "b_digest")]  # fmt: skip
    a, a_digest, b, b_digest = (value if isinstance(value, str) else "" for value in fields)
    if not (a and a_digest and b and b_digest):
        raise _refuse(source, f"region {number} has no paths and digests (made by an "
                      "older samecode? make it again)")  # fmt: skip
    return a, a_digest, b, b_digest


def read_baseline(
    path: str | os.PathLike[str], options: FragmentOptions | Mapping[str, Any]
) -> Baseline:
    """Read the baseline saved in the file ``path`` (see :func:`parse_baseline`, which
    takes ``options``).

    :raises TypeError, ValueError: for ``options`` of the wrong type or value.
    :raises BaselineError: for a file that cannot be read or used, with why.

    >>> import pathlib, tempfile
    >>> saved = pathlib.Path(tempfile.mkdtemp()) / "old.json"
    >>> options = {**FragmentOptions().to_dict(), "k": 8, "window": 4}
    >>> _ = saved.write_text(json.dumps({"schema": 1, "parameters": options, "regions": [],
    ...                                  "classes": []}))
    >>> read_baseline(saved, FragmentOptions())
    Traceback (most recent call last):
    ...
    samecode.fragments.baseline.BaselineError: baseline .../old.json was made with other
    fragment parameters: k 8 (this scan: 12), window 4 (this scan: 16); its digests cannot
    be compared
    """
    source = os.fspath(path)
    try:
        with open(source, encoding="utf-8") as file:
            text = file.read()
    except (OSError, UnicodeDecodeError) as error:
        raise BaselineError(f"cannot read baseline {source}: {error}") from None
    return parse_baseline(text, options, source)


def only_new(result: FragmentResult, baseline: Baseline) -> FragmentResult:
    """``result`` less what ``baseline`` holds (see the module's description): the
    classes with a new occurrence, their regions with an end in one, renumbered, and a
    :class:`BaselineNovelty` saying what was left out.

    :param result: a :class:`~samecode.fragments.result.FragmentResult` with its digests.
    :param baseline: a :class:`Baseline`.
    :raises TypeError: if ``baseline`` is not a :class:`Baseline`.
    :raises ValueError: if ``result`` has no digests for its classes.

    Runtime complexity: ``O((o + r) log o)`` for ``o`` occurrences and ``r`` regions.

    >>> from samecode.fragments.classes import FragmentClass, Occurrence
    >>> from samecode.fragments.tree import FragmentResult
    >>> clone = FragmentClass((Occurrence("a.py", 1, 9, 0, 50), Occurrence("b.py", 3, 11,
    ...                        5, 55)), 1)
    >>> found = FragmentResult(FragmentOptions(), ["a.py", "b.py"], [], [], [clone], [], 0, 0,
    ...                        10, 0, digests=[("d1", "d1")], region_digests=[])
    >>> old = Baseline("old.json", {("a.py", "d1"): (4,)})
    >>> only_new(found, old).baseline.classes
    [ClassNovelty(new=(False, True), joins=(4,))]
    """
    _check_only_new(result, baseline)
    located = _occurrences_by_file(result)
    holder = _holder(located)
    joins = _old_occurrences(result, baseline, located, holder)
    kept, novelty = _new_classes(result, joins)
    regions, region_class, digests = _kept_regions(result, kept, joins, holder)
    return dataclasses.replace(
        result,
        regions=regions,
        classes=[result.classes[n - 1] for n in kept],
        region_class=region_class,
        digests=[result.digests[n - 1] for n in kept],
        region_digests=digests,
        baseline=BaselineNovelty(
            baseline.source,
            novelty,
            len(result.classes) - len(kept),
            sum(clone.new.count(False) for clone in novelty),
            len(result.regions) - len(regions),
        ),
    )


#: An occurrence of a result: its class's number (from 1) and its index in the class.
_Place = tuple[int, int]
#: Which occurrence (if any) holds the token at ``first`` in ``path``.
_Holder = Callable[[str, int], "_Place | None"]


def _check_only_new(result: FragmentResult, baseline: Baseline) -> None:
    """Refuse the arguments of :func:`only_new` it cannot use."""
    if not isinstance(baseline, Baseline):
        raise SamecodeTypeError(f"baseline must be a Baseline; got {describe(baseline)}")
    if len(result.digests) != len(result.classes) or len(result.region_digests) != len(
        result.regions
    ):
        raise SamecodeValueError(
            f"the result must have digests for each class ({len(result.classes)}) and "
            f"region ({len(result.regions)}); got {len(result.digests)} and "
            f"{len(result.region_digests)}"
        )


def _occurrences_by_file(result: FragmentResult) -> dict[str, list[tuple[int, int, int, int]]]:
    """Each file's occurrences as ``(first, stop, class number, index)``, sorted (they
    do not overlap)."""
    located: dict[str, list[tuple[int, int, int, int]]] = {}
    for number, clone in enumerate(result.classes, 1):
        for index, o in enumerate(clone.occurrences):
            located.setdefault(o.path, []).append((o.first, o.stop, number, index))
    for found in located.values():
        found.sort()
    return located


def _holder(located: dict[str, list[tuple[int, int, int, int]]]) -> _Holder:
    """Which of the occurrences ``located`` holds a token (by bisection)."""
    firsts = {path: [item[0] for item in found] for path, found in located.items()}

    def holder(path: str, first: int) -> _Place | None:
        at = bisect_right(firsts.get(path, []), first) - 1
        if at < 0 or first >= located[path][at][1]:
            return None
        return located[path][at][2], located[path][at][3]

    return holder


def _ends(region: Region, holder: _Holder) -> tuple[_Place | None, _Place | None]:
    """The occurrences holding the two ends of ``region``."""
    return holder(region.a, region.a_first), holder(region.b, region.b_first)


def _old_occurrences(
    result: FragmentResult,
    baseline: Baseline,
    located: dict[str, list[tuple[int, int, int, int]]],
    holder: _Holder,
) -> dict[_Place, set[int]]:
    """The old occurrences of ``result``, each with the baseline classes it joins: those
    an old region ends in, and those whose place the baseline holds (counted)."""
    joins: dict[_Place, set[int]] = {}
    _join_old_regions(result, baseline, holder, joins)
    _join_old_places(result, baseline, located, joins)
    return joins


def _join_old_regions(
    result: FragmentResult, baseline: Baseline, holder: _Holder, joins: dict[_Place, set[int]]
) -> None:
    """Add to ``joins`` the occurrences an old region of ``result`` ends in (the regions
    matched with the baseline's, counted), with the classes of the baseline's regions."""
    regions_left = Counter({key: len(ids) for key, ids in baseline.regions.items()})
    for region, (a_digest, b_digest) in zip(result.regions, result.region_digests):
        key = (region.a, a_digest, region.b, b_digest)
        if regions_left[key] > 0:
            regions_left[key] -= 1
            ids = {n for n in baseline.regions[key] if n > 0}
            for end in _ends(region, holder):
                if end is not None:
                    joins.setdefault(end, set()).update(ids)


def _join_old_places(
    result: FragmentResult,
    baseline: Baseline,
    located: dict[str, list[tuple[int, int, int, int]]],
    joins: dict[_Place, set[int]],
) -> None:
    """Add to ``joins`` the occurrences whose place the baseline holds (counted, in each
    file in order), with the baseline classes holding it."""
    places_left = Counter({key: len(ids) for key, ids in baseline.places.items()})
    for path, found in sorted(located.items()):
        for _, _, number, index in found:
            place = (path, result.digests[number - 1][index])
            if places_left[place] > 0:
                places_left[place] -= 1
                joins.setdefault((number, index), set()).update(baseline.places[place])


def _new_classes(
    result: FragmentResult, joins: dict[_Place, set[int]]
) -> tuple[dict[int, int], list[ClassNovelty]]:
    """The classes with a new occurrence: each one's new number by its old, and what is
    new in it."""
    kept: dict[int, int] = {}
    novelty: list[ClassNovelty] = []
    for number, clone in enumerate(result.classes, 1):
        new = [(number, index) not in joins for index in range(len(clone.occurrences))]
        if any(new):
            kept[number] = len(kept) + 1
            joined = set().union(*(joins.get((number, i), set()) for i in range(len(new))))
            novelty.append(ClassNovelty(tuple(new), tuple(sorted(joined))))
    return kept, novelty


def _kept_regions(
    result: FragmentResult, kept: dict[int, int], joins: dict[_Place, set[int]], holder: _Holder
) -> tuple[list[Region], list[int | None], list[tuple[str, str]]]:
    """The regions of the classes ``kept`` with an end in a new occurrence: the regions,
    their classes' new numbers and their digests."""
    regions: list[Region] = []
    region_class: list[int | None] = []
    digests: list[tuple[str, str]] = []
    for region, of_class, pair in zip(result.regions, result.region_class, result.region_digests):
        if of_class is None or of_class not in kept:
            continue
        if any(end is not None and end not in joins for end in _ends(region, holder)):
            regions.append(region)
            region_class.append(kept[of_class])
            digests.append(pair)
    return regions, region_class, digests
