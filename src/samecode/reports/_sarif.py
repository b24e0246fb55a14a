"""What every SARIF 2.1.0 log samecode writes shares: the log around its one run, with
samecode as the tool, and paths as URIs.

>>> log = sarif_log([{"id": "x"}], {"results": []})
>>> log["version"], log["runs"][0]["tool"]["driver"]["name"], log["runs"][0]["results"]
('2.1.0', 'samecode', [])
"""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import quote

from samecode import __version__

__all__ = ["SCHEMA_URI", "sarif_log", "sarif_uri"]

#: The official schema of SARIF 2.1.0 (OASIS, errata 01).
SCHEMA_URI = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)


def sarif_log(rules: list[dict[str, Any]], run: dict[str, Any]) -> dict[str, Any]:
    """A SARIF log of one run: samecode, its ``rules``, then the rest of ``run``."""
    driver = {
        "name": "samecode",
        "version": __version__,
        "informationUri": "https://pypi.org/project/samecode/",
        "rules": rules,
    }
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, **run}],
    }


def sarif_uri(path: str) -> str:
    """A path as a SARIF URI: percent-encoded, with ``/`` between folders. A backslash is
    a separator on Windows only; elsewhere it is a character of a name (``%5C``). A colon
    is encoded too (``%3A``), so that no relative path reads as a scheme.

    >>> sarif_uri("a b/c\\\\d.py") == ("a%20b/c/d.py" if os.sep == "\\\\" else "a%20b/c%5Cd.py")
    True
    >>> sarif_uri("c:d.py")
    'c%3Ad.py'
    """
    if os.sep == "\\":  # pragma: no cover - Windows
        path = path.replace("\\", "/")
    return quote(path.encode("utf-8", "surrogateescape"), safe="/")
