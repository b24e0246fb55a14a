"""The main job: which files are near-copies of each other, by exact similarity.

The data's way, each stage a picklable function over batches (so this process, a process
pool and Spark run the same code):

    files -> tokens -> shingles -> keys -> groups -> verification -> pairs -> classes -> report

* :mod:`~samecode.scan.model`: :class:`Document`, :class:`Pair`, :class:`CloneClass`.
* :mod:`~samecode.sources`: walking trees by git's rules (:class:`WalkOptions`), reading
  files by the text policy, what was left out (:class:`Skipped`).
* :mod:`~samecode.engine`: where the stages run (:class:`RunOptions`).
* :mod:`~samecode.text.shingling`: text -> tokens -> distinct shingle hashes
  (:class:`Shingling`, the definition of the similarity).
* :mod:`~samecode.scan.join`: exact prefix filtering and verification.
* :mod:`~samecode.scan.candidates`: the ways candidate pairs are proposed.
* :mod:`~samecode.scan.classes`: clone classes.
* :mod:`~samecode.scan.pipeline`: :func:`scan` and its driver.
* :mod:`~samecode.corpus.store`: a corpus of known files in one SQLite file.
* :mod:`~samecode.reports.pairs`: tables, JSON, JSONL, CSV and SARIF.

>>> import pathlib, tempfile
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> body = "\\n".join(f"total_{i} = price_{i} * count + tax" for i in range(40))
>>> _ = (root / "a.py").write_text(body)
>>> _ = (root / "b.py").write_text(body.replace("total_7 ", "sum_7 "))
>>> result = scan([str(root)], ScanOptions(walk=WalkOptions(gitignore=False)))
>>> [(pathlib.Path(p.a).name, pathlib.Path(p.b).name) for p in result.pairs]
[('a.py', 'b.py')]
"""

from samecode.engine import RunOptions
from samecode.scan.classes import clone_classes
from samecode.scan.model import CloneClass, Document, Pair
from samecode.scan.pipeline import ScanOptions, ScanResult, compare, read_documents, scan
from samecode.sources.skipped import Skipped
from samecode.sources.walk import WalkOptions

__all__ = [
    "CloneClass",
    "Document",
    "Pair",
    "RunOptions",
    "ScanOptions",
    "ScanResult",
    "Skipped",
    "WalkOptions",
    "clone_classes",
    "compare",
    "read_documents",
    "scan",
]
