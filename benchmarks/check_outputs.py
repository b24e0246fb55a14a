"""Check that two builds of samecode write the same output, byte for byte, on real trees.

    python benchmarks/check_outputs.py --before /tmp/base/src --after src \\
        [--trees stdlib311 django42 ...] [--work .bench-cache/check-outputs] [--jobs 2]

``--before`` and ``--after`` are the ``src/`` folders of two checkouts; every command is a
fresh process, ``python -m samecode ...`` of the current interpreter with ``PYTHONPATH`` set
to one of them, run in its side's folder ``WORK/{before,after}/TREE`` (paths to the trees
are absolute; the corpora are ``files.db`` and ``fragments.db`` there). The trees are the
standard libraries of the CPython 3.10-3.13 of pyenv (``lib/python3.X``, with
``site-packages/``, ``test/``, ``tests/`` and ``idle_test/`` excluded) and the sdists of
Django 4.2.16 and 5.0.9 (downloaded once into ``.bench-cache/django/``; ``locale/`` and
``tests/`` excluded). For each:

* ``scan --format jsonl`` and ``scan --fragments --format jsonl``;
* ``compare A B`` as text and ``--format json``, with and without ``--fragments``, for the
  first pair of the before build's scan with at least 100 shared shingles and a Jaccard
  below 1 (else its first pair);
* ``index add`` of about half the files (the tree's sorted top-level entries up to half of
  its files) into a fresh corpus, ``index stats``, the corpus's SQL dump (``iterdump``) and
  ``match --format jsonl`` of the other entries; the same with ``--fragments`` everywhere.

Every command gets ``-q``, ``--jobs`` and ``--no-gitignore`` where it takes them (the
Django trees lie in an ignored folder). The outputs are saved as
``WORK/{before,after}/TREE/COMMAND`` and compared line by line after two substitutions
only: the side's work folder becomes ``<WORK>`` (none is written today: the corpus path
of ``index stats`` is the relative one given), and the number of a JSON key naming a time
(``elapsed``, ``seconds``, ...) becomes ``<TIME>`` (the machine formats hold none today).
The exit status must be the same too. The table gives each output's bytes, whether it is
identical and the seconds each build took; the exit status is 1 if anything differs, with
the first differing line of each.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from itertools import zip_longest
from pathlib import Path

from _process import run_samecode
from bench_pipeline import django_tree

STDLIB = {"stdlib310": "3.10", "stdlib311": "3.11", "stdlib312": "3.12", "stdlib313": "3.13"}
DJANGO = {"django42": "4.2.16", "django50": "5.0.9"}
TREES = (*STDLIB, *DJANGO)
SIDES = ("before", "after")
#: Folders left out of the standard libraries (the tests would triple the time).
STDLIB_SKIP = ("site-packages", "test", "tests", "idle_test")
#: A JSON key naming a time, and its number: the only field normalised.
TIMING = re.compile(
    rb'("(?:[a-z_]*_)?(?:elapsed|seconds|secs|duration|wall)(?:_[a-z_]*)?": )-?[0-9][0-9.eE+-]*'
)


class Outcome:
    """One output of both builds: its size, whether it matched, and the seconds taken."""

    def __init__(self, tree: str, name: str) -> None:
        self.tree, self.name = tree, name
        self.size = 0
        self.seconds: dict[str, float] = {}
        self.status: dict[str, int] = {}
        self.difference = ""


def find_tree(name: str) -> tuple[Path, list[str]] | None:
    """The tree's folder and its ``--exclude`` patterns, or None if it is not here."""
    if name in DJANGO:
        # Its translation catalogues (the same msgids in some 100 files) and its tests
        # take fragments an hour a build; their code is what the layers moved.
        return django_tree(DJANGO[name]), ["locale/", "tests/"]
    minor = STDLIB[name]
    root = os.environ.get("PYENV_ROOT", "")
    if not root and shutil.which("pyenv"):
        shown = subprocess.run(["pyenv", "root"], capture_output=True, text=True, check=False)
        root = shown.stdout.strip()
    versions = sorted(Path(root or Path.home() / ".pyenv").glob(f"versions/{minor}.*"))
    library = versions[-1] / "lib" / f"python{minor}" if versions else None
    if library is None or not library.is_dir():
        return None
    return library, [f"{folder}/" for folder in STDLIB_SKIP]


def halves(tree: Path, excludes: list[str]) -> tuple[list[str], list[str]]:
    """The tree's sorted top-level entries, split after the one that reaches half of its
    files (the rest is never empty)."""
    skip = {pattern.rstrip("/") for pattern in excludes} | {"__pycache__"}
    entries = [e for e in sorted(tree.iterdir()) if e.name not in skip]
    counts = [sum(1 for f in e.rglob("*") if f.is_file()) if e.is_dir() else 1 for e in entries]
    cut, total = 0, 0
    while cut < len(entries) - 1 and total < sum(counts) / 2:
        total += counts[cut]
        cut += 1
    return [str(e) for e in entries[:cut]], [str(e) for e in entries[cut:]]


def near_copies(report: Path) -> list[str]:
    """The two files ``compare`` looks at: a pair of the scan's JSONL (see the module)."""
    pairs = [r for r in map(json.loads, report.open(encoding="utf-8")) if r["type"] == "pair"]
    chosen = [p for p in pairs if p["shared"] >= 100 and p["jaccard"] < 1] or pairs
    return [chosen[0]["a"], chosen[0]["b"]] if chosen else []


def run(src: Path, argv: list[str], output: Path) -> tuple[float, int]:
    """Run ``python -m samecode ARGV`` of ``src`` in the folder of ``output``, its standard
    output written there: the exit status and the seconds taken."""
    status, seconds, said = run_samecode(src, argv, output.parent, output)
    if status not in (0, 1):
        last = said.strip().splitlines()
        print(f"  [{' '.join(argv[:2])} of {src}: status {status}: {last[-1:]}]")
    return seconds, status


def dump(database: Path, output: Path) -> tuple[float, int]:
    """Write a corpus's SQL dump (``sqlite3``'s ``iterdump``) to ``output``."""
    started = time.perf_counter()
    connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    try:
        with output.open("w", encoding="utf-8", errors="surrogateescape") as out:
            out.writelines(line + "\n" for line in connection.iterdump())
    finally:
        connection.close()
    return time.perf_counter() - started, 0


def normalised(path: Path, work: Path) -> Iterator[bytes]:
    """The lines of an output with the work folder and the times replaced."""
    prefix = str(work).encode()
    with path.open("rb") as lines:
        for line in lines:
            yield TIMING.sub(rb"\1<TIME>", line.replace(prefix, b"<WORK>"))


def first_difference(before: Iterator[bytes], after: Iterator[bytes]) -> str:
    """The first line that differs, both sides from a little before their first differing
    byte, or "" if none."""
    for number, (old, new) in enumerate(zip_longest(before, after), 1):
        if old != new:
            old_, new_ = old or b"", new or b""
            differing = (i for i, (x, y) in enumerate(zip(old_, new_)) if x != y)
            start = max(0, next(differing, min(len(old_), len(new_))) - 60)
            shown = [
                repr(x[start : start + 200]) if x is not None else "(none)" for x in (old, new)
            ]
            return f"line {number}:\n    before {shown[0]}\n    after  {shown[1]}"
    return ""


def check_tree(name: str, args: argparse.Namespace, work: Path) -> list[Outcome]:
    found = find_tree(name)
    if found is None:
        print(f"[{name}: not installed here, skipped]", file=sys.stderr)
        return []
    tree, excludes = found
    folders = {side: work / side / name for side in SIDES}
    for folder in folders.values():
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
    walk = ["-q", "--jobs", str(args.jobs), "--no-gitignore"]
    walk += [f"--exclude={pattern}" for pattern in excludes]
    first, second = halves(tree, excludes)
    outcomes: list[Outcome] = []

    def step(output: str, argv: list[str], db: str = "") -> None:
        print(f"[{name}: {output}]", file=sys.stderr)
        outcome = Outcome(name, output)
        for side in SIDES:
            src, folder = getattr(args, side), folders[side]
            if db:
                outcome.seconds[side], outcome.status[side] = dump(folder / db, folder / output)
            else:
                outcome.seconds[side], outcome.status[side] = run(src, argv, folder / output)
        paths = {side: folders[side] / output for side in SIDES}
        outcome.size = paths["before"].stat().st_size
        outcome.difference = first_difference(
            *(normalised(paths[side], work / side) for side in SIDES)
        )
        if outcome.status["before"] != outcome.status["after"]:
            outcome.difference = f"status {outcome.status}; {outcome.difference}"
        elif max(outcome.status.values()) > 1:
            outcome.difference = f"failed with status {outcome.status['before']}"
        outcomes.append(outcome)

    step("scan.jsonl", ["scan", str(tree), "--format", "jsonl", *walk])
    step("scan-fragments.jsonl", ["scan", str(tree), "--fragments", "--format", "jsonl", *walk])
    pair = near_copies(folders["before"] / "scan.jsonl")
    if pair:
        for fragments in ([], ["--fragments"]):
            stem = "compare" + "-fragments" * bool(fragments)
            step(f"{stem}.txt", ["compare", *pair, *fragments])
            step(f"{stem}.json", ["compare", *pair, *fragments, "--format", "json"])
    for fragments in ([], ["--fragments"]):
        stem = "fragments" if fragments else "files"
        db = f"{stem}.db"
        step(f"index-add-{stem}.txt", ["index", "add", *first, "--db", db, *fragments, *walk])
        step(f"index-stats-{stem}.json", ["index", "stats", "--db", db])
        step(f"{db}.sql", [], db=db)
        match = ["match", *second, "--db", db, *fragments, "--format", "jsonl", *walk]
        step(f"match-{stem}.jsonl", match)
    return outcomes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="src/ of the old build")
    parser.add_argument("--after", type=Path, required=True, help="src/ of the new build")
    parser.add_argument("--trees", nargs="+", choices=TREES, default=list(TREES))
    parser.add_argument("--work", type=Path, default=Path(".bench-cache/check-outputs"))
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    args.before, args.after = args.before.resolve(), args.after.resolve()
    for side in SIDES:
        if not (getattr(args, side) / "samecode" / "__main__.py").is_file():
            parser.error(f"--{side} {getattr(args, side)} holds no samecode package")
    work = args.work.resolve()
    outcomes = [o for name in args.trees for o in check_tree(name, args, work)]

    print(f"\n{'tree':<10} {'output':<28} {'bytes':>12} {'same':<5} {'before s':>9} {'after s':>9}")
    for o in outcomes:
        same = "no" if o.difference else "yes"
        before, after = o.seconds["before"], o.seconds["after"]
        print(f"{o.tree:<10} {o.name:<28} {o.size:>12,} {same:<5} {before:>9.2f} {after:>9.2f}")
    differing = [o for o in outcomes if o.difference]
    for o in differing:
        print(f"\n{o.tree}/{o.name} differs, {o.difference}")
    print(f"\n{len(outcomes) - len(differing)} of {len(outcomes)} outputs identical; in {work}")
    return 1 if differing or not outcomes else 0


if __name__ == "__main__":
    sys.exit(main())
