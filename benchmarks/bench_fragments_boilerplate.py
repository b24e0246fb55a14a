"""A large ``--boilerplate`` file with many small files, on one and on two workers.

    python benchmarks/bench_fragments_boilerplate.py [--src before=/path/to/old/src]
        [--src after=src] [--files 2000] [--size 1000000] [--repeat 1] [--wait-idle 120]

Generated, seeded: a boilerplate file of about ``--size`` bytes of short code lines (its
k-gram hashes are some half a million: a few megabytes pickled), and ``--files`` small
``.py`` files, each with lines of its own, in some a run of lines copied from the
boilerplate file (masked) and in some a block shared with other files (regions). Each
``--src NAME=FOLDER`` is a ``src`` folder of this project, run as ``python -m samecode``
with ``PYTHONPATH=FOLDER`` by this interpreter (which has the dependencies). Cases, each
a fresh process, the builds interleaved in each repeat:

* ``scan-jN``: ``samecode scan FOLDER --fragments --boilerplate FILE --jobs N``;
* ``match-jN``: ``samecode match FOLDER --db DB --fragments --boilerplate FILE --jobs N``
  against a corpus of the same files (``index add --fragments``, made once by the first
  build, not timed).

The table gives each case's median wall time, CPU time (the process and its workers)
and peak memory, and checks that every case's JSONL report (timings left out) is the
same for every build and number of jobs. Not part of CI.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from pathlib import Path

from bench_pipeline import Run, stable_digest, timed, wait_idle

HERE = Path(__file__).resolve().parent


def code_lines(rng: random.Random, tag: str, count: int) -> list[str]:
    """Short lines of code (two or three bytes a token)."""
    names = [f"{tag}{n}" for n in range(40)]
    return [
        f"{rng.choice(names)} = {rng.choice(names)}[{rng.randrange(99)}] + "
        f"{rng.choice(names)} * {rng.randrange(9)} - {rng.choice(names)}({rng.randrange(9)})"
        for _ in range(count)
    ]


def make_inputs(root: Path, files: int, size: int, seed: int) -> tuple[Path, Path]:
    """The boilerplate file and the folder of small files."""
    rng = random.Random(seed)
    boilerplate: list[str] = []
    while sum(map(len, boilerplate)) + len(boilerplate) < size:
        boilerplate += code_lines(rng, "b", 1000)
    template = root / "boilerplate.py"
    template.write_text("\n".join(boilerplate) + "\n")
    blocks = [code_lines(rng, f"s{n}_", 12) for n in range(40)]
    tree = root / "tree"
    tree.mkdir()
    for number in range(files):
        lines = code_lines(rng, f"f{number}_", rng.randrange(5, 30))
        if rng.random() < 0.5:
            at = rng.randrange(len(boilerplate) - 15)
            lines += boilerplate[at : at + rng.randrange(5, 15)]
        if rng.random() < 0.3:
            lines += rng.choice(blocks)
        lines += code_lines(rng, f"g{number}_", rng.randrange(0, 10))
        (tree / f"f{number:05d}.py").write_text("\n".join(lines) + "\n")
    return template, tree


def samecode(src: str, *arguments: str) -> list[str]:
    return ["env", f"PYTHONPATH={src}", sys.executable, "-m", "samecode", *arguments]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--src", action="append", metavar="NAME=FOLDER", default=[])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--wait-idle", type=float, default=120.0)
    args = parser.parse_args()
    builds = dict(given.split("=", 1) for given in args.src or [f"after={HERE.parent / 'src'}"])
    builds = {name: str(Path(folder).resolve()) for name, folder in builds.items()}
    runs: dict[tuple[str, str], list[Run]] = {}
    digests: dict[str, set[str]] = {}
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        template, tree = make_inputs(root, args.files, args.size, args.seed)
        sys.path.insert(0, builds[next(iter(builds))])
        from samecode.fragments import FragmentOptions
        from samecode.fragments.boilerplate import BoilerplateFiles

        hashes = len(BoilerplateFiles.read([template], FragmentOptions()).hashes)
        print(f"boilerplate file: {template.stat().st_size:,} bytes, {hashes:,} k-gram hashes; "
              f"{args.files:,} files", file=sys.stderr)  # fmt: skip
        db = root / "corpus.db"  # one corpus: the report names it
        timed(samecode(builds[next(iter(builds))], "index", "add", str(tree), "--db", str(db),
                       "--fragments", "--no-gitignore", "-q"))  # fmt: skip
        for _ in range(args.repeat):
            for jobs in args.jobs:
                for command in ("scan", "match"):
                    case = f"{command}-j{jobs}"
                    for name, src in builds.items():
                        out = root / "out.jsonl"
                        where = [] if command == "scan" else ["--db", str(db)]
                        wait_idle(args.wait_idle)
                        run = timed(samecode(src, command, str(tree), *where, "--fragments",
                                             "--boilerplate", str(template), "--jobs", str(jobs),
                                             "--no-gitignore", "--format", "jsonl", "-q",
                                             "-o", str(out)))  # fmt: skip
                        runs.setdefault((case, name), []).append(run)
                        digests.setdefault(command, set()).add(stable_digest(out, set()))
                        print(f"{case} {name}: {run.wall:.2f} s", file=sys.stderr)
    rows = ["| case | " + " | ".join(builds) + " |", "|---" * (len(builds) + 1) + "|"]
    for case in dict.fromkeys(case for case, _ in runs):
        cells = []
        for name in builds:
            done = runs[case, name]
            wall = statistics.median(r.wall for r in done)
            cpu = statistics.median(r.cpu for r in done)
            rss = statistics.median(r.rss for r in done)
            cells.append(f"{wall:.2f} s ({cpu:.2f} s CPU, {rss:.0f} MB)")
        rows.append(f"| {case} | " + " | ".join(cells) + " |")
    print("\n".join(rows))
    same = all(len(found) == 1 for found in digests.values())
    print("JSONL the same for every build and --jobs:", "yes" if same else "NO")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
