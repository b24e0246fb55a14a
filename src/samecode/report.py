"""The former home of :mod:`samecode.scan.report`, kept so that existing imports and
pickles go on working; new code imports from :mod:`samecode.scan.report`."""

from samecode.scan.report import (
    FORMATS,
    Report,
    printable,
    render,
    to_csv,
    to_json,
    to_jsonl,
    to_sarif,
)

__all__ = [
    "FORMATS",
    "Report",
    "printable",
    "render",
    "to_csv",
    "to_json",
    "to_jsonl",
    "to_sarif",
]
