"""``samecode scan --fragments`` beside jscpd 5 on the same trees: wall time and peak memory.

    python benchmarks/bench_fragments_speed.py [--repeat 3] [--trees stdlib django]
        [--wait-idle 120]

Trees of ``.py`` files, made once under ``.bench-cache/fragments-speed/``:

* ``stdlib``: the ``.py`` files of this Python's standard library (``Lib/``), test
  folders (``test``, ``tests``, ``idle_test``) and ``site-packages`` left out;
* ``django``: the ``.py`` files of the sdists of Django 4.2.16 and 5.0.9 side by side
  (two versions: most of one is a near-copy of the other).

Whole trees, every file as a user points the tools at it (``.py``, ``.po`` and ``.mo``
catalogues, templates, JavaScript, CSS, data files...):

* ``django-wheel``: the Django 4.2.16 wheel unpacked;
* ``vendoring``: pip 24.2's ``pip/_vendor/`` beside the 17 upstream releases its
  ``vendor.txt`` pins (:func:`bench_provenance.build_trees`; the two folders given as two
  paths, as ``bench_provenance`` scans them), also scanned with ``--profile provenance``;
* ``stdlib-whole``: this Python's standard library folder as installed
  (``site-packages`` left out; tests, ``__pycache__``, data files and extension modules
  kept).

Tools, each a fresh process, interleaved within each repeat:

* ``samecode scan TREE --fragments --format jsonl --jobs 1`` and ``--jobs 2`` (the
  ``samecode`` of the interpreter running this script), defaults otherwise (regions of 40
  tokens, ``--gap`` 20, licence headers and imports ignored);
* jscpd 5.4.2 (its PyPI wheel, in a virtual environment of its own) as the quality
  benchmark runs it: ``-k 40 --max-gap-lines 2 -f python -r json`` (clones of 40 tokens,
  near-miss clones across two lines); on a whole tree without ``-f``, so that it reads
  every format it knows, as a user's run does, and with ``--no-gitignore``.

On a whole tree a tool's run over 60 s is not repeated, and the two outputs of samecode
(``--jobs 1`` and ``--jobs 2``) are checked to be the same, timings aside, in every
repeat. Besides the table: the files each tool read (samecode's ``compared``, jscpd's
``sources`` by format), the extensions of the files neither read, and samecode's
regions, pairs and classes.

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
import json
import os
import shutil
import statistics
import sys
import sysconfig
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import samecode
from bench_fragments_quality import JSCPD
from bench_pipeline import CACHE, Run, django_tree, stable_digest, timed, wait_idle
from bench_provenance import CACHE as PROVENANCE
from bench_provenance import build_trees, download, unpack
from samecode.fragments import FragmentOptions
from samecode.sources.reading import read_text
from samecode.sources.walk import WalkOptions, discover
from samecode.text.shingling import kgram_hashes, token_ids

from _refenv import peer_python

HERE = CACHE / "fragments-speed"
SKIP = {"test", "tests", "idle_test", "site-packages", "__pycache__"}
DJANGO_WHEEL = "django==4.2.16"
#: A whole tree's runs longer than this are not repeated.
LONG = 60.0


@dataclass(frozen=True)
class Tree:
    """What the tools are pointed at: ``paths``, and whether they are a ``whole`` tree
    (every file; jscpd reads every format it knows) and the profiles samecode is also run
    with."""

    paths: tuple[Path, ...]
    whole: bool = False
    profiles: tuple[str, ...] = ()


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


def whole_tree(source: Path, target: Path, leave_out: str) -> Path:
    """Copy ``source`` to ``target`` once, its top folder ``leave_out`` left out, links
    kept as links; return ``target``."""
    marker = target / ".complete"
    if marker.exists():
        return target
    shutil.rmtree(target, ignore_errors=True)

    def ignored(folder: str, names: list[str]) -> set[str]:
        return {leave_out} if Path(folder) == source else set()

    shutil.copytree(source, target, symlinks=True, ignore=ignored)
    marker.write_text("")
    return target


def wheel_tree(requirement: str, target: Path) -> Path:
    """The wheel of ``requirement`` unpacked whole into ``target``, once."""
    marker = target / ".complete"
    if marker.exists():
        return target
    shutil.rmtree(target, ignore_errors=True)
    unpack(download(requirement, HERE / "downloads"), target)
    marker.write_text("")
    return target


def trees(names: list[str]) -> dict[str, Tree]:
    made = {}
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    lib = Path(sysconfig.get_paths()["stdlib"])
    if "stdlib" in names:
        made[f"stdlib {version}"] = Tree((python_files(lib, HERE / f"stdlib-{version}"),))
    if "django" in names:
        both = HERE / "django"
        for release in ("4.2.16", "5.0.9"):
            python_files(django_tree(release), both / release)
        made["django 4.2.16 + 5.0.9"] = Tree((both,))
    if "django-wheel" in names:
        wheel = wheel_tree(DJANGO_WHEEL, HERE / "django-4.2.16-wheel")
        made["django 4.2.16 wheel, whole"] = Tree((wheel,), whole=True)
    if "vendoring" in names:
        proj, upstream = build_trees(PROVENANCE)
        made["pip 24.2 _vendor + upstream"] = Tree(
            (proj / "vendor", upstream), whole=True, profiles=("provenance",)
        )
    if "stdlib-whole" in names:
        copy = whole_tree(lib, HERE / f"stdlib-{version}-whole", "site-packages")
        made[f"stdlib {version}, whole"] = Tree((copy,), whole=True)
    return made


def commands(tree: Tree, out: Path) -> dict[str, list[str]]:
    """The command line of each tool on ``tree``, by name; samecode's reports go to
    ``out/NAME.jsonl`` and jscpd's to ``out/jscpd/``."""
    samecode = shutil.which("samecode", path=str(Path(sys.executable).parent))
    if samecode is None:
        raise SystemExit("samecode is not installed beside this interpreter")
    paths = [str(path) for path in tree.paths]
    ours = [samecode, "scan", *paths, "--fragments", "--format", "jsonl", "-q", "--no-gitignore"]
    jscpd = str(peer_python("jscpd", JSCPD).parent / "jscpd")
    theirs = [jscpd, *paths, "-k", "40", "--max-gap-lines", "2", "-r", "json"]
    theirs += ["--no-gitignore"] if tree.whole else ["-f", "python"]
    made = {}
    for profile in ("", *tree.profiles):
        given = ["--profile", profile] if profile else []
        for jobs in ("1", "2"):
            name = f"samecode{' --profile ' + profile if profile else ''} --jobs {jobs}"
            report = out / f"{name.replace(' ', '_')}.jsonl"
            made[name] = [*ours, *given, "--jobs", jobs, "--output", str(report)]
    made["jscpd"] = [*theirs, "-o", str(out / "jscpd")]
    return made


def floor(tree: Tree) -> float:
    """Seconds this process takes to do the work every token needs before any matching:
    read each file the scan reads, tokenize it as ``scan --fragments`` does (words), and
    hash its token ids and k-grams (all of it in C, no winnowing, no comparing): the least
    any design that fingerprints every token in this interpreter can take, in one
    process."""
    options = FragmentOptions()
    walk = WalkOptions(gitignore=False)
    started = time.perf_counter()
    for path in discover([str(path) for path in tree.paths], walk)[0]:
        text = read_text(path, walk.max_size)
        if hasattr(text, "text"):
            tokens = options.shingling.token_list(text.text, path)
            kgram_hashes(token_ids(tokens), options.k)
    return time.perf_counter() - started


def extensions(tree: Tree) -> Counter[str]:
    """The files under ``tree`` by extension (``(none)`` for a name without one)."""
    found: Counter[str] = Counter()
    for root in tree.paths:
        for path in root.rglob("*"):
            if path.is_file() and path.name != ".complete":
                found[path.suffix.lower() or "(none)"] += 1
    return found


def summary(report: Path) -> dict[str, Any]:
    """The ``summary`` of a ``scan --fragments --format jsonl`` report."""
    with report.open(encoding="utf-8") as lines:
        summarized: dict[str, Any] = json.loads(next(lines))["summary"]
        return summarized


def jscpd_sources(out: Path) -> dict[str, int]:
    """The files jscpd's JSON report in ``out`` counts, by format."""
    report = json.loads((out / "jscpd" / "jscpd-report.json").read_text(encoding="utf-8"))
    formats = report["statistics"]["formats"]
    return {name: figures["sources"] for name, figures in sorted(formats.items())}


def arguments(doc: str) -> argparse.Namespace:
    """The command line of this benchmark and of those run on its trees (``doc``: the
    script's description), once samecode's modules are byte-compiled."""
    parser = argparse.ArgumentParser(description=doc.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--trees", nargs="+", default=["stdlib", "django"],
                        choices=["stdlib", "django", "django-wheel", "vendoring",
                                 "stdlib-whole"])  # fmt: skip
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
    load = ", ".join(f"{figure:.2f}" for figure in os.getloadavg())
    lines = [
        f"Load average at the start (1, 5, 15 min): {load} on {os.cpu_count()} cores.",
        "",
        "| tree | files | tool | runs | median wall (s) | CPU (s) | peak MB |",
        "|---|---|---|---|---|---|---|",
    ]
    notes = []
    for name, tree in trees(args.trees).items():
        if tree.whole:
            files = sum(extensions(tree).values())
        else:
            files = sum(1 for root in tree.paths for _ in root.rglob("*.py"))
        runs: dict[str, list[Run]] = {}
        same = True
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder)
            tools = commands(tree, out)
            for number in range(args.repeat):
                print(f"[{name}: repeat {number + 1} of {args.repeat}]", file=sys.stderr)
                for tool, command in tools.items():
                    if tree.whole and runs.get(tool) and runs[tool][0].wall > LONG:
                        continue
                    wait_idle(args.wait_idle)
                    run = timed(command)
                    runs.setdefault(tool, []).append(run)
                    print(
                        f"  {tool:40} {run.wall:7.2f} s {run.cpu:7.2f} s CPU {run.rss:7.0f} MB",
                        file=sys.stderr,
                    )
                reports = sorted(out.glob("samecode*_--jobs_1.jsonl"))
                for one in reports:
                    two = one.with_name(one.name.replace("_--jobs_1", "_--jobs_2"))
                    if stable_digest(one, set()) != stable_digest(two, set()):
                        same = False
                        print(f"  [{one.name} and {two.name} differ]", file=sys.stderr)
            found = {tool: summary(out / f"{tool.replace(' ', '_')}.jsonl")
                     for tool in tools if tool.endswith("--jobs 2")}  # fmt: skip
            sources = jscpd_sources(out)
        least = statistics.median(floor(tree) for _ in range(args.repeat))
        wall = {tool: statistics.median(r.wall for r in got) for tool, got in runs.items()}
        rss = {tool: statistics.median(r.rss for r in got) for tool, got in runs.items()}
        cpu = {tool: statistics.median(r.cpu for r in got) for tool, got in runs.items()}
        for tool, got in runs.items():
            lines.append(
                f"| {name} | {files:,} | {tool} | {len(got)} | {wall[tool]:.2f} | "
                f"{cpu[tool]:.1f} | {rss[tool]:.0f} |"
            )
        for tool in found:
            notes.append(
                f"- {name}: `{tool}` takes {wall[tool] / wall['jscpd']:.1f}x jscpd's time "
                f"and {rss[tool] / rss['jscpd']:.2f}x its memory; `--jobs 1` / `--jobs 2` "
                f"= {wall[tool.replace('--jobs 2', '--jobs 1')] / wall[tool]:.2f}x"
            )
        notes.append(
            f"- {name}: outputs at `--jobs 1` and `--jobs 2` "
            f"{'the same' if same else 'DIFFER'} in every repeat; reading, tokenizing and "
            f"hashing alone take {least:.2f} s in one process ({least / 2:.2f} s on two "
            f"cores, {least / 2 / wall['jscpd']:.1f}x jscpd's whole run)"
        )
        for tool, figures in found.items():
            skipped = ", ".join(f"{n:,} {why}" for why, n in figures["skipped_by_reason"].items())
            notes.append(
                f"- {name}: `{tool}` read {figures['compared']:,} files "
                f"(skipped: {skipped or 'none'}); {figures['regions']:,} regions, "
                f"{figures['pairs']:,} pairs, {figures['classes']:,} classes"
            )
        jscpd_read = ", ".join(f"{n:,} {fmt}" for fmt, n in sources.items())
        notes.append(f"- {name}: jscpd read {sum(sources.values()):,} files: {jscpd_read}")
        if tree.whole:
            common = ", ".join(f"{n:,} {ext}" for ext, n in extensions(tree).most_common(15))
            notes.append(f"- {name}: the files by extension (the 15 commonest): {common}")
    save("\n".join([*lines, "", *notes]), "bench_fragments_speed.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
