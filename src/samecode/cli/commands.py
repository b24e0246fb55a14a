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
from typing import TYPE_CHECKING, Any

from samecode.cli.output import (
    Feedback,
    emit,
    files_text,
    shown,
    skipped_text,
    write,
)
from samecode.cli.parser import (
    CORPUS_FIXED,
    PROFILE_OPTIONS,
    UsageError,
    apply_profile,
    option,
)
from samecode.corpus.match import MATCH_WALK
from samecode.corpus.store import FORMAT_VERSION, Corpus
from samecode.engine import RunOptions, engine_for
from samecode.errors import SamecodeValueError
from samecode.reports.fragments import (
    FRAGMENT_FORMATS,
    FragmentFormat,
    FragmentReport,
    fragment_parameters,
)
from samecode.reports.pairs import PAIR_FORMATS, Report, corpus_parameters, scan_parameters
from samecode.scan.model import Findings, Pair
from samecode.scan.pipeline import ScanOptions, scan
from samecode.sources.skipped import Skipped
from samecode.sources.walk import WalkOptions, discover, left_out_code
from samecode.text.display import counted
from samecode.text.shingling import Shingling

if TYPE_CHECKING:
    from samecode.fragments.result import FragmentResult
    from samecode.reports.format import Format, Formats

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


def _walk_options(args: argparse.Namespace, matching: bool = False) -> WalkOptions:
    """Which files the options ask for; for files ``matching`` a corpus, vendored folders
    are walked unless ``--default-excludes`` is given
    (:data:`~samecode.corpus.match.MATCH_WALK`)."""
    excludes = getattr(args, "default_excludes", None)
    if excludes is None:
        excludes = MATCH_WALK.default_excludes if matching else option(args, "default_excludes")
    return WalkOptions(
        include=tuple(option(args, "include")),
        exclude=tuple(option(args, "exclude")),
        gitignore=option(args, "gitignore"),
        default_excludes=excludes,
        follow_symlinks=option(args, "follow_symlinks"),
        max_size=option(args, "max_size") or None,  # 0: no limit
        min_tokens=option(args, "min_tokens"),
    )


def _run_options(args: argparse.Namespace) -> RunOptions:
    return RunOptions(jobs=option(args, "jobs"), batch_size=option(args, "batch_size"))


def _scan_options(
    args: argparse.Namespace, shingling: Shingling, matching: bool = False
) -> ScanOptions:
    return ScanOptions(
        threshold=option(args, "threshold"),
        measure="containment" if option(args, "containment") else "jaccard",
        method=option(args, "method"),
        num_perm=option(args, "num_perm"),
        lsh_threshold=option(args, "lsh_threshold"),
        shingling=shingling,
        chaining=option(args, "chaining"),
        walk=_walk_options(args, matching),
        run=_run_options(args),
    )


def _profile_parameters(args: argparse.Namespace) -> dict[str, Any]:
    """The profile a report's options come from and what it set (the options given or
    configured are not among these: they won)."""
    return {"profile": args.profile or "duplicates", "profile_set": args.profile_set}


def _take_corpus_profile(args: argparse.Namespace, corpus: Corpus) -> None:
    """Against an existing corpus: refuse a ``--profile`` other than the one it was made
    with; its own settings (:data:`~samecode.cli.parser.CORPUS_FIXED`) are the corpus's,
    whatever a profile says; without ``--profile``, the corpus's profile sets the rest.

    :raises UsageError: for another profile than the corpus's.
    """
    from samecode.corpus.settings import CorpusSettingsError

    recorded = corpus.settings.profile
    given = args.profile
    try:
        corpus.settings.check_given(profile=given)
    except CorpusSettingsError as refused:
        made = refused.stored if recorded else f"{refused.stored} (it names none)"
        raise UsageError(
            f"the corpus was made with --profile {made}; got --profile {given} (leave "
            "--profile out to use the corpus's; a profile is set when a corpus is made)"
        ) from None
    for group in list(args.profile_set):
        for field in list(args.profile_set[group]):
            attribute = PROFILE_OPTIONS[(group, field)]
            if attribute in CORPUS_FIXED:
                setattr(args, attribute, None)
                del args.profile_set[group][field]
        if not args.profile_set[group]:
            del args.profile_set[group]
    if given is None and recorded is not None:
        args.profile = recorded
        apply_profile(args, recorded, leave=CORPUS_FIXED)


def _check_roots(paths: Sequence[str]) -> None:
    """A path named on the command line must exist: a typo is a usage error."""
    for path in paths:
        if not os.path.lexists(path):
            raise UsageError(f"{shown(path)}: no such file or folder")


def _open_corpus(path: str, readonly: bool) -> Corpus:
    return Corpus.open(path, readonly=readonly)


def _spark_scan(args: argparse.Namespace) -> tuple[Findings, dict[str, Any]]:
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
    return found, {**scan_parameters(options), **_profile_parameters(args)}


def _scan_against(
    args: argparse.Namespace, feedback: Feedback
) -> tuple[Findings, dict[str, Any], list[Pair]]:
    from samecode.corpus.match import scan_against

    with _open_corpus(args.against, True) as corpus:
        _take_corpus_profile(args, corpus)
        options = _scan_options(args, _shingling(args, corpus.shingling), matching=True)
        parameters = {
            **scan_parameters(options),
            **_profile_parameters(args),
            **corpus_parameters(args.against, corpus),
        }
        result, matched = scan_against(corpus, args.paths, options, feedback)
    return result, parameters, matched


def _say_left_out(skipped: Sequence[Skipped]) -> None:
    """Say on stderr, even with ``-q``, which folders of other people's code the walk left
    out by default and how many files they hold: a scan's silence about them is no
    all-clear (:func:`~samecode.sources.walk.left_out_code`)."""
    left_out = left_out_code(skipped)
    if not left_out:
        return
    folders = ", ".join(f"{shown(path)} ({files_text(count)})" for path, count in left_out)
    print(
        f"samecode: left out {counted(len(left_out), 'folder')} of vendored or installed "
        f"code: {folders}; --no-default-excludes walks them",
        file=sys.stderr,
    )


def _pair_format(args: argparse.Namespace) -> Format[Report]:
    """The format of :data:`~samecode.reports.pairs.PAIR_FORMATS` ``--format`` names."""
    fmt = option(args, "format")
    if fmt not in PAIR_FORMATS and fmt in FRAGMENT_FORMATS:
        raise UsageError(f"--format {fmt} needs --fragments")
    return PAIR_FORMATS.lookup(fmt)


def _fragment_format(args: argparse.Namespace) -> FragmentFormat:
    """The format of :data:`~samecode.reports.fragments.FRAGMENT_FORMATS` ``--format``
    names."""
    fmt = option(args, "format")
    if fmt not in FRAGMENT_FORMATS:
        raise UsageError(f"--fragments writes --format {', '.join(FRAGMENT_FORMATS)}; got {fmt}")
    return FRAGMENT_FORMATS[fmt]


def _comparison_format(args: argparse.Namespace, formats: Formats[Format[Any]]) -> Format[Any]:
    """The format of ``formats`` (a comparison's) ``--format`` names; the first for any
    other name (the configuration's ``format`` is a scan's, which compare does not have)."""
    return formats.lookup(args.format if args.format in formats else next(iter(formats)))


def run_scan(args: argparse.Namespace) -> int:
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
    chosen = _pair_format(args)
    corpus_pairs: list[Pair] | None = None
    with Feedback(args.quiet) as feedback:
        if spark:
            found, parameters = _spark_scan(args)
        elif args.against:
            found, parameters, corpus_pairs = _scan_against(args, feedback)
        else:
            options = _scan_options(args, _shingling(args))
            found = scan(args.paths, options, feedback)
            parameters = {**scan_parameters(options), **_profile_parameters(args)}
    emit(chosen, Report.of(found, parameters, corpus_pairs or []), args.output)
    _say_left_out(found.skipped)
    matches = len(found.pairs) + len(corpus_pairs or [])
    extra = (
        f", {counted(len(corpus_pairs), 'corpus match', 'corpus matches')}"
        if corpus_pairs is not None
        else ""
    )
    feedback.summary(
        f"compared {files_text(found.compared)}, {skipped_text(found.skipped)}; "
        f"{counted(len(found.pairs), 'pair')} in "
        f"{counted(len(found.classes), 'class', 'classes')}{extra}"
    )
    return 1 if args.fail_on_match and matches else 0


def run_match(args: argparse.Namespace) -> int:
    from samecode.scan.pipeline import read_all

    if args.fragments:
        return run_match_fragments(args)
    if args.baseline:
        raise UsageError("--baseline needs --fragments")
    chosen = _pair_format(args)
    _check_roots(args.paths)
    db = option(args, "db")
    with _open_corpus(db, True) as corpus:
        _take_corpus_profile(args, corpus)
        options = _scan_options(args, _shingling(args, corpus.shingling), matching=True)
        parameters = {
            **scan_parameters(options),
            **_profile_parameters(args),
            **corpus_parameters(db, corpus),
        }
        with Feedback(args.quiet) as feedback:
            paths, walk_skipped = discover(args.paths, options.walk)
            with options.run.engine(len(paths)) as engine:
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
    emit(chosen, report, args.output)
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
    if args.action == "convert":
        return _index_convert(db, args.new)
    if args.action == "compact":
        with _open_corpus(db, False) as corpus:
            before, after = corpus.compact()
        print(f"samecode: {db} compacted: {before:,} bytes, now {after:,}", file=sys.stderr)
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


def _index_convert(db: str, new: str) -> int:
    with _open_corpus(db, True) as corpus:
        old = corpus.format_version
        try:
            count = corpus.convert(new)
        except FileExistsError:
            raise UsageError(f"{new} exists: name a new file") from None
        except SamecodeValueError as error:
            raise UsageError(str(error)) from None
    print(
        f"samecode: {db} (format version {old}): {files_text(count)} stored in {new} "
        f"(format version {FORMAT_VERSION})",
        file=sys.stderr,
    )
    return 0


def _index_add(args: argparse.Namespace, db: str) -> int:

    _check_roots(args.paths)
    corpus = None if os.path.exists(db) else _new_corpus(args, db)
    if corpus is None:
        corpus = Corpus.open(db)
        try:
            _take_corpus_profile(args, corpus)
        except UsageError:
            corpus.close()
            raise
        refusal = _corpus_refusal(args, corpus)
        if refusal:
            corpus.close()
            raise UsageError(f"{db} {refusal}")
    _shingling(args, corpus.shingling)  # refuses shingling options the corpus lacks
    walk, run = _walk_options(args), _run_options(args)
    with corpus, Feedback(args.quiet) as feedback, engine_for(run.jobs) as engine:
        report = corpus.sync(
            args.paths, walk, run=run, prune=args.prune, progress=feedback, engine=engine
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
        from samecode.corpus.settings import corpus_lsh

        lsh = corpus_lsh(
            lowest, num_perm=option(args, "num_perm"), threshold=option(args, "lsh_threshold")
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
        return Corpus.create(
            db, shingling, min_threshold=lowest, lsh=lsh, fragments=fragments, profile=args.profile
        )
    except FileExistsError:
        return None


def _sync_text(db: str, report: Any) -> str:
    removed = Counter(item.kind.value for item in report.removed)
    why = ", ".join(f"{count:,} {reason}" for reason, count in sorted(removed.items()))
    return (
        f"{db}: {len(report.added):,} added, {len(report.updated):,} updated, "
        f"{len(report.unchanged):,} unchanged, {len(report.removed):,} removed"
        f"{f' ({why})' if why else ''}, {skipped_text(report.skipped)}; "
        f"{files_text(report.held)} held"
    )


def _stored_fragment_flags(args: argparse.Namespace) -> list[str]:
    """The options of the fragments a corpus stores that were given."""
    names = ("kgram", "window", "keep_licenses", "keep_imports", "keep_msgids", "keep_msgid_copies")
    return [f"--{name.replace('_', '-')}" for name in names if getattr(args, name) is not None]


#: The flag of each setting a corpus fixes when it is made.
_FLAGS = {
    "k": "--kgram",
    "window": "--window",
    "keep_licenses": "--keep-licenses",
    "keep_imports": "--keep-imports",
    "keep_msgids": "--keep-msgids",
    "keep_msgid_copies": "--keep-msgid-copies",
    "num_perm": "--num-perm",
    "lsh_threshold": "--lsh-threshold",
}


def _corpus_refusal(args: argparse.Namespace, corpus: Corpus) -> str:
    """Why options given for a new corpus do not fit an existing one ("" if they do): the
    library's rule (:meth:`~samecode.corpus.settings.CorpusSettings.check_given`), said
    with the command's flags."""
    from samecode.corpus.settings import CorpusSettingsError

    flags = _stored_fragment_flags(args)
    given: dict[str, Any] = {}
    if corpus.fragments is not None:
        asked = _fragment_options(args, corpus.fragments)
        names = {flag: name for name, flag in _FLAGS.items()}
        given = {names[flag]: getattr(asked, names[flag]) for flag in flags}
    try:
        corpus.settings.check_given(
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
    """A :class:`~samecode.corpus.settings.CorpusSettingsError` said with the flags."""
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
    from samecode.scan.pipeline import read_documents
    from samecode.set_digests import DIGEST_KINDS, digest_hex

    _check_roots(args.paths)
    shingling = _shingling(args)
    walk = _walk_options(args)
    kinds = args.kind or [DIGEST_KINDS[0]]
    paths, skipped = discover(args.paths, walk)
    lines = [json.dumps({"path": s.path, "skipped": s.reason}, ensure_ascii=True) for s in skipped]
    for path in paths:
        (item,) = read_documents([path], shingling, walk.max_size, 1)
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
            record.update({kind: digest_hex(kind, item.shingles) for kind in kinds})
        lines.append(json.dumps(record, ensure_ascii=True))
    write("\n".join(lines), args.output)
    return 0


def run_compare(args: argparse.Namespace) -> int:
    from samecode.reports.comparison import COMPARISON_FORMATS
    from samecode.scan.comparison import compare_files

    if args.fragments:
        return run_compare_fragments(args)
    found = compare_files(args.first, args.second, _shingling(args))
    emit(_comparison_format(args, COMPARISON_FORMATS), found, None)
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
        "keep_msgids": args.keep_msgids,
        "keep_msgid_copies": args.keep_msgid_copies,
        "all_pairs": getattr(args, "all_pairs", None),
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


def run_scan_fragments(args: argparse.Namespace) -> int:
    """``samecode scan --fragments``: the regions the files share, and their classes."""
    from samecode.fragments.baseline import only_new, read_baseline
    from samecode.fragments.tree import scan_fragments

    chosen = _fragment_format(args)
    if args.against:
        raise UsageError("--fragments does not match against a corpus (--against) yet")
    _check_roots(args.paths)
    options = _fragment_options(args)
    walk, run = _walk_options(args), _run_options(args)
    boilerplate = _boilerplate_files(args, options)
    parameters = {**fragment_parameters(options, walk, boilerplate), **_profile_parameters(args)}
    baseline = None if args.baseline is None else read_baseline(args.baseline, parameters)
    with Feedback(args.quiet) as feedback:
        result = scan_fragments(args.paths, options, walk, feedback, boilerplate, run=run)
    if baseline is not None:
        result = only_new(result, baseline)
    emit(chosen, FragmentReport(result, parameters, args.paths), args.output)
    _say_left_out(result.skipped)
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
    from samecode.corpus.fragments import corpus_options, match_fragments
    from samecode.corpus.store import no_fragments
    from samecode.fragments.baseline import only_new, read_baseline
    from samecode.reports.fragments import ignored_text

    chosen = _fragment_format(args)
    _check_roots(args.paths)
    db = option(args, "db")
    with _open_corpus(db, True) as corpus:
        if corpus.fragments is None:
            raise UsageError(str(no_fragments(db, corpus.format_version)))
        _take_corpus_profile(args, corpus)
        # checked before any worker starts (a pool ended at once can hang on its start)
        options = corpus_options(corpus.fragments, _fragment_options(args, corpus.fragments))
        walk, run = _walk_options(args, matching=True), _run_options(args)
        boilerplate = _boilerplate_files(args, options)
        parameters = {
            **fragment_parameters(options, walk, boilerplate),
            **_profile_parameters(args),
            **corpus_parameters(db, corpus),
        }
        baseline = None if args.baseline is None else read_baseline(args.baseline, parameters)
        with Feedback(args.quiet) as feedback, engine_for(run.jobs) as engine:
            result = match_fragments(
                corpus,
                args.paths,
                options,
                walk,
                run=run,
                boilerplate=boilerplate,
                engine=engine,
                progress=feedback,
            )
        # asked of the whole result, before the baseline leaves some of it out
        texts, unshown = chosen.stored_views(corpus, result)
    if baseline is not None:
        result = only_new(result, baseline)
    emit(chosen, FragmentReport(result, parameters, args.paths, unshown, texts), args.output)
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
    from samecode.reports.fragments import FRAGMENT_COMPARISON_FORMATS

    options = _fragment_options(args)
    found = compare_fragments(
        args.first, args.second, options, boilerplate=_boilerplate_files(args, options)
    )
    emit(_comparison_format(args, FRAGMENT_COMPARISON_FORMATS), found, None)
    return 0


#: Each command's function, by name.
COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "scan": run_scan,
    "match": run_match,
    "index": run_index,
    "fingerprint": run_fingerprint,
    "compare": run_compare,
}
