"""The command line's parser: its commands and options, their types, the defaults (read
from the library, not restated), and the configuration in ``[tool.samecode]`` of the
nearest ``pyproject.toml``.

>>> args = build_parser().parse_args(["scan", ".", "--threshold", "0.9"])
>>> args.threshold, option(args, "min_tokens") == DEFAULTS["min_tokens"]
(Fraction(9, 10), True)
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import MISSING, fields
from fractions import Fraction
from pathlib import Path
from typing import Any, NoReturn

from samecode import __version__
from samecode._validation import describe
from samecode.cli.output import to_stdout
from samecode.corpus.store import Corpus
from samecode.engine import RunOptions
from samecode.errors import SamecodeError, SamecodeTypeError
from samecode.reports.comparison import COMPARISON_FORMATS
from samecode.reports.fragments import FRAGMENT_COMPARISON_FORMATS, FRAGMENT_FORMATS
from samecode.reports.pairs import PAIR_FORMATS
from samecode.scan.candidates import method_names
from samecode.scan.classes import CHAINING
from samecode.scan.pipeline import ScanOptions
from samecode.set_digests import DIGEST_KINDS
from samecode.similarity import MEASURES, exact_threshold
from samecode.sources.walk import WalkOptions
from samecode.text.shingling import TOKEN_KINDS, Shingling

__all__ = [
    "CORPUS_FIXED",
    "DEFAULTS",
    "PROFILE_OPTIONS",
    "UsageError",
    "apply_config",
    "apply_profile",
    "build_parser",
    "load_config",
    "option",
]

_SIZES = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


def _defaults() -> dict[str, Any]:
    """Every option's default, by its attribute name: the library's
    (:class:`~samecode.scan.pipeline.ScanOptions`, :class:`~samecode.text.shingling.Shingling`,
    :meth:`Corpus.create <samecode.corpus.store.Corpus.create>`, the report formats), but
    ``jobs``, which is every core here (the library's is one process)."""
    scan: dict[str, Any] = {}
    for kind in (ScanOptions, WalkOptions, RunOptions):
        for item in fields(kind):
            factory: Any = item.default_factory
            scan[item.name] = item.default if item.default is not MISSING else factory()
    rules = Shingling()
    return {
        "threshold": exact_threshold(scan["threshold"]),
        "containment": scan["measure"] == MEASURES[1],
        "method": scan["method"],
        "num_perm": scan["num_perm"],
        "lsh_threshold": scan["lsh_threshold"],
        "shingle": rules.size,
        "tokens": rules.tokens,
        "normalize": rules.normalize,
        "min_tokens": scan["min_tokens"],
        "max_size": scan["max_size"],
        "include": scan["include"],
        "exclude": scan["exclude"],
        "gitignore": scan["gitignore"],
        "default_excludes": scan["default_excludes"],
        "follow_symlinks": scan["follow_symlinks"],
        "jobs": _cores(),
        "batch_size": scan["batch_size"],
        "chaining": scan["chaining"],
        "format": next(iter(PAIR_FORMATS)),
        "db": "samecode.db",
        "min_threshold": exact_threshold(
            inspect.signature(Corpus.create).parameters["min_threshold"].default
        ),
        "corpus_method": "exact",
        "engine": ENGINES[0],
    }


#: Where ``scan`` runs its stages.
ENGINES = ("local", "spark")

#: Every option's default (see :func:`_defaults`).
DEFAULTS: dict[str, Any] = _defaults()


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


def _size_text(size: int | None) -> str:
    """``10M`` for ``10 << 20``; ``0`` for no limit."""
    if not size:
        return "0"
    for unit in ("T", "G", "M", "k"):
        scale = _SIZES[unit.lower()]
        if size % scale == 0:
            return f"{size // scale}{unit}"
    return str(size)


class UsageError(SamecodeError):
    """A bad command line or configuration: one line on stderr, status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}")

    def _print_message(self, message: str, file: Any = None) -> None:
        # argparse drops a failed write (``--help > /dev/full`` would exit 0): it must
        # fail as any output does.
        if not message:
            return
        stream = sys.stderr if file is None else file

        def printed() -> None:
            stream.write(message)
            stream.flush()

        to_stdout(printed)


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


def _driver_memory(text: str) -> str:
    from samecode.spark.session import memory_of

    try:
        return memory_of(text) or text
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"--spark-driver-memory: {error}") from None


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
    if value != int(value):  # 0.5 is no byte, and not "no limit"
        raise argparse.ArgumentTypeError(f"a size must be a whole number of bytes; got {text!r}")
    return int(value)


# -- the parser --------------------------------------------------------------------------


def _shingling_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("similarity")
    group.add_argument(
        "--shingle",
        type=_bounded("--shingle", 1, 1000),
        metavar="K",
        help="tokens (characters, with --tokens chars) per shingle "
        f"(default {DEFAULTS['shingle']})",
    )
    group.add_argument(
        "--tokens", choices=TOKEN_KINDS, help=f"what a token is (default {DEFAULTS['tokens']})"
    )
    group.add_argument(
        "--normalize",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="replace names and literals by placeholders, for renamed copies",
    )


def _profile_option(parser: argparse.ArgumentParser) -> None:
    from samecode.profiles import PROFILES

    parser.add_argument(
        "--profile",
        choices=tuple(PROFILES),
        help="the defaults for a job: duplicates (copies within your tree; the default), "
        "provenance (where code came from: vendored folders walked, small files, licence "
        "headers and imports matched), plagiarism (assignments: code tokens with names "
        "normalised, short fingerprints); options given still win",
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
        help=f"honour .gitignore files (default {_yes(DEFAULTS['gitignore'])})",
    )
    group.add_argument(
        "--default-excludes",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="leave out version-control, vendored and cache folders "
        f"(default {_yes(DEFAULTS['default_excludes'])})",
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
        help=f"files with fewer tokens are skipped (default {DEFAULTS['min_tokens']})",
    )
    group.add_argument(
        "--max-size",
        type=_size,
        metavar="SIZE",
        help=f"files larger are skipped (default {_size_text(DEFAULTS['max_size'])}; 0: no limit)",
    )
    group.add_argument(
        "--jobs",
        "-j",
        type=_bounded("--jobs", 1, 1024),
        metavar="N",
        help="processes running every stage (default: all cores); the output is the same",
    )
    group.add_argument(
        "--batch-size",
        type=_bounded("--batch-size", 1, 1 << 20),
        metavar="N",
        help=f"files read per task (default {DEFAULTS['batch_size']}); the output is the same",
    )


def _names(*registries: Iterable[str]) -> tuple[str, ...]:
    """The names of the formats of ``registries``, each once, in order: what ``--format``
    takes of a command whose results are of their kinds."""
    return tuple(dict.fromkeys(name for registry in registries for name in registry))


def _output_options(parser: argparse.ArgumentParser, formats: Sequence[str]) -> None:
    group = parser.add_argument_group("output")
    group.add_argument(
        "--format", choices=formats, help=f"output format (default {DEFAULTS['format']})"
    )
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
        help=f"the similarity a pair must reach (default {float(DEFAULTS['threshold']):g})",
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
        help=f"signature values per file for --method minhash (default {DEFAULTS['num_perm']})",
    )
    parser.add_argument(
        "--lsh-threshold",
        type=_threshold,
        metavar="T",
        help=f"the LSH threshold of --method minhash (default: 0.2 below {base})",
    )


def _engine_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("engine")
    group.add_argument(
        "--engine",
        choices=ENGINES,
        help="where the stages run: processes here (local) or an Apache Spark job (spark, "
        "pip install 'samecode[spark]'); the output is the same (default local)",
    )
    group.add_argument(
        "--spark-master",
        metavar="URL",
        help="the Spark master (default $SPARK_MASTER, else local[*])",
    )
    group.add_argument(
        "--spark-partitions",
        type=_bounded("--spark-partitions", 1, 1 << 20),
        metavar="N",
        help=(
            "partitions of each Spark stage (default twice Spark's default parallelism, "
            "and at least one per 20,000 files)"
        ),
    )
    group.add_argument(
        "--spark-driver-memory",
        type=_driver_memory,
        metavar="SIZE",
        help="the Spark driver's heap, such as 4g (on local[N] the whole job's; default "
        "$SPARK_DRIVER_MEMORY, else Spark's 1g)",
    )


def _fragment_options(parser: argparse.ArgumentParser, tree: bool) -> None:
    """``--fragments`` and its parameters (defaults: the library's
    :class:`~samecode.fragments.options.FragmentOptions`)."""
    from samecode.fragments.options import FragmentOptions

    rules = FragmentOptions()
    group = parser.add_argument_group("fragments (which lines were copied)")
    group.add_argument(
        "--fragments",
        action="store_true",
        help="report the regions of text the files share, as line ranges, and their clone classes"
        if tree
        else "show the regions of text the files share, with the text",
    )
    _stored_fragment_options(group)
    group.add_argument(
        "--min-region",
        type=_bounded("--min-region", 1, 10**9),
        metavar="N",
        help=f"the fewest matched tokens a region reported holds (default {rules.min_tokens})",
    )
    group.add_argument(
        "--gap",
        type=_bounded("--gap", 0, 1000),
        metavar="N",
        help=f"unmatched tokens a region may span between matches (default {rules.gap})",
    )
    if tree:
        group.add_argument(
            "--boilerplate-share",
            type=_share,
            metavar="S",
            help="fingerprints in more than this share of the files (and more than "
            f"{rules.boilerplate_files}) are boilerplate, ignored and counted "
            f"(default {rules.boilerplate_share:g})",
        )
        group.add_argument(
            "--baseline",
            metavar="FILE",
            help="report only what is new since FILE, a report saved with --fragments "
            "--format json (by path and digest of each occurrence: a new copy of an old "
            "clone is new)",
        )
    group.add_argument(
        "--boilerplate",
        action="append",
        metavar="PATH",
        help="a file whose text is ignored wherever it is found; repeatable",
    )


def _stored_fragment_options(group: Any) -> None:
    """The fragment options a corpus records: ``--kgram``, ``--window``,
    ``--keep-licenses``, ``--keep-imports`` (defaults: the library's)."""
    from samecode.fragments.options import FragmentOptions

    rules = FragmentOptions()
    group.add_argument(
        "--kgram",
        type=_bounded("--kgram", 1, 1000),
        metavar="K",
        help=f"tokens per fingerprint (default {rules.k})",
    )
    group.add_argument(
        "--window",
        type=_bounded("--window", 1, 1000),
        metavar="W",
        help=f"fingerprints are chosen one per W k-grams at least (default {rules.window}); "
        "every shared run of W + K - 1 tokens is found",
    )
    group.add_argument(
        "--keep-licenses",
        action="store_true",
        default=None,
        help="match licence headers too (by default the leading comment block, when it "
        "names a licence or copyright, is ignored)",
    )
    group.add_argument(
        "--keep-imports",
        action="store_true",
        default=None,
        help="match import blocks too (ignored by default)",
    )
    group.add_argument(
        "--keep-msgids",
        action="store_true",
        default=None,
        help="match the message ids of gettext catalogues (.po, .pot) too (ignored by "
        "default: every catalogue of a program holds them)",
    )
    group.add_argument(
        "--keep-msgid-copies",
        action="store_true",
        default=None,
        help="where the message ids are ignored, let what a translation copies from its "
        "id (placeholders, markup, links, words left untranslated) seed matches too (by "
        "default it seeds none, so that catalogues of different languages do not match "
        "on it)",
    )


def _share(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a share is a number such as 0.1; got {text!r}") from None
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"a share must be above 0 and at most 1; got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The whole command line: a sub-parser per command, the defaults in the help read
    from the library (:data:`DEFAULTS`)."""
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
        "--method",
        choices=method_names(),
        help=f"how candidates are proposed (default {DEFAULTS['method']})",
    )
    _minhash_options(scan, "--threshold")
    scan.add_argument(
        "--chaining",
        choices=CHAINING,
        help="how pairs make clone classes: every chain of pairs (linked), or every member "
        f"pairing with its class's representative (star; default {DEFAULTS['chaining']})",
    )
    scan.add_argument("--against", metavar="DB", help="also match the files against this corpus")
    _engine_options(scan)
    _profile_option(scan)
    _shingling_options(scan)
    _fragment_options(scan, tree=True)
    scan.add_argument(
        "--all-pairs",
        action="store_true",
        default=None,
        help="with --fragments: compare every two files that share text; by default text "
        "copied into N files is compared between the first and each other copy (N - 1 pairs, "
        "the same clone classes)",
    )
    _walk_options(scan)
    _output_options(scan, _names(PAIR_FORMATS, FRAGMENT_FORMATS))

    match = commands.add_parser("match", help="the corpus files each file matches")
    match.add_argument("paths", nargs="+", metavar="PATH")
    match.add_argument("--db", metavar="FILE", help=f"the corpus (default ./{DEFAULTS['db']})")
    _matching_options(match)
    _profile_option(match)
    _shingling_options(match)
    _fragment_options(match, tree=True)
    _walk_options(match)
    _output_options(match, _names(PAIR_FORMATS, FRAGMENT_FORMATS))

    index = commands.add_parser("index", help="a corpus of known files in one SQLite file")
    actions = index.add_subparsers(
        dest="action", required=True, metavar="ACTION", parser_class=_Parser
    )
    add = actions.add_parser(
        "add", help="add files (unchanged ones are skipped, changed ones replaced)"
    )
    add.add_argument("paths", nargs="+", metavar="PATH")
    add.add_argument(
        "--db", metavar="FILE", help=f"the corpus (default ./{DEFAULTS['db']}; made if missing)"
    )
    add.add_argument(
        "--prune", action="store_true", help="remove stored files under the paths that are gone"
    )
    add.add_argument(
        "--min-threshold",
        type=_threshold,
        metavar="T",
        help="for a new corpus: the lowest threshold it answers "
        f"(default {float(DEFAULTS['min_threshold']):g})",
    )
    add.add_argument(
        "--method",
        dest="corpus_method",
        choices=("exact", "minhash"),
        help="for a new corpus: how it finds candidates, exact (prefixes of the shingles; "
        "the default) or minhash (LSH bands: smaller, Jaccard only, may miss pairs)",
    )
    _minhash_options(add, "--min-threshold")
    _profile_option(add)
    _shingling_options(add)
    stored = add.add_argument_group("fragments (for match --fragments)")
    stored.add_argument(
        "--fragments",
        action="store_true",
        help="for a new corpus: also store every file's fragments (its tokens, their lines "
        "and its fingerprints), so that match --fragments can say which lines match",
    )
    _stored_fragment_options(stored)
    _walk_options(add)
    add.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no summary")
    remove = actions.add_parser("remove", help="remove stored files at or under the paths")
    remove.add_argument("paths", nargs="+", metavar="PATH")
    remove.add_argument("--db", metavar="FILE", help=f"the corpus (default ./{DEFAULTS['db']})")
    convert = actions.add_parser(
        "convert",
        help="copy the corpus into a new file of the current format, from the texts it keeps",
    )
    convert.add_argument("new", metavar="NEW", help="the new corpus file (must not exist)")
    convert.add_argument("--db", metavar="FILE", help=f"the corpus (default ./{DEFAULTS['db']})")
    for name, text in (
        ("stats", "what the corpus holds"),
        ("check", "verify the whole corpus file"),
        ("compact", "fold pending postings into the index and give back free pages"),
    ):
        action = actions.add_parser(name, help=text)
        action.add_argument("--db", metavar="FILE", help=f"the corpus (default ./{DEFAULTS['db']})")

    fingerprint = commands.add_parser(
        "fingerprint", help="a JSON line per file: size, SHA-256, fingerprints"
    )
    fingerprint.add_argument("paths", nargs="+", metavar="PATH")
    fingerprint.add_argument(
        "--kind",
        action="append",
        choices=DIGEST_KINDS,
        help=f"fingerprints to compute (default {DIGEST_KINDS[0]}); repeatable",
    )
    _shingling_options(fingerprint)
    _walk_options(fingerprint)
    fingerprint.add_argument(
        "--output", "-o", metavar="FILE", help="write to FILE instead of standard output"
    )

    compare = commands.add_parser("compare", help="the similarity of two files")
    compare.add_argument("first", metavar="A")
    compare.add_argument("second", metavar="B")
    formats = _names(COMPARISON_FORMATS, FRAGMENT_COMPARISON_FORMATS)
    compare.add_argument("--format", choices=formats, help=f"output format (default {formats[0]})")
    _profile_option(compare)
    _shingling_options(compare)
    _fragment_options(compare, tree=False)
    return parser


# -- configuration ---------------------------------------------------------------------

#: Each key of ``[tool.samecode]``: the type TOML must give, and how the value is read.
_CONFIG_KEYS: dict[str, tuple[type, Callable[[str], Any] | None]] = {
    "threshold": (object, _threshold),
    "profile": (str, None),
    "method": (str, None),
    "num-perm": (int, _bounded("num-perm", 2, 1024)),
    "lsh-threshold": (object, _threshold),
    "containment": (bool, None),
    "shingle": (int, _bounded("shingle", 1, 1000)),
    "tokens": (str, None),
    "normalize": (bool, None),
    "include": (list, None),
    "exclude": (list, None),
    "gitignore": (bool, None),
    "default-excludes": (bool, None),
    "follow-symlinks": (bool, None),
    "min-tokens": (int, _bounded("min-tokens", 1, 10**9)),
    "max-size": (object, _size),
    "jobs": (int, _bounded("jobs", 1, 1024)),
    "batch-size": (int, _bounded("batch-size", 1, 1 << 20)),
    "chaining": (str, None),
    "format": (str, None),
    "engine": (str, None),
    "db": (str, None),
    "min-threshold": (object, _threshold),
}
_KIND_NAMES = {bool: "boolean", int: "whole number", str: "string", list: "list of strings"}


def load_config(start: Path) -> tuple[dict[str, Any], str | None]:
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
            tool = data.get("tool", {})
            if not isinstance(tool, dict):
                raise UsageError(f"{candidate}: tool must be a table; got {describe(tool)}")
            section = tool.get("samecode", {})
            if not isinstance(section, dict):
                raise UsageError(
                    f"{candidate}: tool.samecode must be a table; got {describe(section)}"
                )
            return section, str(candidate)
    return {}, None


def apply_config(args: argparse.Namespace, config: dict[str, Any], where: str | None) -> None:
    """Set the options the command line left out from ``config`` (read from ``where``).

    Every key is checked, whether the command takes it or not, so a bad configuration
    is refused by every command alike.

    :raises UsageError: for an unknown key or a bad value, naming the file and the key.
    """
    for key, value in config.items():
        convert = _CONFIG_KEYS.get(key)
        if convert is None:
            raise UsageError(f"{where}: unknown key {key!r} in [tool.samecode]")
        try:
            value = _config_value(*convert, value)
        except (SamecodeError, argparse.ArgumentTypeError) as error:
            raise UsageError(f"{where}: {key} in [tool.samecode] {error}") from None
        attribute = key.replace("-", "_")
        if hasattr(args, attribute) and getattr(args, attribute) is None:
            setattr(args, attribute, value)  # the command takes it; the line left it out


def _config_value(kind: type, parse: Callable[[str], Any] | None, value: Any) -> Any:
    if kind is object:  # a number or a string, read as the option's text
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise SamecodeTypeError(f"must be a number or a string; got {describe(value)}")
    elif not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise SamecodeTypeError(f"must be a {_KIND_NAMES[kind]}; got {describe(value)}")
    if kind is list:
        wrong = [item for item in value if not isinstance(item, str)]
        if wrong:
            raise SamecodeTypeError(f"must be a list of strings; got an item {describe(wrong[0])}")
        return list(value)
    return value if parse is None else parse(str(value))


#: The option that stands for each setting a profile may set, by group and field
#: (:class:`~samecode.profiles.Profile`).
PROFILE_OPTIONS = {
    ("shingling", "size"): "shingle",
    ("shingling", "tokens"): "tokens",
    ("shingling", "normalize"): "normalize",
    ("walk", "default_excludes"): "default_excludes",
    ("walk", "min_tokens"): "min_tokens",
    ("fragments", "k"): "kgram",
    ("fragments", "window"): "window",
    ("fragments", "min_tokens"): "min_region",
    ("fragments", "gap"): "gap",
    ("fragments", "keep_licenses"): "keep_licenses",
    ("fragments", "keep_imports"): "keep_imports",
    ("fragments", "keep_msgids"): "keep_msgids",
    ("fragments", "keep_msgid_copies"): "keep_msgid_copies",
    ("fragments", "all_pairs"): "all_pairs",
}

#: The options a corpus fixes when it is made: against an existing corpus, its own.
CORPUS_FIXED = frozenset(
    {"shingle", "tokens", "normalize", "kgram", "window"}
    | {"keep_licenses", "keep_imports", "keep_msgids", "keep_msgid_copies"}
)


def apply_profile(
    args: argparse.Namespace, name: str | None = None, leave: frozenset[str] = frozenset()
) -> None:
    """Set the options the command line and the configuration left out to what the
    profile ``name`` (``args.profile`` if ``None``) sets, but those in ``leave`` and, without
    ``--fragments``, the fragments' own; note what it set in ``args.profile_set`` (by
    group, then the library's name of the setting, as a report's parameters state it).

    :raises UsageError: for an unknown profile.
    """
    from samecode.profiles import UnknownProfileError, profile

    name = getattr(args, "profile", None) if name is None else name
    args.profile_set = {}
    if name is None:
        return
    try:
        chosen = profile(name)
    except UnknownProfileError as error:
        raise UsageError(str(error)) from None
    fragments = getattr(args, "fragments", False)
    for group, values in chosen.settings().items():
        if group == "fragments" and not fragments:
            continue
        for field, value in values.items():
            attribute = PROFILE_OPTIONS[(group, field)]
            if attribute in leave or not hasattr(args, attribute):
                continue
            if getattr(args, attribute) is None:
                setattr(args, attribute, value)
                args.profile_set.setdefault(group, {})[field] = value


def option(args: argparse.Namespace, name: str) -> Any:
    """An option's value: from the command line, the configuration, or the default
    (:data:`DEFAULTS`)."""
    value = getattr(args, name, None)
    return DEFAULTS[name] if value is None else value
