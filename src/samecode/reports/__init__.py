"""Reports of every result, for people and for machines: a scan's file pairs
(:mod:`samecode.reports.pairs`: table, JSON, JSONL, CSV, SARIF), fragments
(:mod:`samecode.reports.fragments`: text, JSON, JSONL; :mod:`samecode.reports.sarif`;
the one-page :mod:`samecode.reports.html`), two files compared
(:mod:`samecode.reports.comparison`). Each format is a
:class:`~samecode.reports.format.Format` in the registry of its result's kind, found by
name (:mod:`samecode.reports.format`). Reports only read results; the library's layers
below make them.

>>> from samecode.reports.pairs import FORMATS
>>> "sarif" in FORMATS
True
"""

__all__: list[str] = []
