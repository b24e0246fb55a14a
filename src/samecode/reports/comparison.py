"""Reports of two files compared as a scan compares them
(:func:`~samecode.scan.comparison.compare_files`): text people read, and JSON.

:data:`COMPARISON_FORMATS` holds both: ``text`` (:func:`to_text`, the default) and
``json`` (:func:`to_json`: the :meth:`~samecode.scan.comparison.Comparison.to_dict` of
the comparison, on one line).

>>> from samecode.scan.comparison import Comparison
>>> print(to_text(Comparison("a.py", "b.py", 40, 40, 36, 36, 30)))
a.py: 40 tokens, 36 shingles
b.py: 40 tokens, 36 shingles
jaccard 0.714 (30 shared of 42); containment 0.833 and 0.833
>>> list(COMPARISON_FORMATS)
['text', 'json']
"""

from __future__ import annotations

import json

from samecode.reports.format import Format, Formats, TextFormat
from samecode.scan.comparison import Comparison
from samecode.text.display import visible

__all__ = ["COMPARISON_FORMATS", "to_json", "to_text"]


def to_json(comparison: Comparison) -> str:
    """The comparison as one line of JSON.

    >>> to_json(Comparison("a.py", "b.py", 9, 9, 5, 5, 5))[:40]
    '{"a": "a.py", "b": "b.py", "comparable":'
    """
    return json.dumps(comparison.to_dict(), ensure_ascii=True)


def to_text(comparison: Comparison) -> str:
    """Each file's tokens and shingles, then the measures, or which file has no shingle
    (paths shown as :func:`~samecode.text.display.visible` makes them).

    >>> print(to_text(Comparison("a.py", "b.py", 0, 9, 0, 5, 0)).splitlines()[-1])
    not comparable: a.py has no shingles (empty)
    """
    lines = [
        f"{visible(path)}: {tokens:,} tokens, {shingles:,} shingles"
        for path, tokens, shingles in (
            (comparison.a, comparison.a_tokens, comparison.a_shingles),
            (comparison.b, comparison.b_tokens, comparison.b_shingles),
        )
    ]
    jaccard, containment_a, containment_b = (
        comparison.jaccard,
        comparison.containment_a,
        comparison.containment_b,
    )
    if jaccard is None or containment_a is None or containment_b is None:
        empty = " and ".join(visible(path) for path in comparison.empty)
        verb = "has" if len(comparison.empty) == 1 else "have"
        lines.append(f"not comparable: {empty} {verb} no shingles (empty)")
    else:
        lines.append(
            f"jaccard {float(jaccard):.3f} ({comparison.shared:,} shared of "
            f"{comparison.union:,}); containment {float(containment_a):.3f} and "
            f"{float(containment_b):.3f}"
        )
    return "\n".join(lines)


#: The formats of a comparison of two files, by name: ``text`` (the default) and ``json``.
COMPARISON_FORMATS: Formats[Format[Comparison]] = Formats(
    "comparison", [TextFormat("text", to_text), TextFormat("json", to_json)]
)
