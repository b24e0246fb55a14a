"""Which files to compare and what they say, for every entry point that reads files (a
scan, fragments, a corpus): trees walked by git's rules (:mod:`samecode.sources.walk`,
with :class:`~samecode.sources.walk.WalkOptions`), each file read by one text policy
(:mod:`samecode.sources.reading`), and what was left out, and why
(:mod:`samecode.sources.skipped`).

>>> import pathlib, tempfile
>>> from samecode.sources import read_text
>>> path = pathlib.Path(tempfile.mkdtemp()) / "a.py"
>>> _ = path.write_bytes(b"\\xef\\xbb\\xbfx = 1\\n")
>>> read_text(str(path)).text
'x = 1\\n'
"""

from samecode.sources.reading import Text, decode_text, read_comparable, read_text
from samecode.sources.skipped import Skipped, SkipReason, too_few_tokens
from samecode.sources.walk import DEFAULT_EXCLUDES, WalkOptions, discover, find_files

__all__ = [
    "DEFAULT_EXCLUDES",
    "SkipReason",
    "Skipped",
    "Text",
    "WalkOptions",
    "decode_text",
    "discover",
    "find_files",
    "read_comparable",
    "read_text",
    "too_few_tokens",
]
