"""The ``samecode`` command: near-duplicate files in trees, and against a stored corpus.

Commands (``samecode COMMAND --help`` for each):

* ``samecode scan PATH...``: the near-copies among the files under the paths;
* ``samecode index add|remove|stats|check``: a corpus of known files in one SQLite file
  (``./samecode.db`` unless ``--db`` says otherwise);
* ``samecode match PATH... --db FILE``: the corpus files each file matches (also ``scan
  --against FILE``);
* ``samecode fingerprint PATH...``: a JSON line per file with its size, SHA-256 and
  fingerprints;
* ``samecode compare A B``: the similarity of two files.

Defaults come from ``[tool.samecode]`` in the nearest ``pyproject.toml`` (keys are the
long options, ``min-tokens = 20``); the command line overrides them.

Exit status: 0 done; 1 only with ``--fail-on-match`` when something matched; 2 for a usage
or input/output error (one line on stderr, never a traceback); 130 when interrupted; 141,
quietly, when the output pipe is closed early (as ``head`` does), as for a process that
``SIGPIPE`` ended.

The command line needs the ``cli`` extra (``pip install 'samecode[cli]'``: ``rich`` for
the table and progress, ``pathspec`` for ``.gitignore`` rules); without it, it says so in
one line.

>>> import contextlib, io, pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> text = " ".join(f"word{i}" for i in range(60))
>>> _ = (folder / "a.txt").write_text(text)
>>> _ = (folder / "b.txt").write_text(text.replace("word30", "changed"))
>>> out = io.StringIO()
>>> with contextlib.redirect_stdout(out):
...     status = main(["scan", str(folder), "--format", "csv", "--quiet", "--jobs", "1"])

Sixty words make 56 shingles of five; the changed word is in five of them, so the files
share 51 of 61:

>>> status, out.getvalue().splitlines()[1].split(",")[2] == repr(51 / 61)
(0, True)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn

from samecode import __version__
from samecode.errors import SamecodeError, SamecodeTypeError
from samecode.scan.candidates import method_names
from samecode.scan.files import Skipped
from samecode.scan.shingling import TOKEN_KINDS, Shingling
from samecode.scan.similarity import exact_threshold

__all__ = ["main"]

_EXTRA = "the command line needs its extra: pip install 'samecode[cli]'"
_SIZES = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_KINDS = ("simhash", "halo", "bucket", "bucketed")


class UsageError(SamecodeError):
    """A bad command line or configuration: one line on stderr, status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")


# -- option types ----------------------------------------------------------------------


def _bounded(name: str, low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{name} must be a whole number; got {text!r}"
            ) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{name} must be from {low} to {high}; got {text}")
        return value

    return parse


def _threshold(text: str) -> Fraction:
    try:
        return exact_threshold(text)
    except (TypeError, ValueError) as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _size(text: str) -> int:
    """Bytes: ``10M``, ``512k``, ``1G``, ``0`` for no limit."""
    clean = text.strip().lower().removesuffix("b").removesuffix("i")
    unit = clean[-1:] if clean[-1:] in _SIZES else ""
    number = clean[: len(clean) - len(unit)]
    try:
        value = float(number) * _SIZES[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"a size is a number of bytes such as 10M; got {text!r}"
        ) from None
    if not 0 <= value <= 1 << 50:
        raise argparse.ArgumentTypeError(f"a size must be from 0 to 1P; got {text!r}")
    return int(value)


# -- the parser --------------------------------------------------------------------------


def _shingling_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("similarity")
    group.add_argument(
        "--shingle",
        type=_bounded("--shingle", 1, 1000),
        metavar="K",
        help="tokens (characters, with --tokens chars) per shingle (default 5)",
    )
    group.add_argument("--tokens", choices=TOKEN_KINDS, help="what a token is (default words)")
    group.add_argument(
        "--normalize",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="replace names and literals by placeholders, for renamed copies",
    )


def _walk_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("which files")
    group.add_argument(
        "--include",
        action="append",
        metavar="PATTERN",
        help="only files matching (gitignore syntax); repeatable",
    )
    group.add_argument(
        "--exclude",
        action="append",
        metavar="PATTERN",
        help="leave out files and folders matching; repeatable",
    )
    group.add_argument(
        "--gitignore",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="honour .gitignore files (default yes)",
    )
    group.add_argument(
        "--default-excludes",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="leave out version-control, vendored and cache folders (default yes)",
    )
    group.add_argument(
        "--follow-symlinks",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="walk into linked folders",
    )
    group.add_argument(
        "--min-tokens",
        type=_bounded("--min-tokens", 1, 10**9),
        metavar="N",
        help="files with fewer tokens are skipped (default 10)",
    )
    group.add_argument(
        "--max-size",
        type=_size,
        metavar="SIZE",
        help="files larger are skipped (default 10M; 0: no limit)",
    )
    group.add_argument(
        "--jobs",
        "-j",
        type=_bounded("--jobs", 1, 1024),
        metavar="N",
        help="processes reading files (default: all cores)",
    )


def _output_options(parser: argparse.ArgumentParser, formats: Sequence[str]) -> None:
    group = parser.add_argument_group("output")
    group.add_argument("--format", choices=formats, help=f"output format (default {formats[0]})")
    group.add_argument(
        "--output", "-o", metavar="FILE", help="write to FILE instead of standard output"
    )
    group.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no summary")


def _matching_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("matching")
    group.add_argument(
        "--threshold",
        "-t",
        type=_threshold,
        metavar="T",
        help="the similarity a pair must reach (default 0.8)",
    )
    group.add_argument(
        "--containment",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="measure containment (|A∩B| over the smaller set) instead of Jaccard",
    )
    group.add_argument(
        "--fail-on-match", action="store_true", help="exit with status 1 if anything matched"
    )


def _minhash_options(parser: argparse.ArgumentParser, base: str) -> None:
    parser.add_argument(
        "--num-perm",
        type=_bounded("--num-perm", 2, 1024),
        metavar="N",
        help="signature values per file for --method minhash (default 128)",
    )
    parser.add_argument(
        "--lsh-threshold",
        type=_threshold,
        metavar="T",
        help=f"the LSH threshold of --method minhash (default: 0.2 below {base})",
    )


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="samecode",
        description="Find near-duplicate files by the exact similarity of their token "
        "shingles, in trees and against a corpus.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", parser_class=_Parser
    )

    scan = commands.add_parser("scan", help="near-duplicate files within and across the paths")
    scan.add_argument("paths", nargs="+", metavar="PATH")
    _matching_options(scan)
    scan.add_argument(
        "--method", choices=method_names(), help="how candidates are proposed (default exact)"
    )
    _minhash_options(scan, "--threshold")
    scan.add_argument("--against", metavar="DB", help="also match the files against this corpus")
    _shingling_options(scan)
    _walk_options(scan)
    _output_options(scan, ("table", "json", "jsonl", "csv", "sarif"))

    match = commands.add_parser("match", help="the corpus files each file matches")
    match.add_argument("paths", nargs="+", metavar="PATH")
    match.add_argument("--db", metavar="FILE", help="the corpus (default ./samecode.db)")
    _matching_options(match)
    _shingling_options(match)
    _walk_options(match)
    _output_options(match, ("table", "json", "jsonl", "csv", "sarif"))

    index = commands.add_parser("index", help="a corpus of known files in one SQLite file")
    actions = index.add_subparsers(
        dest="action", required=True, metavar="ACTION", parser_class=_Parser
    )
    add = actions.add_parser(
        "add", help="add files (unchanged ones are skipped, changed ones replaced)"
    )
    add.add_argument("paths", nargs="+", metavar="PATH")
    add.add_argument(
        "--db", metavar="FILE", help="the corpus (default ./samecode.db; made if missing)"
    )
    add.add_argument(
        "--prune", action="store_true", help="remove stored files under the paths that are gone"
    )
    add.add_argument(
        "--min-threshold",
        type=_threshold,
        metavar="T",
        help="for a new corpus: the lowest threshold it answers (default 0.8)",
    )
    add.add_argument(
        "--method",
        dest="corpus_method",
        choices=("exact", "minhash"),
        help="for a new corpus: how it finds candidates, exact (prefixes of the shingles; "
        "the default) or minhash (LSH bands: smaller, Jaccard only, may miss pairs)",
    )
    _minhash_options(add, "--min-threshold")
    _shingling_options(add)
    _walk_options(add)
    add.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no summary")
    remove = actions.add_parser("remove", help="remove stored files at or under the paths")
    remove.add_argument("paths", nargs="+", metavar="PATH")
    remove.add_argument("--db", metavar="FILE", help="the corpus (default ./samecode.db)")
    for name, text in (
        ("stats", "what the corpus holds"),
        ("check", "verify the whole corpus file"),
    ):
        action = actions.add_parser(name, help=text)
        action.add_argument("--db", metavar="FILE", help="the corpus (default ./samecode.db)")

    fingerprint = commands.add_parser(
        "fingerprint", help="a JSON line per file: size, SHA-256, fingerprints"
    )
    fingerprint.add_argument("paths", nargs="+", metavar="PATH")
    fingerprint.add_argument(
        "--kind",
        action="append",
        choices=_KINDS,
        help="fingerprints to compute (default simhash); repeatable",
    )
    _shingling_options(fingerprint)
    _walk_options(fingerprint)
    fingerprint.add_argument(
        "--output", "-o", metavar="FILE", help="write to FILE instead of standard output"
    )

    compare = commands.add_parser("compare", help="the similarity of two files")
    compare.add_argument("first", metavar="A")
    compare.add_argument("second", metavar="B")
    compare.add_argument("--format", choices=("text", "json"), help="output format (default text)")
    _shingling_options(compare)
    return parser


# -- configuration ---------------------------------------------------------------------

_CONFIG_KEYS = {
    "threshold": _threshold,
    "method": str,
    "num-perm": int,
    "lsh-threshold": _threshold,
    "containment": bool,
    "shingle": int,
    "tokens": str,
    "normalize": bool,
    "include": list,
    "exclude": list,
    "gitignore": bool,
    "default-excludes": bool,
    "follow-symlinks": bool,
    "min-tokens": int,
    "max-size": _size,
    "jobs": int,
    "format": str,
    "db": str,
    "min-threshold": _threshold,
}


def _load_config(start: Path) -> tuple[dict[str, Any], str | None]:
    """``[tool.samecode]`` of the nearest ``pyproject.toml`` at or above ``start``."""
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                if sys.version_info >= (3, 11):
                    import tomllib
                else:  # pragma: no cover - Python 3.10
                    import tomli as tomllib  # type: ignore[import-not-found,unused-ignore]
                with candidate.open("rb") as file:
                    data = tomllib.load(file)
            except (OSError, ValueError) as error:
                raise UsageError(f"cannot read {candidate}: {error}") from None
            section = data.get("tool", {}).get("samecode", {})
            if not isinstance(section, dict):
                raise UsageError(f"[tool.samecode] of {candidate} must be a table")
            return section, str(candidate)
    return {}, None


def _apply_config(args: argparse.Namespace, config: dict[str, Any], where: str | None) -> None:
    for key, value in config.items():
        convert = _CONFIG_KEYS.get(key)
        if convert is None:
            raise UsageError(f"unknown key {key!r} in [tool.samecode] of {where}")
        attribute = key.replace("-", "_")
        if not hasattr(args, attribute) or getattr(args, attribute) is not None:
            continue  # the command does not take it, or the command line gave it
        try:
            value = _config_value(convert, value)
        except (TypeError, ValueError, argparse.ArgumentTypeError) as error:
            raise UsageError(f"{key} in [tool.samecode] of {where}: {error}") from None
        setattr(args, attribute, value)


def _config_value(convert: Any, value: Any) -> Any:
    if convert in (bool, int, str, list):
        if not isinstance(value, convert) or (convert is int and isinstance(value, bool)):
            raise SamecodeTypeError(f"must be a {convert.__name__}")
        return [str(v) for v in value] if convert is list else value
    return convert(str(value))


def _value(args: argparse.Namespace, name: str, default: Any) -> Any:
    value = getattr(args, name, None)
    return default if value is None else value


# -- helpers -----------------------------------------------------------------------------


def _shingling(args: argparse.Namespace, stored: Shingling | None = None) -> Shingling:
    if stored is not None:
        asked = {
            "size": getattr(args, "shingle", None),
            "tokens": getattr(args, "tokens", None),
            "normalize": getattr(args, "normalize", None),
        }
        for name, value in asked.items():
            if value is not None and value != getattr(stored, name):
                raise UsageError(
                    f"the corpus was made with {name}={getattr(stored, name)!r}; got {value!r} "
                    "(leave it out to use the corpus's)"
                )
        return stored
    return Shingling(
        tokens=_value(args, "tokens", "words"),
        size=_value(args, "shingle", 5),
        normalize=_value(args, "normalize", False),
    )


def _scan_options(args: argparse.Namespace, shingling: Shingling) -> Any:
    from samecode.scan.pipeline import ScanOptions

    max_size = _value(args, "max_size", 10 << 20)
    return ScanOptions(
        threshold=_value(args, "threshold", Fraction(4, 5)),
        measure="containment" if _value(args, "containment", False) else "jaccard",
        method=_value(args, "method", "exact"),
        num_perm=_value(args, "num_perm", 128),
        lsh_threshold=_value(args, "lsh_threshold", None),
        shingling=shingling,
        min_tokens=_value(args, "min_tokens", 10),
        max_size=max_size or None,
        include=tuple(_value(args, "include", ())),
        exclude=tuple(_value(args, "exclude", ())),
        gitignore=_value(args, "gitignore", True),
        default_excludes=_value(args, "default_excludes", True),
        follow_symlinks=_value(args, "follow_symlinks", False),
        jobs=_value(args, "jobs", _cores()),
    )


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


class _Feedback:
    """Progress on stderr while files are read (on a terminal), and the closing line."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.started = time.perf_counter()
        self.bar: Any = None
        self.task: Any = None

    def __enter__(self) -> _Feedback:
        if not self.quiet and sys.stderr.isatty():
            from rich.progress import Progress

            self.bar = Progress(transient=True, console=_console(sys.stderr))
            self.bar.start()
        return self

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.bar is None:
            return
        if self.task is None:
            self.task = self.bar.add_task("reading files", total=total)
        self.bar.update(self.task, completed=done, total=total)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def summary(self, text: str) -> None:
        if not self.quiet:
            seconds = time.perf_counter() - self.started
            print(f"samecode: {text}, in {seconds:.1f} s", file=sys.stderr)


def _console(file: Any) -> Any:
    from rich.console import Console

    return Console(file=file, highlight=False, soft_wrap=False)


def _skipped_text(skipped: Sequence[Skipped]) -> str:
    if not skipped:
        return "none skipped"
    reasons = Counter(s.reason.split(":")[0] for s in skipped)
    detail = ", ".join(f"{count:,} {reason}" for reason, count in sorted(reasons.items()))
    return f"skipped {len(skipped):,}: {detail}"


def _files(count: int) -> str:
    return f"{count:,} file{'' if count == 1 else 's'}"


def _check_roots(paths: Sequence[str]) -> None:
    """A path named on the command line must exist: a typo is a usage error."""
    for path in paths:
        if not os.path.lexists(path):
            raise UsageError(f"{_shown(path)}: no such file or folder")


class OutputError(SamecodeError, OSError):
    """Standard output cannot be written (a full disk, a closed device)."""


def _stdout(write: Callable[[], None]) -> None:
    """Run ``write`` (to stdout); a failure other than a closed pipe is an OutputError."""
    try:
        write()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputError(error.errno, error.strerror) from error


def _write(text: str, output: str | None) -> None:
    """Write ``text`` and a newline to stdout, or atomically to ``output``."""
    if output is None:
        text += "\n"
        for start in range(0, len(text), 1 << 16):  # a closed pipe is seen at the next piece

            def piece(start: int = start) -> None:
                sys.stdout.write(text[start : start + (1 << 16)])
                sys.stdout.flush()

            _stdout(piece)
        return
    folder = os.path.dirname(os.path.abspath(output))
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".samecode-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", errors="surrogateescape", newline="") as file:
            file.write(text + "\n")
        os.replace(temporary, output)
    except BaseException:
        if os.path.exists(temporary):
            os.remove(temporary)
        raise


def _parameters(options: Any) -> dict[str, Any]:
    return {
        "threshold": float(options.exact_threshold),
        "measure": options.measure,
        "method": options.method,
        **{("shingle" if k == "size" else k): v for k, v in options.shingling.to_dict().items()},
        "min_tokens": options.min_tokens,
        "max_size": options.max_size,
        **_method_parameters(options),
    }


def _corpus_parameters(db: str, corpus: Any) -> dict[str, Any]:
    """The corpus a report matched against, and how it finds candidates (an LSH corpus
    may miss a pair; its settings say how likely that was)."""
    lsh = corpus.lsh
    return {"corpus": db, "corpus_lsh": None if lsh is None else lsh.to_dict()}


def _method_parameters(options: Any) -> dict[str, Any]:
    from samecode.scan.candidates import method

    chosen = method(options.method).configured(
        num_perm=options.num_perm, lsh_threshold=options.lsh_threshold
    )
    return chosen.parameters(options.exact_threshold)


def _emit(report: Any, args: argparse.Namespace) -> None:
    from samecode.scan.report import render, to_table

    fmt = _value(args, "format", "table")
    if fmt == "table":
        if args.output is None:

            def table() -> None:
                _console(sys.stdout).print(to_table(report))
                sys.stdout.flush()

            _stdout(table)
        else:
            buffer = _StringIO()
            _console(buffer).print(to_table(report))
            _write(buffer.getvalue().rstrip("\n"), args.output)
        return
    _write(render(report, fmt), args.output)


class _StringIO:
    """A text buffer rich can print to."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def getvalue(self) -> str:
        return "".join(self.parts)


def _open_corpus(path: str, readonly: bool) -> Any:
    from samecode.scan.corpus import Corpus

    return Corpus.open(path, readonly=readonly)


# -- commands ----------------------------------------------------------------------------


def _run_scan(args: argparse.Namespace) -> int:
    from samecode.scan.pipeline import scan
    from samecode.scan.report import Report

    _check_roots(args.paths)
    corpus = _open_corpus(args.against, True) if args.against else None
    try:
        shingling = _shingling(args, corpus.shingling if corpus else None)
        options = _scan_options(args, shingling)
        parameters = _parameters(options)
        if corpus is not None:
            parameters.update(_corpus_parameters(args.against, corpus))
        with _Feedback(args.quiet) as feedback:
            result = scan(args.paths, options, feedback)
            corpus_pairs = (
                corpus.match(result.documents, options.exact_threshold, options.measure)
                if corpus
                else []
            )
    finally:
        if corpus is not None:
            corpus.close()
    report = Report(
        parameters,
        result.pairs,
        result.classes,
        result.skipped,
        len(result.documents),
        corpus_pairs,
        options.measure == "containment",
    )
    _emit(report, args)
    matches = len(result.pairs) + len(corpus_pairs)
    extra = f", {len(corpus_pairs):,} corpus matches" if corpus is not None else ""
    feedback.summary(
        f"compared {_files(len(result.documents))}, {_skipped_text(result.skipped)}; "
        f"{len(result.pairs):,} pairs in {len(result.classes):,} classes{extra}"
    )
    return 1 if args.fail_on_match and matches else 0


def _run_match(args: argparse.Namespace) -> int:
    from samecode.scan.pipeline import discover, read_all
    from samecode.scan.report import Report

    _check_roots(args.paths)
    db = _value(args, "db", "samecode.db")
    with _open_corpus(db, True) as corpus:
        options = _scan_options(args, _shingling(args, corpus.shingling))
        parameters = {**_parameters(options), **_corpus_parameters(db, corpus)}
        with _Feedback(args.quiet) as feedback:
            paths, walk_skipped = discover(args.paths, options)
            documents, read_skipped = read_all(paths, options, feedback)
            pairs = corpus.match(documents, options.exact_threshold, options.measure)
    skipped = walk_skipped + read_skipped
    report = Report(
        parameters,
        [],
        [],
        skipped,
        len(documents),
        pairs,
        options.measure == "containment",
    )
    _emit(report, args)
    matched = len({p.a for p in pairs})
    feedback.summary(
        f"matched {_files(len(documents))} against {db}, {_skipped_text(skipped)}; "
        f"{_files(matched)} matched {_files(len(pairs))} of the corpus"
    )
    return 1 if args.fail_on_match and pairs else 0


def _run_index(args: argparse.Namespace) -> int:
    db = _value(args, "db", "samecode.db")
    if args.action == "add":
        return _index_add(args, db)
    if args.action == "remove":
        with _open_corpus(db, False) as corpus:
            removed = corpus.remove(args.paths, recursive=True)
        print(f"samecode: removed {_files(removed)} from {db}", file=sys.stderr)
        return 0
    with _open_corpus(db, True) as corpus:
        if args.action == "stats":
            _write(json.dumps(corpus.stats(), indent=2, ensure_ascii=True), None)
            return 0
        problems = corpus.check()
    for problem in problems:
        print(f"samecode: {db}: {problem}", file=sys.stderr)
    if problems:
        return 2
    print(f"samecode: {db} is sound", file=sys.stderr)
    return 0


def _index_add(args: argparse.Namespace, db: str) -> int:
    from samecode.scan.corpus import Corpus

    _check_roots(args.paths)
    if os.path.exists(db):
        corpus = Corpus.open(db)
        refusal = _corpus_refusal(args, corpus)
        if refusal:
            corpus.close()
            raise UsageError(f"{db} {refusal}")
    else:
        lowest = _value(args, "min_threshold", Fraction(4, 5))
        lsh = None
        if args.corpus_method == "minhash":
            from samecode.minhash.lsh import LSHSettings
            from samecode.scan.candidates import default_lsh_threshold

            lsh = LSHSettings(
                num_perm=_value(args, "num_perm", 128),
                threshold=float(
                    _value(args, "lsh_threshold", None) or default_lsh_threshold(lowest)
                ),
            )
        elif args.num_perm is not None or args.lsh_threshold is not None:
            raise UsageError("--num-perm and --lsh-threshold need --method minhash")
        corpus = Corpus.create(db, _shingling(args), min_threshold=lowest, lsh=lsh)
    with corpus, _Feedback(args.quiet) as feedback:
        options = _scan_options(args, _shingling(args, corpus.shingling))
        report = corpus.sync(args.paths, options, prune=args.prune, progress=feedback)
    feedback.summary(_sync_text(db, report))
    return 0


def _sync_text(db: str, report: Any) -> str:
    removed = Counter(item.reason.split(":")[0] for item in report.removed)
    why = ", ".join(f"{count:,} {reason}" for reason, count in sorted(removed.items()))
    return (
        f"{db}: {len(report.added):,} added, {len(report.updated):,} updated, "
        f"{len(report.unchanged):,} unchanged, {len(report.removed):,} removed"
        f"{f' ({why})' if why else ''}, {_skipped_text(report.skipped)}; "
        f"{_files(report.held)} held"
    )


def _corpus_refusal(args: argparse.Namespace, corpus: Any) -> str:
    """Why options given for a new corpus do not fit an existing one ("" if they do)."""
    if args.min_threshold is not None and args.min_threshold != corpus.min_threshold:
        return (
            f"answers thresholds from {float(corpus.min_threshold):g}; "
            "--min-threshold is set when a corpus is made"
        )
    lsh = corpus.lsh
    held = "exact" if lsh is None else "minhash"
    if args.corpus_method is not None and args.corpus_method != held:
        return f"finds candidates by --method {held}; --method is set when a corpus is made"
    wanted = {"--num-perm": args.num_perm, "--lsh-threshold": args.lsh_threshold}
    for option, value in wanted.items():
        if value is None:
            continue
        if lsh is None:
            return f"finds candidates by --method exact; {option} is for a minhash corpus"
        stored = lsh.num_perm if option == "--num-perm" else lsh.threshold
        if float(value) != stored:
            return f"was made with {option} {stored:g}; it is set when a corpus is made"
    return ""


def _run_fingerprint(args: argparse.Namespace) -> int:
    from samecode.fingerprints.simhash import compute
    from samecode.halohash import (
        BitAverageHaloHash,
        BucketAverageHaloHash,
        BucketedBitAverageHaloHash,
    )
    from samecode.scan.pipeline import discover, read_documents

    _check_roots(args.paths)
    shingling = _shingling(args)
    options = _scan_options(args, shingling)
    kinds = args.kind or ["simhash"]
    paths, skipped = discover(args.paths, options)
    lines = [json.dumps({"path": s.path, "skipped": s.reason}, ensure_ascii=True) for s in skipped]

    def features(shingles: Any) -> list[memoryview]:
        blob = memoryview(shingles.tobytes())
        return [blob[i : i + 8] for i in range(0, len(blob), 8)]

    makers: dict[str, Callable[[Any], str]] = {
        "simhash": lambda s: f"{compute(s):016x}",
        "halo": lambda s: BitAverageHaloHash(features(s), 128).hexdigest().decode(),
        "bucket": lambda s: BucketAverageHaloHash(features(s), 128).hexdigest().decode(),
        "bucketed": lambda s: BucketedBitAverageHaloHash(features(s), 128).hexdigest().decode(),
    }
    for path in paths:
        (item,) = read_documents([path], shingling, options.max_size, 1)
        if isinstance(item, Skipped):
            record: dict[str, Any] = {"path": item.path, "skipped": item.reason}
        else:
            record = {
                "path": item.path,
                "size": item.size,
                "sha256": item.sha256,
                "tokens": item.tokens,
                "shingles": len(item.shingles),
            }
            record.update({kind: makers[kind](item.shingles) for kind in kinds})
        lines.append(json.dumps(record, ensure_ascii=True))
    _write("\n".join(lines), args.output)
    return 0


def _run_compare(args: argparse.Namespace) -> int:
    from samecode.scan.compare import compare_files

    found = compare_files(args.first, args.second, _shingling(args))
    if _value(args, "format", "text") == "json":
        _write(json.dumps(found.to_dict(), ensure_ascii=True), None)
        return 0
    lines = [
        f"{_shown(path)}: {tokens:,} tokens, {shingles:,} shingles"
        for path, tokens, shingles in (
            (found.a, found.a_tokens, found.a_shingles),
            (found.b, found.b_tokens, found.b_shingles),
        )
    ]
    if found.jaccard is None or found.containment_a is None or found.containment_b is None:
        empty = " and ".join(_shown(path) for path in found.empty)
        verb = "has" if len(found.empty) == 1 else "have"
        lines.append(f"not comparable: {empty} {verb} no shingles (empty)")
    else:
        lines.append(
            f"jaccard {float(found.jaccard):.3f} ({found.shared:,} shared of {found.union:,}); "
            f"containment {float(found.containment_a):.3f} and {float(found.containment_b):.3f}"
        )
    _write("\n".join(lines), None)
    return 0


def _shown(path: str) -> str:
    from samecode.scan.report import printable

    return printable(path)


_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "scan": _run_scan,
    "match": _run_match,
    "index": _run_index,
    "fingerprint": _run_fingerprint,
    "compare": _run_compare,
}


def _missing_extra() -> bool:
    try:
        import pathspec  # noqa: F401
        import rich  # noqa: F401
    except ImportError:
        return True
    return False


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (``sys.argv[1:]`` by default); return the exit
    status (see the module's description)."""
    try:
        return _main(argv)
    except BrokenPipeError:
        _silence_stdout()
        return 141
    except KeyboardInterrupt:
        print("samecode: interrupted", file=sys.stderr)
        return 130
    except OutputError as error:
        # What could not be written stays in stdout's buffer: drop it, so that Python's
        # last flush on the way out does not fail again.
        _silence_stdout()
        print(f"samecode: cannot write the output: {error.strerror}", file=sys.stderr)
        return 2
    except UsageError as error:
        print(
            _one_line(str(error) if str(error).startswith("samecode") else f"samecode: {error}"),
            file=sys.stderr,
        )
        return 2
    except (OSError, ValueError, TypeError, ImportError, MemoryError) as error:
        if os.environ.get("SAMECODE_DEBUG"):
            raise
        print(_one_line(f"samecode: {_describe_error(error)}"), file=sys.stderr)
        return 2


def _main(argv: Sequence[str] | None) -> int:
    _tolerate_any_name()
    try:
        args = _parser().parse_args(argv)
    except SystemExit as done:  # --help and --version
        return int(done.code or 0)
    if _missing_extra():
        raise UsageError(_EXTRA)
    config, where = _load_config(Path.cwd())
    _apply_config(args, config, where)
    return _COMMANDS[args.command](args)


def _tolerate_any_name() -> None:
    """Write names that are not UTF-8 back as their bytes, instead of failing."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # a stream that cannot
                reconfigure(
                    errors="surrogateescape" if stream is sys.stdout else "backslashreplace"
                )


def _describe_error(error: BaseException) -> str:
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        filename = (
            error.filename if isinstance(error.filename, str) else os.fsdecode(error.filename)
        )
        if type(error).__str__ is not OSError.__str__:
            return str(error)
        return f"{_shown(filename)}: {error.strerror}"
    if isinstance(error, OSError) and error.strerror:
        return f"cannot write the output: {error.strerror}" if error.errno == 28 else error.strerror
    if isinstance(error, MemoryError):
        return "out of memory (lower --jobs or --max-size, or scan fewer files at once)"
    return str(error) or type(error).__name__


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _silence_stdout() -> None:
    """After a closed pipe: point stdout at /dev/null so that Python's last flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout without a file descriptor
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
