"""What any fragments report in a format says of the ranges ignored, beside the JSON lines
report of the same result: shared by the tests of the commands that write them."""

from __future__ import annotations

import json

__all__ = ["check_report", "ignored_counts"]


def ignored_counts(jsonl: str) -> dict[str, int]:
    """The ranges ignored by reason (those with any), as a JSON lines report's summary
    counts them."""
    counts = json.loads(jsonl.splitlines()[0])["summary"]["ignored"]
    return {reason: count["ranges"] for reason, count in counts.items() if count["ranges"]}


def check_report(format_name: str, out: str, jsonl: str) -> str | None:
    """Check that ``out``, a report in ``format_name``, is what that format holds of the
    result ``jsonl`` reports; return the table's ``Ignored:`` line (``None`` for another
    format)."""
    if format_name == "table":
        (line,) = [line for line in out.splitlines() if line.startswith("Ignored:")]
        return line
    if format_name in ("json", "sarif"):
        assert json.loads(out)
    elif format_name == "jsonl":
        assert out == jsonl
    else:
        assert out.strip()
    return None
