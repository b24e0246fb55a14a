"""Fragments in a corpus: the bytes each stored file costs, and query files matched per
second against it (``samecode match --fragments``).

    python benchmarks/bench_corpus_fragments.py --files 10000 --queries 1000 --jobs 1
        [--stored DIR] [--steps N] [--compact] [--no-plain]

With ``--steps N`` the files are stored in ``N`` syncs (the tree's top folders split in
order, as a corpus grows), and with ``--compact`` each corpus is compacted once built
(``samecode index compact``: its bytes before and after, and the time) and matched
compacted.

The stored files are ``bench_scale.py``'s generated code (80 to 220 lines over a Zipf
vocabulary; kept under ``.bench-cache/``). Each query file is fresh generated lines with a
run of 20 to 60 consecutive lines of one stored file planted in it. The corpus is built
with fragments (``Corpus.sync`` on ``--jobs`` processes) and, unless ``--no-plain``,
once more without them, for the bytes fragments add per file (each size against the
text's bytes per file, and files indexed per second); then the queries are matched
(``match_fragments``, and, against the corpus without fragments, ``Corpus.match``: query
files per second), and each planted run must come
back as a region between its query and its stored file, within one line at each end in
both files.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import time
from pathlib import Path

from bench_scale import generate
from bench_scan import CACHE
from samecode.corpus.fragments import match_fragments
from samecode.corpus.store import Corpus
from samecode.engine import engine_for
from samecode.fragments import FragmentOptions
from samecode.scan.pipeline import read_documents
from samecode.sources.walk import WalkOptions


def queries(root: Path, stored: list[Path], count: int, seed: int) -> dict[str, tuple]:
    """Write the query files; return, for each, the planted run: its lines in the query,
    the stored file, its lines there."""
    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    planted = {}
    texts = {}  # of the stored files of at least 20 lines (their bytes kept as they are)
    for path in stored:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
        if text.count("\n") >= 20:
            texts[path] = text
    sources = sorted(texts)
    for number in range(count):
        source = rng.choice(sources)
        lines = texts[source].split("\n")
        size = rng.randint(20, min(60, len(lines)))
        start = rng.randrange(len(lines) - size + 1)
        before = [f"q{number}_{i} = fresh_{rng.getrandbits(30):x}({i})" for i in
                  range(rng.randint(5, 40))]  # fmt: skip
        after = [f"q{number}_end{i} = other_{rng.getrandbits(30):x}()" for i in range(20)]
        path = root / f"q{number:05}.py"
        path.write_text(
            "\n".join(before + lines[start : start + size] + after),
            encoding="utf-8",
            errors="surrogateescape",
        )
        planted[str(path)] = (
            len(before) + 1,
            len(before) + size,
            os.path.realpath(source),
            start + 1,
            start + size,
        )
    return planted


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=1_000)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument(
        "--stored",
        metavar="DIR",
        help="store the files under DIR (e.g. 2,000 of the standard libraries' .py files) "
        "instead of generated ones",
    )
    parser.add_argument(
        "--steps",
        type=int,
        default=1,
        help="store the files in this many syncs (the tree's top folders split in order), "
        "as a corpus grows",
    )
    parser.add_argument(
        "--compact",
        action="store_true",
        help="compact each corpus once built (samecode index compact) and match against it",
    )
    parser.add_argument(
        "--no-plain",
        action="store_true",
        help="build only the corpus with fragments (not the one without, for its bytes)",
    )
    args = parser.parse_args()
    if args.stored:
        root = Path(args.stored).resolve()
        stored = sorted(path for path in root.rglob("*") if path.is_file())
    else:
        root = CACHE / f"scale-{args.files}-{args.seed}"
        generate(root, args.files, args.files // 10, args.seed)
        stored = sorted(root.rglob("*.py"))
    text_bytes = sum(path.stat().st_size for path in stored)
    work = CACHE / f"fragcorpus-{root.name}-{args.files}-{args.seed}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    walk = WalkOptions(gitignore=False)
    sizes, seconds, compacted = {}, {}, {}
    builds = [("fragments", FragmentOptions())]
    if not args.no_plain:
        builds.append(("plain", None))
    tops = sorted(str(path) for path in root.iterdir())
    steps = [tops[n * len(tops) // args.steps : (n + 1) * len(tops) // args.steps]
             for n in range(args.steps)]  # fmt: skip
    for name, fragments in builds:
        started = time.perf_counter()
        with (
            engine_for(args.jobs) as engine,
            Corpus.create(work / f"{name}.db", fragments=fragments) as corpus,
        ):
            for paths in steps:
                corpus.sync(paths, walk, engine=engine)
            built = corpus.stats()
        seconds[name] = time.perf_counter() - started
        sizes[name] = os.path.getsize(work / f"{name}.db")
        if args.compact:
            started = time.perf_counter()
            with Corpus.open(work / f"{name}.db") as corpus:
                before, after = corpus.compact()
            compacted[name] = {
                "seconds": time.perf_counter() - started,
                "bytes_per_file_before": before / len(stored),
                "bytes_per_file_after": after / len(stored),
            }
        if name == "fragments":
            stats = built
    planted = queries(work / "queries", stored, args.queries, args.seed)
    with Corpus.open(work / "fragments.db", readonly=True) as corpus:
        started = time.perf_counter()
        with engine_for(args.jobs) as engine:
            result = match_fragments(corpus, sorted(planted), walk=walk, engine=engine)
        matching = time.perf_counter() - started
    plain_matching = None
    if not args.no_plain:  # whole-file matches (Jaccard >= 0.8) of the same queries
        with Corpus.open(work / "plain.db", readonly=True) as corpus:
            started = time.perf_counter()
            documents = read_documents(sorted(planted), corpus.shingling, None, 1)
            with engine_for(args.jobs) as engine:
                corpus.match(documents, engine=engine)
            plain_matching = time.perf_counter() - started
    found = 0
    for query, (q_start, q_end, source, s_start, s_end) in planted.items():
        if any(
            r.a == query
            and r.b == source
            and abs(r.a_start - q_start) <= 1
            and abs(r.a_end - q_end) <= 1
            and abs(r.b_start - s_start) <= 1
            and abs(r.b_end - s_end) <= 1
            for r in result.regions
        ):
            found += 1
    report: dict[str, object] = {
        "files": len(stored),
        "text_bytes_per_file": text_bytes / len(stored),
        "with_fragments_bytes_per_file": sizes["fragments"] / len(stored),
        "fragment_record_bytes_per_file": stats["fragment_record_bytes"] / len(stored),
        "fragment_index_rows_per_file": stats["fragment_index_rows"] / len(stored),
        "index_seconds": seconds,
        "index_files_per_second": {name: len(stored) / s for name, s in seconds.items()},
        "format_version": stats["format_version"],
        "steps": args.steps,
        "pending_postings_when_built": {
            key: stats[key] for key in ("prefix_pending", "fragment_pending") if key in stats
        },
        "compacted": compacted,
        "queries": len(planted),
        "match_seconds": matching,
        "queries_per_second": len(planted) / matching,
        "regions": len(result.regions),
        "planted_found_within_one_line": found / len(planted),
        "boilerplate_fingerprints": result.boilerplate,
        "jobs": args.jobs,
        "peak_rss_mib": {
            who: resource.getrusage(flag).ru_maxrss / 1024
            for who, flag in (
                ("this_process", resource.RUSAGE_SELF),
                ("largest_worker", resource.RUSAGE_CHILDREN),
            )
        },
    }
    if "plain" in sizes:
        report["plain_match_queries_per_second"] = len(planted) / (plain_matching or 1)
        report["corpus_bytes_per_file"] = sizes["plain"] / len(stored)
        report["fragments_bytes_per_file"] = (sizes["fragments"] - sizes["plain"]) / len(stored)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
