"""Fragments as SARIF 2.1.0, as GitHub code scanning takes it.

:func:`to_sarif` writes one run of one rule, :data:`RULE_ID`, and one result per
occurrence of a clone class (with a baseline, per *new* occurrence), at ``note`` level:

* the result's location is the occurrence: its path relative to the scanned root
  (``uriBaseId`` ``SRCROOT``, which ``originalUriBaseIds`` gives as the root's
  ``file:`` URI; a path outside the root is an absolute ``file:`` URI), and a region of
  ``startLine`` and ``endLine`` (from 1, inclusive);
* the class's other occurrences are its ``relatedLocations`` (ids from 1), linked from
  the message as ``[path:first-last](id)``;
* ``partialFingerprints.primaryLocationLineHash`` is the first 16 hex digits of the
  occurrence's :mod:`~samecode.fragments.digest` (the SHA-256 of its normalised tokens),
  ``:`` and the number of that digest's occurrence in the file (1 for the first, by
  line): the same text gives the same fingerprint wherever it moves in its file, so
  code scanning keeps an alert open across edits elsewhere;
* ``properties`` give the class number, its occurrences and the tokens.

GitHub's limits (:class:`SarifLimits`) are kept by a stated rule, in this order:
``relatedLocations`` are cut to ``locations - 1`` per result (the primary location
counts); results past ``results`` are left out, in the report's order (the classes with
the most occurrences first); then, while the log gzipped (level 6) is larger than
``gzip_bytes``, the longest prefix of the results that fits is kept. Whatever was cut
is counted in the run's ``properties.truncated`` and said in a ``warning`` notification
of its invocation; a result that lost related locations says how many in its message
and ``properties.omittedRelatedLocations``. The same result gives the same bytes.

>>> from samecode.fragments.classes import FragmentClass, Occurrence
>>> from samecode.fragments.options import FragmentOptions
>>> from samecode.fragments.tree import FragmentResult
>>> clone = FragmentClass((Occurrence("/src/a.py", 1, 9, 0, 50),
...                        Occurrence("/src/b.py", 3, 11, 5, 55)), 1)
>>> found = FragmentResult(FragmentOptions(), ["/src/a.py", "/src/b.py"], [], [], [clone],
...                        [], 0, 0, 10, 0, digests=[("0123456789abcdef" * 2,) * 2])
>>> import json
>>> log = json.loads(to_sarif(found, root="/src"))
>>> first = log["runs"][0]["results"][0]
>>> first["message"]["text"]
'Lines 1-9 are copied: the same text is in [b.py:3-11](1).'
>>> first["partialFingerprints"], first["locations"][0]["physicalLocation"]["region"]
({'primaryLocationLineHash': '0123456789abcdef:1'}, {'startLine': 1, 'endLine': 9})
"""

from __future__ import annotations

import gzip
import json
import os
import pathlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from samecode._validation import check_int, describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.classes import Occurrence
from samecode.fragments.result import FragmentResult
from samecode.reports._sarif import sarif_log, sarif_uri

__all__ = ["RULE_ID", "SarifLimits", "common_root", "to_sarif"]

#: The one rule's id: stable across versions.
RULE_ID = "samecode/copied-fragment"
_SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
_LINKED = 10  # related locations linked from a message; the others are only listed


@dataclass(frozen=True)
class SarifLimits:
    """The most a log holds (GitHub code scanning's limits by default).

    :param results: results per run.
    :param locations: locations per result, the primary one included (at least 1).
    :param gzip_bytes: bytes of the whole log gzipped.
    :raises TypeError, ValueError: for a limit that is not a positive whole number.

    >>> SarifLimits().results, SarifLimits().locations, SarifLimits().gzip_bytes
    (25000, 1000, 10485760)
    """

    results: int = 25_000
    locations: int = 1_000
    gzip_bytes: int = 10 * 1024 * 1024

    def __post_init__(self) -> None:
        for name in ("results", "locations", "gzip_bytes"):
            value = check_int(getattr(self, name), name)
            if value < 1:
                raise SamecodeValueError(f"{name} must be at least 1; got {value}")


def common_root(roots: Sequence[str | os.PathLike[str]]) -> str:
    """The folder that holds every one of ``roots`` (a file's own folder), absolute: what
    SARIF's URIs are made relative to.

    :raises TypeError: if ``roots`` is a lone path.
    :raises ValueError: if ``roots`` is empty.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> os.makedirs(os.path.join(folder, "src"))
    >>> common_root([os.path.join(folder, "src"), folder]) == os.path.abspath(folder)
    True
    """
    if isinstance(roots, (str, bytes, os.PathLike)):
        raise SamecodeTypeError(f"roots must be a list of paths; got {describe(roots)}")
    if not roots:
        raise SamecodeValueError("roots must name at least one path; got none")
    folders = []
    for root in roots:
        path = os.path.abspath(os.fspath(root))
        folders.append(path if os.path.isdir(path) else os.path.dirname(path))
    return os.path.commonpath(folders)


def _location(path: str, root: str) -> dict[str, Any]:
    absolute = os.path.abspath(path)
    relative = os.path.relpath(absolute, root)
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return {"uri": pathlib.Path(absolute).as_uri()}
    return {"uri": sarif_uri(relative), "uriBaseId": "SRCROOT"}


def _physical(place: Occurrence, root: str) -> dict[str, Any]:
    return {
        "physicalLocation": {
            "artifactLocation": _location(place.path, root),
            "region": {"startLine": place.start, "endLine": place.end},
        }
    }


def _link_text(place: Occurrence, root: str) -> str:
    """``path:first-last`` for a message's link: the path as its URI says it, with the
    characters of link syntax escaped."""
    location = _location(place.path, root)
    shown = location["uri"]
    for char in "\\[]":
        shown = shown.replace(char, "\\" + char)
    return f"{shown}:{place.start}-{place.end}"


def _result(
    result: FragmentResult, number: int, index: int, root: str, line_hash: str, limits: SarifLimits
) -> dict[str, Any]:
    clone = result.classes[number - 1]
    place = clone.occurrences[index]
    others = [o for n, o in enumerate(clone.occurrences) if n != index]
    kept = others[: limits.locations - 1]
    links = [f"[{_link_text(o, root)}]({n})" for n, o in enumerate(kept[:_LINKED], 1)]
    text = f"Lines {place.start}-{place.end} are copied: the same text is in "
    rest = len(others) - len(links)
    if links:
        text += ", ".join(links)
        text += f" and {rest} more place{'s' if rest > 1 else ''}" if rest else ""
    else:
        text += f"{rest} other place{'s' if rest > 1 else ''}"
    if len(others) > len(kept):
        text += f" ({len(others) - len(kept)} not listed: too many locations)"
    properties: dict[str, Any] = {
        "class": number,
        "occurrences": len(clone.occurrences),
        "tokens": place.tokens,
    }
    if len(others) > len(kept):
        properties["omittedRelatedLocations"] = len(others) - len(kept)
    related = []
    for n, other in enumerate(kept, 1):
        location = _physical(other, root)
        location["id"] = n
        location["message"] = {"text": f"another occurrence of class {number}"}
        related.append(location)
    return {
        "ruleId": RULE_ID,
        "ruleIndex": 0,
        "level": "note",
        "message": {"text": text + "."},
        "locations": [_physical(place, root)],
        "relatedLocations": related,
        "partialFingerprints": {"primaryLocationLineHash": line_hash},
        "properties": properties,
    }


_RULE: dict[str, Any] = {
    "id": RULE_ID,
    "name": "CopiedFragment",
    "shortDescription": {"text": "Copied fragment: the same text in several places"},
    "fullDescription": {
        "text": "A run of tokens (of at least the minimum region length) that is also in "
        "other places of the scanned files, exactly or across small edits: one result "
        "per place of a clone class, the other places as related locations."
    },
    "help": {
        "text": "The lines were copied from, or to, the related locations. Keep one copy "
        "(a shared function or module) if the copies should change together; if the "
        "copy is from another project, check its licence and say where it came from.",
        "markdown": "The lines were copied from, or to, the **related locations**. Keep "
        "one copy (a shared function or module) if the copies should change together; if "
        "the copy is from another project, check its licence and say where it came from.",
    },
    "defaultConfiguration": {"level": "note"},
    "properties": {"tags": ["maintainability", "duplicate-code", "provenance"]},
}


def _log(
    result: FragmentResult,
    root: str,
    results: list[dict[str, Any]],
    truncated: dict[str, int],
) -> dict[str, Any]:
    notes = []
    if any(truncated.values()):
        notes.append(
            {
                "level": "warning",
                "descriptor": {"id": "truncated"},
                "message": {
                    "text": f"The log was cut to GitHub's limits: {truncated['results']} "
                    f"results left out ({truncated['results_by_count']} past the most "
                    f"results, {truncated['results_by_size']} past the gzipped size) and "
                    f"{truncated['related_locations']} related locations left out; the "
                    "JSON report has them all."
                },
            }
        )
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if notes:
        invocation["toolExecutionNotifications"] = notes
    run = {
        "originalUriBaseIds": {"SRCROOT": {"uri": pathlib.Path(root).as_uri().rstrip("/") + "/"}},
        "invocations": [invocation],
        "results": results,
        "properties": {
            "parameters": result.options.to_dict(),
            "summary": result.summary(),
            "truncated": truncated,
        },
    }
    return sarif_log([_RULE], run)


def _dumps(log: dict[str, Any]) -> str:
    return json.dumps(log, ensure_ascii=True, allow_nan=False, indent=2)


def _gzipped(text: str) -> int:
    return len(gzip.compress(text.encode("ascii"), compresslevel=6, mtime=0))


def to_sarif(
    result: FragmentResult,
    root: str | os.PathLike[str],
    limits: SarifLimits | None = None,
) -> str:
    """The clone classes of ``result`` as a SARIF 2.1.0 log (see the module's
    description).

    :param result: a :class:`~samecode.fragments.result.FragmentResult` with its digests
        (:func:`~samecode.fragments.tree.scan_fragments` makes them).
    :param root: the scanned root: URIs are relative to it (:func:`common_root` of the
        roots scanned, say).
    :param limits: the :class:`SarifLimits` (GitHub's by default).
    :raises TypeError: for a result or limits of the wrong type.
    :raises ValueError: if the result lacks a digest for a class.

    Runtime complexity: ``O(r * l)`` for the ``r`` results and ``l`` locations kept, and
    ``log(r)`` times that again when the log must be cut to its gzipped size.
    """
    limits = SarifLimits() if limits is None else limits
    if not isinstance(result, FragmentResult):
        raise SamecodeTypeError(f"result must be a FragmentResult; got {describe(result)}")
    if not isinstance(limits, SarifLimits):
        raise SamecodeTypeError(f"limits must be SarifLimits; got {describe(limits)}")
    if len(result.digests) != len(result.classes):
        raise SamecodeValueError(
            f"the result must have a digest for each class ({len(result.classes)}); "
            f"got {len(result.digests)}"
        )
    base = os.path.abspath(os.fspath(root))
    seen: dict[tuple[str, str], int] = {}
    hashes: dict[tuple[int, int], str] = {}
    by_line = sorted(
        (o.path, o.start, o.first, number, index)
        for number, clone in enumerate(result.classes, 1)
        for index, o in enumerate(clone.occurrences)
    )
    for path, _, _, number, index in by_line:
        digest = result.digests[number - 1][index]
        seen[path, digest] = seen.get((path, digest), 0) + 1
        hashes[number, index] = f"{digest[:16]}:{seen[path, digest]}"
    wanted = 0
    results: list[dict[str, Any]] = []
    for number, clone in enumerate(result.classes, 1):
        marks = None if result.baseline is None else result.baseline.classes[number - 1].new
        for index in range(len(clone.occurrences)):
            if marks is not None and not marks[index]:
                continue
            wanted += 1
            if len(results) < limits.results:
                hashed = hashes[number, index]
                results.append(_result(result, number, index, base, hashed, limits))
    truncated = {
        "results": wanted - len(results),
        "results_by_count": wanted - len(results),
        "results_by_size": 0,
        "related_locations": 0,
    }

    def render(count: int) -> str:
        kept = results[:count]
        cut = dict(truncated)
        cut["results_by_size"] = len(results) - count
        cut["results"] += cut["results_by_size"]
        cut["related_locations"] = sum(
            r["properties"].get("omittedRelatedLocations", 0) for r in kept
        )
        return _dumps(_log(result, base, kept, cut))

    text = render(len(results))
    if _gzipped(text) <= limits.gzip_bytes:
        return text
    low, high = 0, len(results)  # render(low) fits (checked below); render(high) does not
    if _gzipped(render(0)) > limits.gzip_bytes:
        raise SamecodeValueError(
            f"a SARIF log with no results is larger than gzip_bytes ({limits.gzip_bytes})"
        )
    while high - low > 1:
        middle = (low + high) // 2
        if _gzipped(render(middle)) <= limits.gzip_bytes:
            low = middle
        else:
            high = middle
    return render(low)
