"""Reports of every result, for people and for machines: a scan's file pairs
(:mod:`samecode.reports.pairs`: table, JSON, JSONL, CSV, SARIF), fragments
(:mod:`samecode.reports.fragments`: text, JSON, JSONL, CSV; :mod:`samecode.reports.sarif`;
the one-page :mod:`samecode.reports.html`). Reports only read results; the library's
layers below make them.

>>> from samecode.reports.pairs import FORMATS
>>> "sarif" in FORMATS
True
"""

__all__: list[str] = []
