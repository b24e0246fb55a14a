"""The commands: each parses nothing and decides little, calling the library
(:func:`~samecode.scan.pipeline.scan`, :class:`~samecode.corpus.store.Corpus`,
:func:`~samecode.scan.comparison.compare_files`, :mod:`samecode.reports.pairs`) with the options
:mod:`samecode.cli.parser` read, and :mod:`samecode.cli.output` to write what it found.

>>> sorted(COMMANDS)
['compare', 'fingerprint', 'index', 'match', 'scan']
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from samecode.cli.output import (
    Feedback,
    counted,
    emit,
    files_text,
    shown,
    skipped_text,
    write,
)
from samecode.cli.parser import KINDS, UsageError, option
from samecode.corpus.store import Corpus
from samecode.engine import engine_for
from samecode.reports.pairs import FORMATS, corpus_parameters, scan_parameters
from samecode.scan.model import Pair
from samecode.scan.pipeline import ScanOptions
from samecode.sources.files import Skipped
from samecode.text.shingling import Shingling

if TYPE_CHECKING:
    from samecode.fragments.result import FragmentResult

__all__ = [
    "COMMANDS",
    "run_compare",
    "run_compare_fragments",
    "run_fingerprint",
    "run_index",
    "run_match",
    "run_match_fragments",
    "run_scan",
    "run_scan_fragments",
]


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
        tokens=option(args, "tokens"),
        size=option(args, "shingle"),
        normalize=option(args, "normalize"),
    )


def _scan_options(args: argparse.Namespace, shingling: Shingling) -> ScanOptions:
    return ScanOptions(
        threshold=option(args, "threshold"),
        measure="containment" if option(args, "containment") else "jaccard",
        method=option(args, "method"),
        num_perm=option(args, "num_perm"),
        lsh_threshold=option(args, "lsh_threshold"),
        shingling=shingling,
        min_tokens=option(args, "min_tokens"),
        max_size=option(args, "max_size") or None,  # 0: no limit
        include=tuple(option(args, "include")),
        exclude=tuple(option(args, "exclude")),
        gitignore=option(args, "gitignore"),
        default_excludes=option(args, "default_excludes"),
        follow_symlinks=option(args, "follow_symlinks"),
        jobs=option(args, "jobs"),
        batch_size=option(args, "batch_size"),
        chaining=option(args, "chaining"),
    )


def _check_roots(paths: Sequence[str]) -> None:
    """A path named on the command line must exist: a typo is a usage error."""
    for path in paths:
        if not os.path.lexists(path):
            raise UsageError(f"{shown(path)}: no such file or folder")


def _open_corpus(path: str, readonly: bool) -> Corpus:
    return Corpus.open(path, readonly=readonly)


@dataclass
class _Found:
    """What a scan found, whichever engine ran it, and what its report says of it."""

    options: ScanOptions
    parameters: dict[str, Any]
    pairs: list[Any]
    classes: list[Any]
    skipped: list[Skipped]
    compared: int
    corpus_pairs: list[Any] | None = None  # None: no corpus


def _spark_scan(args: argparse.Namespace, feedback: Feedback) -> _Found:
    if args.against:
        raise UsageError("--against needs --engine local (the corpus is a file here)")
    try:
        import pyspark  # noqa: F401
    except ImportError:
        raise UsageError("--engine spark needs its extra: pip install 'samecode[spark]'") from None
    from samecode.spark import scan_files

    options = _scan_options(args, _shingling(args))
    found = scan_files(
        args.paths,
        options,
        master=args.spark_master,
        partitions=args.spark_partitions,
        driver_memory=args.spark_driver_memory,
    ).collect()
    return _Found(
        options,
        scan_parameters(options),
        found.pairs,
        found.classes,
        found.skipped,
        found.compared,
    )


def _local_scan(args: argparse.Namespace, feedback: Feedback) -> _Found:
    from samecode.scan.pipeline import scan

    corpus = _open_corpus(args.against, True) if args.against else None
    try:
        options = _scan_options(args, _shingling(args, corpus.shingling if corpus else None))
        parameters = scan_parameters(options)
        if corpus is not None:
            parameters.update(corpus_parameters(args.against, corpus))
        result = scan(args.paths, options, feedback)
        corpus_pairs: list[Pair] | None = None
        if corpus is not None:
            with engine_for(options.jobs) as engine:
                corpus_pairs = corpus.match(
                    result.documents, options.exact_threshold, options.measure, feedback, engine
                )
    finally:
        if corpus is not None:
            corpus.close()
    return _Found(
        options,
        parameters,
        result.pairs,
        result.classes,
        result.skipped,
        len(result.documents),
        corpus_pairs,
    )


def run_scan(args: argparse.Namespace) -> int:
    from samecode.reports.pairs import Report

    _check_roots(args.paths)
    spark = option(args, "engine") == "spark"
    if not spark and (args.spark_master or args.spark_partitions or args.spark_driver_memory):
        raise UsageError(
            "--spark-master, --spark-partitions and --spark-driver-memory need --engine spark"
        )
    if args.fragments:
        if spark:
            raise UsageError("--fragments runs on --engine local")
        return run_scan_fragments(args)
    if args.baseline:
        raise UsageError("--baseline needs --fragments")
    if option(args, "format") not in FORMATS:
        raise UsageError(f"--format {option(args, 'format')} needs --fragments")
    with Feedback(args.quiet) as feedback:
        found = (_spark_scan if spark else _local_scan)(args, feedback)
    corpus_pairs = found.corpus_pairs or []
    report = Report(
        found.parameters,
        found.pairs,
        found.classes,
        found.skipped,
        found.compared,
        corpus_pairs,
        found.options.measure == "containment",
    )
    emit(report, option(args, "format"), args.output)
    matches = len(found.pairs) + len(corpus_pairs)
    extra = (
        f", {counted(len(corpus_pairs), 'corpus match', 'corpus matches')}"
        if found.corpus_pairs is not None
        else ""
    )
    feedback.summary(
        f"compared {files_text(found.compared)}, {skipped_text(found.skipped)}; "
        f"{counted(len(found.pairs), 'pair')} in "
        f"{counted(len(found.classes), 'class', 'classes')}{extra}"
    )
    return 1 if args.fail_on_match and matches else 0


def run_match(args: argparse.Namespace) -> int:
    from samecode.reports.pairs import Report
    from samecode.scan.pipeline import discover, read_all

    if args.fragments:
        return run_match_fragments(args)
    if args.baseline:
        raise UsageError("--baseline needs --fragments")
    if option(args, "format") not in FORMATS:
        raise UsageError(f"--format {option(args, 'format')} needs --fragments")
    _check_roots(args.paths)
    db = option(args, "db")
    with _open_corpus(db, True) as corpus:
        options = _scan_options(args, _shingling(args, corpus.shingling))
        parameters = {**scan_parameters(options), **corpus_parameters(db, corpus)}
        with Feedback(args.quiet) as feedback:
            paths, walk_skipped = discover(args.paths, options)
            with engine_for(options.jobs if len(paths) > 1 else 1) as engine:
                documents, read_skipped = read_all(paths, options, feedback, engine)
                pairs = corpus.match(
                    documents, options.exact_threshold, options.measure, feedback, engine
                )
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
    emit(report, option(args, "format"), args.output)
    matched = len({p.a for p in pairs})
    feedback.summary(
        f"matched {files_text(len(documents))} against {db}, {skipped_text(skipped)}; "
        f"{files_text(matched)} matched {files_text(len(pairs))} of the corpus"
    )
    return 1 if args.fail_on_match and pairs else 0


def run_index(args: argparse.Namespace) -> int:
    db = option(args, "db")
    if args.action == "add":
        return _index_add(args, db)
    if args.action == "remove":
        with _open_corpus(db, False) as corpus:
            removed = corpus.remove(args.paths, recursive=True)
        print(f"samecode: removed {files_text(removed)} from {db}", file=sys.stderr)
        return 0
    with _open_corpus(db, True) as corpus:
        if args.action == "stats":
            write(json.dumps(corpus.stats(), indent=2, ensure_ascii=True), None)
            return 0
        problems = corpus.check()
    for problem in problems:
        print(f"samecode: {db}: {problem}", file=sys.stderr)
    if problems:
        return 2
    print(f"samecode: {db} is sound", file=sys.stderr)
    return 0


def _index_add(args: argparse.Namespace, db: str) -> int:

    _check_roots(args.paths)
    corpus = None if os.path.exists(db) else _new_corpus(args, db)
    if corpus is None:
        corpus = Corpus.open(db)
        refusal = _corpus_refusal(args, corpus)
        if refusal:
            corpus.close()
            raise UsageError(f"{db} {refusal}")
    options = _scan_options(args, _shingling(args, corpus.shingling))
    with corpus, Feedback(args.quiet) as feedback, engine_for(options.jobs) as engine:
        report = corpus.sync(
            args.paths, options, prune=args.prune, progress=feedback, engine=engine
        )
    feedback.summary(_sync_text(db, report))
    return 0


def _new_corpus(args: argparse.Namespace, db: str) -> Corpus | None:
    """A new corpus at ``db`` made by the options given, or ``None`` where another process
    made one there meanwhile (it is opened and checked as any existing corpus is, and its
    files added to: of several ``index add`` started together, none loses its files)."""
    lowest = option(args, "min_threshold")
    lsh = None
    if args.corpus_method == "minhash":
        from samecode.minhash.settings import LSHSettings
        from samecode.scan.candidates import default_lsh_threshold

        lsh = LSHSettings(
            num_perm=option(args, "num_perm"),
            threshold=float(option(args, "lsh_threshold") or default_lsh_threshold(lowest)),
        )
    elif args.num_perm is not None or args.lsh_threshold is not None:
        raise UsageError("--num-perm and --lsh-threshold need --method minhash")
    shingling = _shingling(args)
    fragments = None
    if args.fragments:
        fragments = dataclasses.replace(
            _fragment_options(args), tokens=shingling.tokens, normalize=shingling.normalize
        )
    elif _stored_fragment_flags(args):
        raise UsageError(f"{', '.join(_stored_fragment_flags(args))} need --fragments")
    try:
        return Corpus.create(db, shingling, min_threshold=lowest, lsh=lsh, fragments=fragments)
    except FileExistsError:
        return None


def _sync_text(db: str, report: Any) -> str:
    removed = Counter(item.reason.split(":")[0] for item in report.removed)
    why = ", ".join(f"{count:,} {reason}" for reason, count in sorted(removed.items()))
    return (
        f"{db}: {len(report.added):,} added, {len(report.updated):,} updated, "
        f"{len(report.unchanged):,} unchanged, {len(report.removed):,} removed"
        f"{f' ({why})' if why else ''}, {skipped_text(report.skipped)}; "
        f"{files_text(report.held)} held"
    )


def _stored_fragment_flags(args: argparse.Namespace) -> list[str]:
    """The options of the fragments a corpus stores that were given."""
    names = ("kgram", "window", "keep_licenses", "keep_imports")
    return [f"--{name.replace('_', '-')}" for name in names if getattr(args, name) is not None]


#: The flag of each setting a corpus fixes when it is made.
_FLAGS = {
    "k": "--kgram",
    "window": "--window",
    "keep_licenses": "--keep-licenses",
    "keep_imports": "--keep-imports",
    "num_perm": "--num-perm",
    "lsh_threshold": "--lsh-threshold",
}


def _corpus_refusal(args: argparse.Namespace, corpus: Corpus) -> str:
    """Why options given for a new corpus do not fit an existing one ("" if they do): the
    library's rule (:meth:`Corpus.check_given`), said with the command's flags."""
    from samecode.corpus.store import CorpusSettingsError

    flags = _stored_fragment_flags(args)
    given: dict[str, Any] = {}
    if corpus.fragments is not None:
        asked = _fragment_options(args, corpus.fragments)
        names = {flag: name for name, flag in _FLAGS.items()}
        given = {names[flag]: getattr(asked, names[flag]) for flag in flags}
    try:
        corpus.check_given(
            min_threshold=args.min_threshold,
            candidates={"exact": "prefix", "minhash": "lsh", None: None}[args.corpus_method],
            num_perm=args.num_perm,
            lsh_threshold=args.lsh_threshold,
            fragments=bool(args.fragments or flags),
            **given,
        )
    except CorpusSettingsError as refused:
        return _refusal_text(refused)
    return ""


def _refusal_text(refused: Any) -> str:
    """A :class:`~samecode.corpus.store.CorpusSettingsError` said with the flags."""
    setting, stored = refused.setting, refused.stored
    if setting == "fragments":
        return (
            "stores no fragments; --fragments is set when a corpus is made (make a new "
            "one with index add --fragments --db NEW)"
        )
    if setting == "min_threshold":
        return (
            f"answers thresholds from {float(stored):g}; "
            "--min-threshold is set when a corpus is made"
        )
    if setting == "candidates":
        held = "exact" if stored == "prefix" else "minhash"
        return f"finds candidates by --method {held}; --method is set when a corpus is made"
    if setting == "lsh":
        (name,) = refused.given
        return f"finds candidates by --method exact; {_FLAGS[name]} is for a minhash corpus"
    if setting in ("num_perm", "lsh_threshold"):
        return f"was made with {_FLAGS[setting]} {stored:g}; it is set when a corpus is made"
    return (
        f"stores fragments with {setting}={stored!r}; {_FLAGS[setting]} is set when a "
        "corpus is made"
    )


def run_fingerprint(args: argparse.Namespace) -> int:
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
    kinds = args.kind or [KINDS[0]]
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
    write("\n".join(lines), args.output)
    return 0


def run_compare(args: argparse.Namespace) -> int:
    from samecode.scan.comparison import compare_files

    if args.fragments:
        return run_compare_fragments(args)
    found = compare_files(args.first, args.second, _shingling(args))
    if args.format == "json":
        write(json.dumps(found.to_dict(), ensure_ascii=True), None)
        return 0
    lines = [
        f"{shown(path)}: {tokens:,} tokens, {shingles:,} shingles"
        for path, tokens, shingles in (
            (found.a, found.a_tokens, found.a_shingles),
            (found.b, found.b_tokens, found.b_shingles),
        )
    ]
    if found.jaccard is None or found.containment_a is None or found.containment_b is None:
        empty = " and ".join(shown(path) for path in found.empty)
        verb = "has" if len(found.empty) == 1 else "have"
        lines.append(f"not comparable: {empty} {verb} no shingles (empty)")
    else:
        lines.append(
            f"jaccard {float(found.jaccard):.3f} ({found.shared:,} shared of {found.union:,}); "
            f"containment {float(found.containment_a):.3f} and {float(found.containment_b):.3f}"
        )
    write("\n".join(lines), None)
    return 0


def _fragment_options(args: argparse.Namespace, stored: Any = None) -> Any:
    """The :class:`~samecode.fragments.options.FragmentOptions` the options ask for (over
    a corpus's ``stored`` ones, if given)."""
    from samecode.fragments.options import FragmentOptions

    given = {
        "k": args.kgram,
        "window": args.window,
        "min_tokens": getattr(args, "min_region", None),
        "gap": getattr(args, "gap", None),
        "boilerplate_share": getattr(args, "boilerplate_share", None),
        "keep_licenses": args.keep_licenses,
        "keep_imports": args.keep_imports,
    }
    chosen = {name: value for name, value in given.items() if value is not None}
    base = FragmentOptions() if stored is None else stored
    k = chosen.get("k", base.k)
    if not hasattr(args, "min_region"):  # index add: the parameters a corpus stores
        chosen["min_tokens"] = max(base.min_tokens, k)
    if chosen.get("min_tokens", base.min_tokens) < k:
        raise UsageError(
            f"--min-region must be at least --kgram ({k}): no match is shorter; "
            f"got {chosen.get('min_tokens', base.min_tokens)}"
        )
    if stored is not None:
        return dataclasses.replace(stored, **chosen)
    return FragmentOptions(
        tokens=option(args, "tokens"), normalize=option(args, "normalize"), **chosen
    )


def _boilerplate_files(args: argparse.Namespace, options: Any) -> Any:
    """The files ``--boilerplate`` names, read by ``options`` (``None`` if none)."""
    from samecode.fragments.boilerplate import BoilerplateFiles

    if not getattr(args, "boilerplate", None):
        return None
    _check_roots(args.boilerplate)
    return BoilerplateFiles.read(args.boilerplate, options)


def _boilerplate_parameter(files: Any) -> dict[str, str]:
    """What a fragments report's parameters state of the ``--boilerplate`` files: the
    digest of their k-grams, as ``boilerplate_digest`` (nothing without any), so that a
    baseline made with others is refused."""
    return {} if files is None else {"boilerplate_digest": files.digest()}


def run_scan_fragments(args: argparse.Namespace) -> int:
    """``samecode scan --fragments``: the regions the files share, and their classes."""
    from samecode.fragments.baseline import only_new, read_baseline
    from samecode.fragments.tree import scan_fragments
    from samecode.reports.fragments import FORMATS as FRAGMENT_FORMATS

    fmt = option(args, "format")
    if fmt not in FRAGMENT_FORMATS:
        raise UsageError(f"--fragments writes --format {', '.join(FRAGMENT_FORMATS)}; got {fmt}")
    if args.against:
        raise UsageError("--fragments does not match against a corpus (--against) yet")
    _check_roots(args.paths)
    options = _fragment_options(args)
    walk = _scan_options(args, _shingling(args))
    boilerplate = _boilerplate_files(args, options)
    parameters = {
        **options.to_dict(),
        "min_file_tokens": walk.min_tokens,
        "max_size": walk.max_size,
        **_boilerplate_parameter(boilerplate),
    }
    baseline = None if args.baseline is None else read_baseline(args.baseline, parameters)
    with Feedback(args.quiet) as feedback:
        result = scan_fragments(args.paths, options, walk, feedback, boilerplate)
    if baseline is not None:
        result = only_new(result, baseline)
    _write_fragments(result, parameters, args)
    feedback.summary(
        f"compared {files_text(len(result.files))}, {skipped_text(result.skipped)}; "
        f"{counted(len(result.regions), 'region')} in "
        f"{counted(len(result.classes), 'class', 'classes')}; ignored "
        f"{counted(result.boilerplate, 'boilerplate fingerprint')} (in more than "
        f"{files_text(result.boilerplate_limit)}) and "
        f"{counted(result.repetitive, 'repetitive one')}{_baseline_text(result)}"
    )
    return 1 if args.fail_on_match and result.regions else 0


def run_match_fragments(args: argparse.Namespace) -> int:
    """``samecode match --fragments``: which regions of the files match which stored
    files, and where."""
    from samecode.corpus.fragments import corpus_options, match_fragments, unshown_stored
    from samecode.corpus.store import no_fragments
    from samecode.fragments.baseline import only_new, read_baseline
    from samecode.reports.fragments import FORMATS as FRAGMENT_FORMATS
    from samecode.reports.fragments import ignored_text

    fmt = option(args, "format")
    if fmt not in FRAGMENT_FORMATS:
        raise UsageError(f"--fragments writes --format {', '.join(FRAGMENT_FORMATS)}; got {fmt}")
    _check_roots(args.paths)
    db = option(args, "db")
    with _open_corpus(db, True) as corpus:
        if corpus.fragments is None:
            raise UsageError(str(no_fragments(db, corpus.format_version)))
        # checked before any worker starts (a pool ended at once can hang on its start)
        options = corpus_options(corpus.fragments, _fragment_options(args, corpus.fragments))
        walk = _scan_options(args, _shingling(args, corpus.shingling))
        boilerplate = _boilerplate_files(args, options)
        parameters = {
            **options.to_dict(),
            "min_file_tokens": walk.min_tokens,
            "max_size": walk.max_size,
            **_boilerplate_parameter(boilerplate),
            **corpus_parameters(db, corpus),
        }
        baseline = None if args.baseline is None else read_baseline(args.baseline, parameters)
        with Feedback(args.quiet) as feedback, engine_for(walk.jobs) as engine:
            result = match_fragments(
                corpus,
                args.paths,
                options,
                walk,
                boilerplate=boilerplate,
                engine=engine,
                progress=feedback,
            )
        # the page shows a stored file's lines only while they are the ones stored
        unshown = unshown_stored(corpus, result) if fmt == "html" else {}
    if baseline is not None:
        result = only_new(result, baseline)
    _write_fragments(result, parameters, args, unshown)
    ignored = ignored_text(result)
    feedback.summary(
        f"matched {files_text(len(result.files))} against {db}, "
        f"{skipped_text(result.skipped)}; {counted(len(result.regions), 'region')} with "
        f"{files_text(len({r.b for r in result.regions}))} of the corpus; ignored "
        f"{counted(result.boilerplate, 'boilerplate fingerprint')} (in more than "
        f"{files_text(result.boilerplate_limit)} of the corpus) and "
        f"{counted(result.repetitive, 'repetitive one')}"
        f"{'; ' + ignored[0].lower() + ignored[1:] if ignored else ''}"
        f"{_baseline_text(result)}"
    )
    return 1 if args.fail_on_match and result.regions else 0


def _write_fragments(
    result: FragmentResult,
    parameters: dict[str, Any],
    args: argparse.Namespace,
    unshown: dict[str, str] | None = None,
) -> None:
    """Write a fragments result in the format asked for (SARIF's URIs and the HTML
    page's paths relative to the paths' common folder)."""
    from samecode.reports.fragments import jsonl_pieces, to_json, to_text
    from samecode.reports.sarif import common_root, to_sarif

    fmt = option(args, "format")
    if fmt == "jsonl":
        write(jsonl_pieces(result, parameters), args.output)
    elif fmt == "json":
        write(to_json(result, parameters), args.output)
    elif fmt == "sarif":
        write(to_sarif(result, common_root(args.paths)), args.output)
    elif fmt == "html":
        from samecode.reports.html import to_html

        page = to_html(result, parameters, root=common_root(args.paths), unshown=unshown)
        write(page, args.output)
    else:
        write(to_text(result), args.output)


def _baseline_text(result: FragmentResult) -> str:
    """What a baseline left out, for the summary line ('' without one)."""
    if result.baseline is None:
        return ""
    return (
        f"; {counted(result.baseline.old_classes, 'class', 'classes')} all in the "
        f"baseline left out, {counted(result.baseline.old_regions, 'old region')}"
    )


def run_compare_fragments(args: argparse.Namespace) -> int:
    """``samecode compare A B --fragments``: the regions two files share, with the text."""
    from samecode.fragments.tree import compare_fragments
    from samecode.reports.fragments import comparison_json, comparison_text

    options = _fragment_options(args)
    found = compare_fragments(
        args.first, args.second, options, boilerplate=_boilerplate_files(args, options)
    )
    write(comparison_json(found) if args.format == "json" else comparison_text(found), None)
    return 0


#: Each command's function, by name.
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "scan": run_scan,
    "match": run_match,
    "index": run_index,
    "fingerprint": run_fingerprint,
    "compare": run_compare,
}
