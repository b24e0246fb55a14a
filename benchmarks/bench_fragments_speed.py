"""``samecode scan --fragments`` beside jscpd 5 on the same trees: wall time and peak memory.

    python benchmarks/bench_fragments_speed.py [--repeat 3] [--trees stdlib django]
        [--wait-idle 120]

Trees (each a folder of ``.py`` files, made once under ``.bench-cache/fragments-speed/``):

* ``stdlib``: the ``.py`` files of this Python's standard library (``Lib/``), test
  folders (``test``, ``tests``, ``idle_test``) and ``site-packages`` left out;
* ``django``: the ``.py`` files of the sdists of Django 4.2.16 and 5.0.9 side by side
  (two versions: most of one is a near-copy of the other).

Tools, each a fresh process, interleaved within each repeat:

* ``samecode scan TREE --fragments --format jsonl --jobs 1`` and ``--jobs 2`` (the
  ``samecode`` of the interpreter running this script), defaults otherwise (regions of 40
  tokens, ``--gap`` 20, licence headers and imports ignored);
* jscpd 5.4.2 (its PyPI wheel, in a virtual environment of its own) as the quality
  benchmark runs it: ``-k 40 --max-gap-lines 2 -f python -r json`` (clones of 40 tokens,
  near-miss clones across two lines).

samecode's modules are byte-compiled first (:mod:`compileall`), as an installed
package's are: without their ``.pyc`` files (``PYTHONDONTWRITEBYTECODE`` is set on some
machines) each run would compile them again as it starts, some 0.12 s.

Before each run the benchmark waits up to ``--wait-idle`` seconds for the machine to be
idle. The table gives the median wall time and peak memory (``ru_maxrss`` of the
process and its children: the largest one, so memory forked workers share is counted
once) and the ratios the issue names: ``--jobs 2`` against jscpd (time and memory) and
``--jobs 1`` against ``--jobs 2``; and the floor (:func:`floor`): the seconds reading,
tokenizing and hashing every token take in one process, before any winnowing or
matching. Not part of CI.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import samecode
from bench_fragments_quality import JSCPD
from bench_pipeline import CACHE, Run, django_tree, timed, wait_idle
from samecode.fragments import FragmentOptions
from samecode.text.shingling import kgram_hashes, token_ids

from _refenv import peer_python

HERE = CACHE / "fragments-speed"
SKIP = {"test", "tests", "idle_test", "site-packages", "__pycache__"}


def python_files(source: Path, target: Path) -> Path:
    """Copy the ``.py`` files under ``source`` (folders in :data:`SKIP` left out) to
    ``target``, once; return ``target``."""
    marker = target / ".complete"
    if marker.exists():
        return target
    shutil.rmtree(target, ignore_errors=True)
    for folder, folders, files in os.walk(source):
        folders[:] = sorted(f for f in folders if f not in SKIP)
        for name in sorted(files):
            if name.endswith(".py"):
                path = Path(folder) / name
                copy = target / path.relative_to(source)
                copy.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, copy)
    marker.write_text("")
    return target


def trees(names: list[str]) -> dict[str, Path]:
    made = {}
    if "stdlib" in names:
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        lib = Path(sysconfig.get_paths()["stdlib"])
        made[f"stdlib {version}"] = python_files(lib, HERE / f"stdlib-{version}")
    if "django" in names:
        both = HERE / "django"
        for version in ("4.2.16", "5.0.9"):
            python_files(django_tree(version), both / version)
        made["django 4.2.16 + 5.0.9"] = both
    return made


def commands(tree: Path, out: Path) -> dict[str, list[str]]:
    samecode = shutil.which("samecode", path=str(Path(sys.executable).parent))
    if samecode is None:
        raise SystemExit("samecode is not installed beside this interpreter")
    ours = [samecode, "scan", str(tree), "--fragments", "--format", "jsonl", "-q"]
    ours += ["--no-gitignore", "--output", str(out / "samecode.jsonl")]
    jscpd = str(peer_python("jscpd", JSCPD).parent / "jscpd")
    theirs = [jscpd, str(tree), "-k", "40", "--max-gap-lines", "2", "-f", "python", "-r"]
    return {
        "samecode --jobs 1": [*ours, "--jobs", "1"],
        "samecode --jobs 2": [*ours, "--jobs", "2"],
        "jscpd": [*theirs, "json", "-o", str(out / "jscpd")],
    }


def floor(tree: Path) -> float:
    """Seconds this process takes to do the work every token needs before any matching:
    read each file, tokenize it as ``scan --fragments`` does (words), and hash its token
    ids and k-grams (all of it in C, no winnowing, no comparing): the least any design
    that fingerprints every token in this interpreter can take, in one process."""
    options = FragmentOptions()
    started = time.perf_counter()
    for path in sorted(tree.rglob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        kgram_hashes(token_ids(options.shingling.token_list(text, str(path))), options.k)
    return time.perf_counter() - started


def arguments(doc: str) -> argparse.Namespace:
    """The command line of this benchmark and of those run on its trees (``doc``: the
    script's description), once samecode's modules are byte-compiled."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--trees", nargs="+", choices=["stdlib", "django"],
                        default=["stdlib", "django"])  # fmt: skip
    parser.add_argument("--wait-idle", type=float, default=120.0)
    args = parser.parse_args()
    compileall.compile_dir(Path(samecode.__file__).parent, quiet=1)
    return args


def save(report: str, name: str) -> None:
    """Print ``report`` and keep it as ``name`` beside the trees."""
    print(report)
    HERE.mkdir(parents=True, exist_ok=True)
    (HERE / name).write_text(report + "\n")


def main() -> int:
    args = arguments(__doc__)
    lines = [
        "| tree | files | tool | median wall (s) | peak MB |",
        "|---|---|---|---|---|",
    ]
    ratios = []
    for name, tree in trees(args.trees).items():
        files = sum(1 for _ in tree.rglob("*.py"))
        runs: dict[str, list[Run]] = {}
        with tempfile.TemporaryDirectory() as out:
            tools = commands(tree, Path(out))
            for number in range(args.repeat):
                print(f"[{name}: repeat {number + 1} of {args.repeat}]", file=sys.stderr)
                for tool, command in tools.items():
                    wait_idle(args.wait_idle)
                    run = timed(command)
                    runs.setdefault(tool, []).append(run)
                    print(f"  {tool:20} {run.wall:7.2f} s {run.rss:7.0f} MB", file=sys.stderr)
        least = statistics.median(floor(tree) for _ in range(args.repeat))
        wall = {tool: statistics.median(r.wall for r in got) for tool, got in runs.items()}
        rss = {tool: statistics.median(r.rss for r in got) for tool, got in runs.items()}
        for tool in runs:
            lines.append(f"| {name} | {files} | {tool} | {wall[tool]:.2f} | {rss[tool]:.0f} |")
        two = "samecode --jobs 2"
        ratios.append(
            f"- {name}: `--jobs 2` takes {wall[two] / wall['jscpd']:.1f}x jscpd's time and "
            f"{rss[two] / rss['jscpd']:.2f}x its memory; `--jobs 1` / `--jobs 2` = "
            f"{wall['samecode --jobs 1'] / wall[two]:.2f}x; reading, tokenizing and hashing "
            f"alone take {least:.2f} s in one process ({least / 2:.2f} s on two cores, "
            f"{least / 2 / wall['jscpd']:.1f}x jscpd's whole run)"
        )
    save("\n".join([*lines, "", *ratios]), "bench_fragments_speed.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
