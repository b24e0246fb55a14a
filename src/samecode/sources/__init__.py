"""Which files to compare and what they say: trees walked by git's rules, each file read
by one text policy, and what was left out, and why (:mod:`samecode.sources.files`).

Every entry point that reads files (a scan, fragments, a corpus) reads them here.

>>> import pathlib, tempfile
>>> from samecode.sources import read_text
>>> path = pathlib.Path(tempfile.mkdtemp()) / "a.py"
>>> _ = path.write_bytes(b"\\xef\\xbb\\xbfx = 1\\n")
>>> read_text(str(path)).text
'x = 1\\n'
"""

from samecode.sources.files import DEFAULT_EXCLUDES, Skipped, Text, find_files, read_text

__all__ = ["DEFAULT_EXCLUDES", "Skipped", "Text", "find_files", "read_text"]
