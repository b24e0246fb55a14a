"""Fragments of large files: two 3,600-line files and a 50,000-line file, time and memory.

    python benchmarks/bench_fragments_large.py [--seed 1]

The files are real code no one here wrote: Python 3.12's standard library (``.py`` files
of ``Lib/``, tests left out), concatenated in a seeded order until the line count is
reached. Each large file gets a near-copy: every 50th line deleted and a fresh line
inserted every 70 lines, so that the regions between the two are many and long.

Cases, each a fresh process (``samecode`` beside this interpreter), its wall time and
peak memory (``ru_maxrss`` of the process and its children):

* ``compare A B --fragments --format json`` of the two 3,600-line files;
* ``compare A B --fragments`` of the 50,000-line file and its near-copy;
* ``scan FOLDER --fragments`` of a folder holding the 50,000-line file alone (the regions
  repeated within it).

The table gives, besides, the tokens of the largest input and the peak memory per token,
which must stay about constant as the files grow (memory proportional to the input and
the output), and for the comparisons the share of the original's non-blank lines kept
in the copy that a region holds in both files where each is (``placed``: where each line
went is known from the edits). Not part of CI.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_pipeline import timed

SKIP = {"test", "tests", "idle_test", "site-packages", "__pycache__"}


def library_lines(version: str = "3.12") -> list[str]:
    """The lines of a Python's standard library ``.py`` files, tests left out."""
    home = subprocess.run(
        ["pyenv", "prefix", next(v for v in _versions() if v.startswith(version))],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    lib = Path(home) / "lib" / f"python{version}"
    files = []
    for folder, folders, names in os.walk(lib):
        folders[:] = sorted(f for f in folders if f not in SKIP)
        files += [Path(folder) / n for n in sorted(names) if n.endswith(".py")]
    return [str(path) for path in files]


def _versions() -> list[str]:
    found = subprocess.run(["pyenv", "versions", "--bare"], capture_output=True, text=True)
    return found.stdout.split()


def build(paths: list[str], lines: int, rng: random.Random) -> list[str]:
    """``lines`` lines of whole files, in a seeded order."""
    order = list(paths)
    rng.shuffle(order)
    out: list[str] = []
    for path in order:
        out += Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
        if len(out) >= lines:
            break
    return out[:lines]


def edited(lines: list[str]) -> list[str]:
    """Every 50th line deleted, a fresh line inserted every 70 lines."""
    out = []
    for number, line in enumerate(lines):
        if number % 50 == 49:
            continue
        if number % 70 == 69:
            out.append(f"inserted_{number} = {number} * 3  # an edit")
        out.append(line)
    return out


def new_places(lines: list[str]) -> dict[int, int]:
    """Where each line of ``lines`` (from 1) is in :func:`edited` ``(lines)``, for the
    non-blank lines it keeps."""
    places, line = {}, 0
    for number, text in enumerate(lines):
        if number % 50 == 49:
            continue
        line += 2 if number % 70 == 69 else 1
        if text.strip():
            places[number + 1] = line
    return places


def placed(regions: list[dict[str, int]], places: dict[int, int]) -> float:
    """The share of ``places`` (a line of ``a`` -> its line in ``b``) that a region holds
    in both files, where each is."""
    found = {
        line
        for r in regions
        for line in range(r["a_start"], r["a_end"] + 1)
        if line in places and r["b_start"] <= places[line] <= r["b_end"]
    }
    return len(found) / len(places)


def regions_of(path: Path) -> int:
    """The regions of a JSONL report."""
    lines = path.read_text().splitlines()
    return sum(json.loads(line).get("type") == "region" for line in lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    samecode = shutil.which("samecode", path=str(Path(sys.executable).parent))
    if samecode is None:
        raise SystemExit("samecode is not installed beside this interpreter")
    rng = random.Random(args.seed)
    paths = library_lines()
    rows = ["| case | lines | tokens | regions | placed | wall (s) | peak MB | bytes per token |",
            "|---|---|---|---|---|---|---|---|"]  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        cases = []
        for name, lines in (("3,600 lines", 3_600), ("50,000 lines", 50_000)):
            text = build(paths, lines, rng)
            a, b = root / f"a-{lines}.py", root / f"b-{lines}.py"
            a.write_text("\n".join(text) + "\n")
            b.write_text("\n".join(edited(text)) + "\n")
            compare = [samecode, "compare", str(a), str(b)]
            cases.append((f"compare, two files of {name}", lines, a, compare, new_places(text)))
        alone = root / "alone"
        alone.mkdir()
        shutil.copy(root / "a-50000.py", alone / "big.py")
        cases.append(("scan, one file of 50,000 lines", 50_000, alone / "big.py",
                      [samecode, "scan", str(alone), "--no-gitignore"], None))  # fmt: skip
        for name, lines, measured, command, places in cases:
            out = root / "out.json"
            if command[1] == "compare":  # its JSON on standard output
                shell = shlex.join([*command, "--fragments", "--format", "json"])
                run = timed(["sh", "-c", f"{shell} > {shlex.quote(str(out))}"])
                found = json.loads(out.read_text())["regions"]
                regions, share = len(found), f"{placed(found, places or {}):.4f}"
            else:
                run = timed([*command, "--fragments", "--format", "jsonl", "-q", "-o", str(out)])
                regions, share = regions_of(out), "-"
            tokens = _tokens(measured)
            per = run.rss * 1024 * 1024 / max(1, tokens)
            rows.append(f"| {name} | {lines:,} | {tokens:,} | {regions:,} | {share} | "
                        f"{run.wall:.2f} | {run.rss:.0f} | {per:.0f} |")  # fmt: skip
            print(rows[-1], file=sys.stderr)
    print("\n".join(rows))
    return 0


def _tokens(path: Path) -> int:
    from samecode.text.shingling import Shingling

    return len(Shingling().token_list(path.read_text(), str(path)))


if __name__ == "__main__":
    raise SystemExit(main())
