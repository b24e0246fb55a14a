"""The main job: which files of a tree are near-copies of each other, by exact similarity.

The data's way, each stage a plain function over batches with no global state (a process
pool runs :func:`read_documents` on batches of paths, and the rest in one process):

    paths -> :func:`read_documents` (text -> tokens -> distinct shingles) -> :func:`compare`
    (identical sets grouped -> a :mod:`method <samecode.scan.candidates>` proposes candidates ->
    exact verification) -> :class:`Pair` -> :func:`clone_classes` -> a report.

Similarity is the one :mod:`samecode.scan.shingling` documents (the Jaccard index of two files'
sets of 5-token shingles by default); every pair reported carries the exact counts it was
computed from, and sketches only ever propose candidates.

>>> import pathlib, re, tempfile
>>> root = pathlib.Path(tempfile.mkdtemp())
>>> body = "\\n".join(f"def f{i}(x):\\n    return x * {i} + {i * i}" for i in range(30))
>>> edited = body.replace("f7(x)", "g7(x)")
>>> _ = (root / "a.py").write_text(body)
>>> _ = (root / "b.py").write_text(edited)
>>> _ = (root / "c.py").write_text("print('something else entirely, and long enough')")
>>> result = scan([str(root)], ScanOptions(gitignore=False))
>>> [(pathlib.Path(p.a).name, pathlib.Path(p.b).name) for p in result.pairs]
[('a.py', 'b.py')]

The reported value is the documented similarity, computed here from its definition:

>>> def shingles(text):
...     tokens = re.findall(r"\\w+|[^\\w\\s]", text)
...     return {tuple(tokens[i : i + 5]) for i in range(len(tokens) - 4)}
>>> a, b = shingles(body), shingles(edited)
>>> result.pairs[0].jaccard == len(a & b) / len(a | b)
True
>>> [len(c.members) for c in result.classes], len(result.documents)
([2], 3)
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import combinations
from typing import Any

from samecode._validation import check_int, describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.scan.candidates import method
from samecode.scan.classes import clone_classes
from samecode.scan.files import find_files, read_text
from samecode.scan.join import distinct_sets, prefix_candidates, verify
from samecode.scan.model import CloneClass, Document, Pair, Skipped
from samecode.scan.shingling import Shingling
from samecode.scan.similarity import MEASURES, Measure, exact_threshold

__all__ = ["ScanOptions", "ScanResult", "compare", "read_documents", "scan"]

#: How a progress callback is called: ``(stage, done, total)``.
Progress = Callable[[str, int, int], None]

_BATCH_FILES = 32


@dataclass(frozen=True)
class ScanOptions:
    """What :func:`scan` compares and how.

    :param threshold: the similarity a pair must reach, above 0 and at most 1 (a float
        or a decimal string, taken exactly: ``0.8`` means 4/5).
    :param measure: ``"jaccard"``, or ``"containment"`` (the larger of ``shared/|A|`` and
        ``shared/|B|``).
    :param method: the name of a registered :mod:`method <samecode.scan.candidates>`.
    :param shingling: the rules of the similarity (:class:`~samecode.scan.shingling.Shingling`).
    :param min_tokens: files with fewer tokens are reported, not compared.
    :param max_size: files of more bytes are reported as too large (``None``: no limit).
    :param include: only files matching one of these patterns (gitignore syntax).
    :param exclude: leave out files and folders matching these patterns.
    :param gitignore: honour ``.gitignore`` files.
    :param default_excludes: leave out version-control and vendored folders.
    :param follow_symlinks: walk into linked folders.
    :param jobs: processes that read and shingle files (1: this process).
    :param num_perm: signature values per file for the ``minhash`` method.
    :param lsh_threshold: the LSH threshold of the ``minhash`` method (by default 0.2 below
        ``threshold``).
    :raises TypeError, ValueError: for a bad option, at construction.
    """

    threshold: Fraction | float | str = Fraction(4, 5)
    measure: str = "jaccard"
    method: str = "exact"
    shingling: Shingling = field(default_factory=Shingling)
    min_tokens: int = 10
    max_size: int | None = 10 << 20
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    gitignore: bool = True
    default_excludes: bool = True
    follow_symlinks: bool = False
    jobs: int = 1
    num_perm: int = 128
    lsh_threshold: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "threshold", exact_threshold(self.threshold))
        if self.measure not in MEASURES:
            raise SamecodeValueError(
                f"measure must be one of {', '.join(MEASURES)}; got {self.measure!r}"
            )
        chosen = method(self.method)
        if self.measure not in chosen.measures:
            raise SamecodeValueError(
                f"method {self.method!r} proposes pairs for {', '.join(chosen.measures)} only; "
                f"got measure {self.measure!r}"
            )
        if not isinstance(self.shingling, Shingling):
            raise SamecodeTypeError(
                f"shingling must be a Shingling; got {describe(self.shingling)}"
            )
        check_int(self.min_tokens, "min_tokens")
        if self.min_tokens < 1:
            raise SamecodeValueError(f"min_tokens must be >= 1; got {self.min_tokens}")
        if self.max_size is not None:
            check_int(self.max_size, "max_size")
            if self.max_size < 1:
                raise SamecodeValueError(f"max_size must be >= 1 byte; got {self.max_size}")
        check_int(self.num_perm, "num_perm")
        if not 2 <= self.num_perm <= 1 << 16:
            raise SamecodeValueError(f"num_perm must be from 2 to 65536; got {self.num_perm}")
        if self.lsh_threshold is not None:
            if isinstance(self.lsh_threshold, bool) or not isinstance(
                self.lsh_threshold, (int, float, Fraction)
            ):
                raise SamecodeTypeError(
                    f"lsh_threshold must be a number; got {describe(self.lsh_threshold)}"
                )
            if not 0 < self.lsh_threshold <= 1:
                raise SamecodeValueError(
                    f"lsh_threshold must be above 0 and at most 1; got {self.lsh_threshold}"
                )
            object.__setattr__(self, "lsh_threshold", float(self.lsh_threshold))
        # A method's settings that cannot work (one LSH band, say) fail here, not after
        # every file has been read.
        chosen.configured(num_perm=self.num_perm, lsh_threshold=self.lsh_threshold).parameters(
            self.exact_threshold
        )
        check_int(self.jobs, "jobs")
        if not 1 <= self.jobs <= 1024:
            raise SamecodeValueError(f"jobs must be from 1 to 1024; got {self.jobs}")
        for name in ("include", "exclude"):
            patterns = getattr(self, name)
            if isinstance(patterns, str) or not all(isinstance(p, str) for p in patterns):
                raise SamecodeTypeError(
                    f"{name} must be a tuple of str patterns; got {describe(patterns)}"
                )
            object.__setattr__(self, name, tuple(patterns))

    @property
    def exact_threshold(self) -> Fraction:
        """The threshold as the exact fraction the comparisons use."""
        return exact_threshold(self.threshold)


@dataclass
class ScanResult:
    """What :func:`scan` found: the files compared (in the order found), those skipped
    and why, the pairs (sorted by paths) and the clone classes (largest first)."""

    options: ScanOptions
    documents: list[Document]
    skipped: list[Skipped]
    pairs: list[Pair]
    classes: list[CloneClass]
    seconds: float = 0.0


# -- stages ------------------------------------------------------------------------------


def read_documents(
    paths: Sequence[str], shingling: Shingling, max_size: int | None, min_tokens: int
) -> list[Document | Skipped]:
    """Read and shingle a batch of files: a :class:`Document` per file, or why it was
    skipped (as :func:`samecode.scan.files.read_text`, or ``empty``, or ``too few tokens``).

    A plain function of its arguments: a process pool runs it on batches.
    """
    out: list[Document | Skipped] = []
    for path in paths:
        text = read_text(path, max_size)
        if isinstance(text, Skipped):
            out.append(text)
            continue
        tokens, shingles = shingling.measure(text.text, path)
        if tokens == 0:
            out.append(Skipped(path, "empty"))
        elif tokens < min_tokens:
            out.append(Skipped(path, "too few tokens"))
        else:
            out.append(Document(path, text.size, text.sha256, tokens, shingles))
    return out


def compare(
    documents: Sequence[Document],
    threshold: Fraction,
    measure: Measure = "jaccard",
    method_name: str = "exact",
    settings: Mapping[str, Any] | None = None,
) -> list[Pair]:
    """Return every pair of documents at or above ``threshold``, sorted by paths.

    Identical shingle sets are grouped first (so a thousand copies of one file cost one
    comparison, then their pairs); the method proposes candidates among the distinct
    sets; each is verified exactly.

    Runtime complexity: ``O(N)`` to group the ``N`` shingles, the method's cost, ``O(|b|)``
    per candidate, and ``O(1)`` per pair returned.
    """
    sets = [d.shingles for d in documents]
    representatives, groups = distinct_sets(sets)
    distinct = [sets[r] for r in representatives]
    chosen = method(method_name).configured(**(settings or {}))
    copies: tuple[tuple[str, Any], ...] = ()
    if chosen.reports_all:  # every pair, found exactly, with what the method says of it
        found = verify(
            distinct, prefix_candidates(distinct, threshold, measure), threshold, measure
        )
        said = chosen.annotate(distinct, [(i, j) for i, j, _ in found], threshold)
        notes = [tuple(n.items()) for n in said]
        copies = tuple(chosen.copy_notes().items())
    else:
        found = verify(
            distinct, chosen.candidates(distinct, threshold, measure), threshold, measure
        )
        notes = [() for _ in found]
    pairs: list[Pair] = []
    for (i, j, shared), note in zip(found, notes):
        for a in groups[i]:
            for b in groups[j]:
                pairs.append(_pair(documents[a], documents[b], shared, note))
    for group in groups:
        size = len(sets[group[0]])
        pairs += [
            _pair(documents[a], documents[b], size, copies) for a, b in combinations(group, 2)
        ]
    pairs.sort(key=lambda p: (p.a, p.b))
    return pairs


def _pair(
    first: Document, second: Document, shared: int, notes: tuple[tuple[str, Any], ...] = ()
) -> Pair:
    if second.path < first.path:
        first, second = second, first
    return Pair(first.path, second.path, shared, len(first.shingles), len(second.shingles), notes)


# -- the whole job -----------------------------------------------------------------------


def discover(roots: Sequence[str], options: ScanOptions) -> tuple[list[str], list[Skipped]]:
    """The files to read under ``roots`` (in the order found, each once) and the paths
    that could not be walked."""
    paths: list[str] = []
    skipped: list[Skipped] = []
    seen: set[str] = set()
    for found in find_files(
        roots,
        include=options.include,
        exclude=options.exclude,
        gitignore=options.gitignore,
        default_excludes=options.default_excludes,
        follow_symlinks=options.follow_symlinks,
    ):
        if isinstance(found, Skipped):
            skipped.append(found)
        elif found not in seen:
            seen.add(found)
            paths.append(found)
    return paths, skipped


def read_all(
    paths: Sequence[str], options: ScanOptions, progress: Progress | None = None
) -> tuple[list[Document], list[Skipped]]:
    """Run :func:`read_documents` over all ``paths`` in batches, in ``options.jobs``
    processes; the results come back in the order of ``paths`` whatever the jobs."""
    batches = [paths[i : i + _BATCH_FILES] for i in range(0, len(paths), _BATCH_FILES)]
    args = (options.shingling, options.max_size, options.min_tokens)
    results: list[list[Document | Skipped]] = [[] for _ in batches]
    done = 0
    if options.jobs == 1 or len(batches) <= 1:
        for number, batch in enumerate(batches):
            results[number] = read_documents(batch, *args)
            done += len(batch)
            if progress is not None:
                progress("read", done, len(paths))
    else:
        with ProcessPoolExecutor(max_workers=min(options.jobs, len(batches))) as pool:
            futures: dict[Future[list[Document | Skipped]], int] = {
                pool.submit(read_documents, batch, *args): number
                for number, batch in enumerate(batches)
            }
            try:
                for future in _as_completed(futures):
                    number = futures[future]
                    results[number] = future.result()
                    done += len(batches[number])
                    if progress is not None:
                        progress("read", done, len(paths))
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    documents: list[Document] = []
    skipped: list[Skipped] = []
    for batch_result in results:
        for item in batch_result:
            (skipped if isinstance(item, Skipped) else documents).append(item)  # type: ignore[arg-type]
    return documents, skipped


def _as_completed(
    futures: Iterable[Future[list[Document | Skipped]]],
) -> Iterator[Future[list[Document | Skipped]]]:
    from concurrent.futures import as_completed

    return as_completed(futures)


def scan(
    roots: Sequence[str | os.PathLike[str]],
    options: ScanOptions | None = None,
    progress: Progress | None = None,
) -> ScanResult:
    """Find the near-copies among the files under ``roots`` (see the module's description).

    :param roots: files and folders.
    :param options: what to compare and how (:class:`ScanOptions`; the defaults if
        ``None``).
    :param progress: called as ``progress(stage, done, total)`` while files are read.
    :raises TypeError: if ``roots`` is a lone path, or an option is of the wrong type.
    :raises ImportError: if ignore rules are asked for and ``pathspec`` is missing.

    Runtime complexity: ``O(size of the files)`` to read and shingle them, spread over
    ``options.jobs`` processes; then :func:`compare`. Memory: 8 bytes per distinct shingle
    of every file compared, plus the method's index.
    """
    options = options or ScanOptions()
    if isinstance(roots, (str, bytes, os.PathLike)):
        raise SamecodeTypeError(f"roots must be a list of paths; got {describe(roots)}")
    started = time.perf_counter()
    paths, walk_skipped = discover([os.fspath(r) for r in roots], options)
    documents, read_skipped = read_all(paths, options, progress)
    settings = {"num_perm": options.num_perm, "lsh_threshold": options.lsh_threshold}
    pairs = compare(
        documents,
        options.exact_threshold,
        options.measure,  # type: ignore[arg-type]
        options.method,
        settings,
    )
    classes = clone_classes(documents, pairs)
    return ScanResult(
        options,
        documents,
        walk_skipped + read_skipped,
        pairs,
        classes,
        time.perf_counter() - started,
    )
