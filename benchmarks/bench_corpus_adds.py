"""A corpus grown by many small ``index add`` runs against one made by a single run: its
bytes, its posting blocks and its match time.

    python benchmarks/bench_corpus_adds.py --files 1000 --adds 50 --queries 200

The stored files are ``bench_scale.py``'s generated code; the queries are
``bench_corpus_fragments.py``'s (a run of a stored file planted among fresh lines). Both
corpora keep fragments. One is made by ``Corpus.sync`` of every file at once, the other
by ``--adds`` calls of ``Corpus.sync``, each of the next ``files / adds`` files (as that
many ``samecode index add`` runs would). Reported for each: its bytes (as left, and after
``VACUUM``), its posting blocks and pairs per block (format version 5), the seconds of
``Corpus.match`` (whole files) and ``match_fragments`` for the queries; the two corpora's
answers must be the same.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import time
from contextlib import closing
from pathlib import Path

from bench_corpus_fragments import queries
from bench_scale import generate
from bench_scan import CACHE
from samecode.corpus.fragments import match_fragments
from samecode.corpus.store import Corpus
from samecode.fragments import FragmentOptions
from samecode.scan.pipeline import read_documents
from samecode.sources.walk import WalkOptions
from samecode.text.shingling import Shingling


def blocks(path: Path) -> dict[str, object]:
    """The posting blocks of each table of blocks, and their pairs (none before v5)."""
    with closing(sqlite3.connect(path)) as db:
        names = [
            name
            for (name,) in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")
            if name.endswith("_blocks")
        ]
        found = {}
        for name in names:
            count, pairs = db.execute(f"SELECT count(*), sum(count) FROM {name}").fetchone()
            found[name] = {"blocks": count, "pairs_per_block": pairs / max(count, 1)}
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=1_000)
    parser.add_argument("--adds", type=int, default=50)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--seed", type=int, default=18)
    args = parser.parse_args()
    root = CACHE / f"scale-{args.files}-{args.seed}"
    generate(root, args.files, args.files // 10, args.seed)
    stored = sorted(str(path) for path in root.rglob("*.py"))
    work = CACHE / f"corpus-adds-{args.files}-{args.seed}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    walk = WalkOptions(gitignore=False)
    step = -(-len(stored) // args.adds)
    runs = {
        "one_run": [stored],
        "small_runs": [stored[i : i + step] for i in range(0, len(stored), step)],
    }
    planted = sorted(queries(work / "queries", [Path(p) for p in stored], args.queries, args.seed))
    report: dict[str, object] = {"files": len(stored), "small_runs": len(runs["small_runs"])}
    read_documents(planted, Shingling(), None, 1)  # the first corpus timed pays no cold start
    answers = []
    for name, parts in runs.items():
        path = work / f"{name}.db"
        started = time.perf_counter()
        for part in parts:
            with (
                Corpus.create(path, fragments=FragmentOptions())
                if not path.exists()
                else (Corpus.open(path)) as corpus
            ):
                corpus.sync(part, walk)
        indexing = time.perf_counter() - started
        size = os.path.getsize(path)
        with Corpus.open(path, readonly=True) as corpus:
            version = corpus.format_version
            started = time.perf_counter()
            documents = read_documents(planted, corpus.shingling, None, 1)
            pairs = corpus.match(documents)
            plain = time.perf_counter() - started
            started = time.perf_counter()
            regions = match_fragments(corpus, planted, walk=walk).regions
            fragments = time.perf_counter() - started
        answers.append((pairs, regions))
        layout = blocks(path)
        with closing(sqlite3.connect(path)) as db:
            db.execute("VACUUM")
        report[f"{name}_corpus"] = {
            "format_version": version,
            "index_seconds": indexing,
            "bytes_per_file": size / len(stored),
            "vacuumed_bytes_per_file": os.path.getsize(path) / len(stored),
            "blocks": layout,
            "match_seconds": plain,
            "match_fragments_seconds": fragments,
        }
    report["same_answers"] = answers[0] == answers[1]
    print(json.dumps(report, indent=2))
    return 0 if report["same_answers"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
