"""Builds of samecode side by side: the scan pipeline, corpus matching and stable output.

    python benchmarks/bench_pipeline.py --build before=/tmp/bench-base --build after=. \\
        --repeat 3 [--repeat-slow 1] [--only NAME...] [--stdlib roots] [--extras cli,fast]

Each ``--build NAME=CHECKOUT`` is a checkout of this project, copied as it is now (work
tree, uncommitted changes included) and installed, not editable, with its ``cli`` extra
into a virtual environment of its own, ``.bench-venvs/pipeline-NAME`` (reinstalled every
run, with the extras ``--extras`` names: ``cli`` by default); its ``samecode`` command is
what is timed. Every run is a fresh process (cold), the
builds interleaved within each repeat; the table gives the median wall time, CPU time
(user + system) and peak memory (of the process and its workers) of each case, and the CPU
time the rest of the machine used during each run. A busy machine skews the figures, so
before each run the benchmark waits up to ``--wait-idle`` seconds (120) for 3 idle
seconds, and a run during which the rest of the machine used more than ``--max-busy``
cores (0.1) on average is redone, up to ``--retries`` times (2), keeping the least
disturbed attempt.

Cases:

* ``stdlib-j1``, ``stdlib-j2``: ``samecode scan --jobs 1|2 --format jsonl`` of the ``.py``
  files of the standard libraries of every CPython 3.10-3.13 installed (test folders left
  out, as in ``bench_scan.py``), handed over as paths; with ``--stdlib roots``, the four
  libraries' folders instead, walked by the command (every file, tests included; the
  installed packages left out by the default excludes).
* ``stdlib-frag-j1``, ``stdlib-frag-j2``: the same with ``--fragments``.
* ``django-scan-j1``, ``django-scan-j2``: the sdists of Django 4.2.16, 5.0.9 and 5.1.3
  (downloaded once into ``.bench-cache/django/<version>/``) scanned together.
* ``django-index``, ``django-match``, ``django-scan2``: ``samecode index add`` of 4.2.16
  into a fresh corpus, ``samecode match`` of 5.0.9 against it, and ``samecode scan`` of
  the two trees; the cross-tree pairs of the scan must be the pairs of the match. Index and
  match are slow: they run ``--repeat-slow`` times.
* ``identical``: the SHA-256 of the stdlib JSONL at ``--jobs 1`` and ``2`` in every
  repeat (and, for a build whose ``scan`` has ``--batch-size``, at batch sizes 1, 7 and
  64 with ``--jobs 2``), fields that are timings left out; all must be equal, and so
  must those of ``--fragments`` (where its cases run).

Every command gets ``--no-gitignore`` (the cache lies in an ignored folder) and the
defaults otherwise (threshold 0.8; ``--jobs`` every core where not given). The table is
printed and written to ``.bench-cache/bench_pipeline.md``, with the ratios of the median
wall times (``--jobs 1`` over ``--jobs 2``); a case a build lacks is "n/a".
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import venv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_scan import stdlib_files, stdlib_roots

from _refenv import HERE

ROOT = HERE.parent
CACHE = ROOT / ".bench-cache"
VENVS = ROOT / ".bench-venvs"
DJANGO = ("4.2.16", "5.0.9", "5.1.3")
BATCH_SIZES = (1, 7, 64)
CASES = (
    "stdlib-j1",
    "stdlib-j2",
    "stdlib-frag-j1",
    "stdlib-frag-j2",
    "django-scan-j1",
    "django-scan-j2",
    "django-index",
    "django-match",
    "django-scan2",
    "identical",
)
SLOW = {"django-index", "django-match"}
#: Keys of a JSONL record that hold a time, left out before hashing.
TIMING = re.compile(r"(^|_)(seconds|secs|elapsed|time|times|timing|timings|duration|wall)(_|$)")
#: What a snapshot of a checkout leaves out.
SNAPSHOT_IGNORE = shutil.ignore_patterns(
    ".git",
    ".bench-venvs",
    ".bench-cache",
    ".tox",
    ".venv",
    ".ci-venv",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".hypothesis",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
)


class Unsupported(Exception):
    """A build lacks what a case needs (a usage error from its command line)."""


@dataclass
class Build:
    name: str
    checkout: Path
    samecode: str = ""
    version: str = ""
    commit: str = ""
    helps: dict[str, str] = field(default_factory=dict)

    def has(self, command: str, option: str = "") -> bool:
        text = self.helps.get(command, "")
        return bool(text) and (not option or option in text)


@dataclass
class Run:
    wall: float
    cpu: float
    rss: float
    other: float  # CPU seconds other processes of the machine used meanwhile


# -- builds ------------------------------------------------------------------------------


def install(build: Build, extras: str = "cli") -> None:
    """Install a snapshot of the build's checkout, with ``extras``, into its own virtual
    environment."""
    home = VENVS / f"pipeline-{build.name}"
    python = home / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    if not python.exists():
        venv.EnvBuilder(with_pip=True, clear=True).create(home)
    described = subprocess.run(
        ["git", "-C", str(build.checkout), "describe", "--always", "--dirty"],
        capture_output=True,
        text=True,
        check=False,
    )
    build.commit = described.stdout.strip() or "?"
    print(f"[installing {build.name} = {build.checkout} ({build.commit})]", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix=f"pipeline-{build.name}-") as folder:
        snapshot = Path(folder) / "src"
        shutil.copytree(build.checkout, snapshot, ignore=SNAPSHOT_IGNORE, symlinks=True)
        pip = [str(python), "-m", "pip", "--disable-pip-version-check", "--quiet"]
        subprocess.run([*pip, "uninstall", "--yes", "samecode"], check=False)
        subprocess.run([*pip, "install", f"{snapshot}[{extras}]"], check=True)
    build.samecode = str(home / ("Scripts/samecode.exe" if os.name == "nt" else "bin/samecode"))
    build.version = subprocess.run(
        [build.samecode, "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    for command in (["scan"], ["match"], ["index"], ["index", "add"]):
        shown = subprocess.run(
            [build.samecode, *command, "--help"], capture_output=True, text=True, check=False
        )
        build.helps[" ".join(command)] = shown.stdout if shown.returncode == 0 else ""


# -- running -----------------------------------------------------------------------------


def busy() -> float:
    """CPU seconds the whole machine has spent busy since it started (0 if unknown)."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(x) for x in stat.readline().split()[1:9]]
    except (OSError, ValueError):
        return 0.0
    user, nice, system, _, _, irq, softirq, steal = fields
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def wait_idle(limit: float, window: float = 3.0) -> None:
    """Wait, up to ``limit`` seconds, for ``window`` seconds in which the other processes
    of the machine use less than a tenth of a core (someone's tests would skew the
    figures)."""
    waited = 0.0
    while waited < limit:
        before = busy()
        time.sleep(window)
        waited += window
        if busy() - before < 0.1 * window:
            return
    if limit:
        print(f"  [the machine was busy for {waited:.0f} s: running anyway]", file=sys.stderr)


def timed(command: list[str]) -> Run:
    """Run a command as a fresh process: its wall time, CPU time and peak memory (MB),
    and the CPU time the rest of the machine used meanwhile."""
    with tempfile.TemporaryFile() as errors:
        machine = busy()
        start = os.times().elapsed
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errors
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = os.times().elapsed - start
        machine = busy() - machine
        code = os.waitstatus_to_exitcode(status)
        if code not in (0, 1):
            errors.seek(0)
            said = errors.read().decode("utf-8", "replace").strip().splitlines()
            line = said[-1] if said else f"status {code}"
            line = line if len(line) <= 80 else line[:77] + "..."
            if code == 2:
                raise Unsupported(line)
            raise RuntimeError(f"{' '.join(command[:3])} failed with status {code}: {line}")
    cpu = usage.ru_utime + usage.ru_stime
    return Run(wall, cpu, usage.ru_maxrss / 1024, max(0.0, machine - cpu))


def stable_digest(path: Path, stripped: set[str]) -> str:
    """SHA-256 of a JSONL report with its timing fields left out (their paths added to
    ``stripped``); the lines are re-serialized with their key order kept."""
    digest = hashlib.sha256()
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            kind = record.get("type", "?") if isinstance(record, dict) else "?"
            digest.update(json.dumps(_untimed(record, kind, stripped)).encode())
            digest.update(b"\n")
    return digest.hexdigest()


def _untimed(value: Any, where: str, stripped: set[str]) -> Any:
    if isinstance(value, dict):
        kept = {}
        for key, item in value.items():
            if TIMING.search(key.lower()):
                stripped.add(f"{where}.{key}")
            else:
                kept[key] = _untimed(item, f"{where}.{key}", stripped)
        return kept
    if isinstance(value, list):
        return [_untimed(item, where, stripped) for item in value]
    return value


def pairs_of(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        return [r for r in map(json.loads, lines) if r.get("type") == "pair"]


def cross_pairs(
    records: list[dict[str, Any]], first: Path, second: Path
) -> dict[tuple[str, str], float]:
    """The pairs with one path under each tree: (path in first, path in second) -> J."""
    found = {}
    for record in records:
        sides = {}
        for path in (record["a"], record["b"]):
            for tree in (first, second):
                relative = os.path.relpath(os.path.abspath(path), tree)
                if not relative.startswith(".."):
                    sides[tree] = relative
        if len(sides) == 2:
            found[(sides[first], sides[second])] = record["jaccard"]
    return found


# -- data --------------------------------------------------------------------------------


def django_tree(version: str) -> Path:
    """The unpacked sdist of a Django release, downloaded on first use."""
    tree = CACHE / "django" / version
    if (tree / "PKG-INFO").exists():
        return tree
    print(f"[downloading the Django {version} sdist]", file=sys.stderr)
    with tempfile.TemporaryDirectory() as folder:
        download = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
        download += ["--no-binary", ":all:", "--dest", folder, f"django=={version}"]
        subprocess.run(download, check=True)
        (archive,) = Path(folder).glob("*.tar.gz")
        with tarfile.open(archive) as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(folder, filter="data")
            else:  # Python < 3.11.4
                tar.extractall(folder)
        (top,) = (p for p in Path(folder).iterdir() if p.is_dir())
        if tree.exists():
            shutil.rmtree(tree)
        tree.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(top), tree)
    return tree


# -- the benchmark -----------------------------------------------------------------------


class Bench:
    def __init__(
        self,
        builds: list[Build],
        cases: list[str],
        work: Path,
        idle: float = 0.0,
        retries: int = 0,
        max_busy: float = 0.1,
    ) -> None:
        self.builds = builds
        self.idle = idle
        self.retries = retries
        self.max_busy = max_busy
        self.cases = cases
        self.work = work
        self.runs: dict[tuple[str, str], list[Run]] = {}
        self.missing: dict[tuple[str, str], str] = {}
        self.digests: dict[str, dict[str, set[str]]] = {b.name: {} for b in builds}
        self.stripped: set[str] = set()
        self.stdlib: list[str] = []
        self.trees: list[Path] = []
        self.load = os.getloadavg()

    def out(self, build: Build, name: str) -> Path:
        folder = self.work / build.name
        folder.mkdir(parents=True, exist_ok=True)
        return folder / name

    def run(self, case: str, build: Build, command: list[str], needs: bool = True) -> bool:
        """Time one run of a case; False (and the case n/a) if the build cannot do it."""
        key = (case, build.name)
        if key in self.missing:
            return False
        if not needs:
            self.missing[key] = "no such command or option"
            return False
        kept: Run | None = None
        for attempt in range(1 + self.retries):
            wait_idle(self.idle)
            try:
                figures = timed([build.samecode, *command])
            except Unsupported as error:
                self.missing[key] = str(error)
                return False
            if kept is None or figures.other < kept.other:
                kept = figures
            if figures.other <= self.max_busy * figures.wall:
                break
            if attempt < self.retries:
                print(
                    f"  {case:15} {build.name:10} {figures.wall:8.2f} s: others used "
                    f"{figures.other:.1f} s CPU meanwhile; again",
                    file=sys.stderr,
                )
        assert kept is not None
        figures = kept
        self.runs.setdefault(key, []).append(figures)
        print(
            f"  {case:15} {build.name:10} {figures.wall:8.2f} s  (others: {figures.other:.1f} s"
            " CPU)",
            file=sys.stderr,
        )
        return True

    def digest(self, build: Build, label: str, output: Path) -> None:
        found = stable_digest(output, self.stripped)
        self.digests[build.name].setdefault(label, set()).add(found)

    def stdlib_scan(self, build: Build, case: str, jobs: int, extra: list[str]) -> None:
        output = self.out(build, f"{case}.jsonl")
        command = ["scan", "--format", "jsonl", "--quiet", "--no-gitignore", "--max-size", "10M"]
        command += ["--jobs", str(jobs), *extra, "-o", str(output), *self.stdlib]
        if self.run(case, build, command) and "identical" in self.cases:
            label = f"--jobs {jobs}" + (f" {' '.join(extra)}" if extra else "")
            self.digest(build, label, output)

    def repeat(self, first: bool, slow: bool) -> None:
        wanted = set(self.cases)
        for jobs in (1, 2):
            case = f"stdlib-j{jobs}"
            if case in wanted or "identical" in wanted:
                for build in self.builds:
                    self.stdlib_scan(build, case, jobs, [])
        for jobs in (1, 2):
            case = f"stdlib-frag-j{jobs}"
            if case in wanted:
                for build in self.builds:
                    self.stdlib_scan(build, case, jobs, ["--fragments"])
        if first and "identical" in wanted:
            for size in BATCH_SIZES:
                for build in self.builds:
                    if build.has("scan", "--batch-size"):
                        extra = ["--batch-size", str(size)]
                        self.stdlib_scan(build, f"stdlib-j2-b{size}", 2, extra)
        for jobs in (1, 2):
            case = f"django-scan-j{jobs}"
            if case in wanted:
                for build in self.builds:
                    command = ["scan", *map(str, self.trees), "--jobs", str(jobs)]
                    command += ["--format", "jsonl", "--quiet", "--no-gitignore"]
                    self.run(case, build, [*command, "-o", str(self.out(build, f"{case}.jsonl"))])
        if slow and wanted & SLOW:
            for build in self.builds:
                db = self.out(build, "django.db")
                for stale in db.parent.glob(f"{db.name}*"):
                    stale.unlink()
                command = ["index", "add", str(self.trees[0]), "--db", str(db), "--quiet"]
                self.run("django-index", build, [*command, "--no-gitignore"], build.has("index"))
            if "django-match" in wanted:
                for build in self.builds:
                    db = self.out(build, "django.db")
                    if not db.exists():
                        self.missing.setdefault(("django-match", build.name), "no corpus")
                        continue
                    command = ["match", str(self.trees[1]), "--db", str(db), "--format", "jsonl"]
                    command += ["--quiet", "--no-gitignore"]
                    output = str(self.out(build, "django-match.jsonl"))
                    self.run("django-match", build, [*command, "-o", output], build.has("match"))
        if "django-scan2" in wanted or "django-match" in wanted:
            for build in self.builds:
                command = ["scan", str(self.trees[0]), str(self.trees[1]), "--format", "jsonl"]
                command += ["--quiet", "--no-gitignore"]
                output = str(self.out(build, "django-scan2.jsonl"))
                self.run("django-scan2", build, [*command, "-o", output])

    # -- the report ----------------------------------------------------------------------

    def median(self, case: str, build: Build) -> float | None:
        runs = self.runs.get((case, build.name))
        return statistics.median(r.wall for r in runs) if runs else None

    def ratio(self, top: str, bottom: str, build: Build) -> str:
        a, b = self.median(top, build), self.median(bottom, build)
        return f"{a / b:.2f}" if a is not None and b else "n/a"

    def report(self, args: argparse.Namespace) -> str:
        lines = ["# samecode builds side by side (benchmarks/bench_pipeline.py)", ""]
        for build in self.builds:
            lines.append(f"- **{build.name}**: {build.checkout} at {build.commit}, {build.version}")
        stdlib = (
            f"{len(self.stdlib)} stdlib folders (walked)"
            if args.stdlib == "roots"
            else f"{len(self.stdlib)} stdlib files"
        )
        lines.append(
            f"- {stdlib}; extras {args.extras}; Django sdists {', '.join(DJANGO)}; "
            f"repeat {args.repeat} (index and match {args.repeat_slow}); Python "
            f"{sys.version.split()[0]}, {os.cpu_count()} cores; load average "
            f"{self.load[0]:.2f} before, {os.getloadavg()[0]:.2f} after"
        )
        lines += [
            "",
            "| case | build | runs | median wall (s) | CPU (s) | peak MB | others' CPU (s) |",
        ]
        lines.append("|---|---|---|---|---|---|---|")
        ran = {case for case, _ in [*self.runs, *self.missing]}
        shown = [c for c in CASES if c != "identical" and (c in self.cases or c in ran)]
        shown += sorted(c for c in ran if c.startswith("stdlib-j2-b"))
        for case in shown:
            for build in self.builds:
                runs = self.runs.get((case, build.name))
                if not runs:
                    why = self.missing.get((case, build.name), "not run")
                    lines.append(f"| {case} | {build.name} | 0 | n/a ({why}) | n/a | n/a | |")
                    continue
                wall = statistics.median(r.wall for r in runs)
                cpu = statistics.median(r.cpu for r in runs)
                rss = statistics.median(r.rss for r in runs)
                other = " / ".join(f"{r.other:.1f}" for r in runs)
                lines.append(
                    f"| {case} | {build.name} | {len(runs)} | {wall:.2f} | {cpu:.2f} | {rss:.0f} | "
                    f"{other} |"
                )
        lines += [
            "",
            "| build | stdlib j1/j2 | stdlib fragments j1/j2 | django scan j1/j2 | match / scan2 |",
        ]
        lines.append("|---|---|---|---|---|")
        for build in self.builds:
            lines.append(
                f"| {build.name} | {self.ratio('stdlib-j1', 'stdlib-j2', build)} | "
                f"{self.ratio('stdlib-frag-j1', 'stdlib-frag-j2', build)} | "
                f"{self.ratio('django-scan-j1', 'django-scan-j2', build)} | "
                f"{self.ratio('django-match', 'django-scan2', build)} |"
            )
        if "django-match" in self.cases:
            lines += ["", *self.check_match()]
        if "identical" in self.cases:
            lines += ["", *self.check_identical()]
        return "\n".join(lines) + "\n"

    def check_match(self) -> list[str]:
        first, second = (t.resolve() for t in self.trees[:2])
        lines = [f"Cross-tree pairs, {DJANGO[0]} x {DJANGO[1]} (scan2 against match):", ""]
        for build in self.builds:
            scanned, matched = (
                self.out(build, f"django-{name}.jsonl") for name in ("scan2", "match")
            )
            if ("django-match", build.name) not in self.runs or not scanned.exists():
                lines.append(f"- {build.name}: n/a")
                continue
            a = cross_pairs(pairs_of(scanned), first, second)
            b = cross_pairs(pairs_of(matched), first, second)
            same = a.keys() == b.keys()
            values = sum(a[k] != b[k] for k in a.keys() & b.keys())
            lines.append(
                f"- {build.name}: scan {len(a)} cross-tree pairs, match {len(b)}: "
                f"{'the same set' if same else 'DIFFERENT'}; jaccard differs in {values}"
            )
            for key in sorted(a.keys() - b.keys())[:10]:
                lines.append(f"  - only in scan: {key[0]} ~ {key[1]}")
            for key in sorted(b.keys() - a.keys())[:10]:
                lines.append(f"  - only in match: {key[0]} ~ {key[1]}")
        return lines

    def check_identical(self) -> list[str]:
        strip = ", ".join(sorted(self.stripped)) or "none (no timing field found)"
        lines = [f"SHA-256 of the stdlib JSONL (timing fields left out: {strip}):", ""]
        every: set[str] = set()
        for build in self.builds:
            found = self.digests[build.name]
            if not found:
                lines.append(f"- {build.name}: n/a")
                continue
            runs = sum(len(self.runs.get((c, build.name), [])) for c in self._stdlib_cases())
            labels = "; ".join(f"{label}: {len(h)} distinct" for label, h in found.items())
            if not build.has("scan", "--batch-size"):
                labels += "; --batch-size: n/a"
            for size in BATCH_SIZES:
                why = self.missing.get((f"stdlib-j2-b{size}", build.name))
                if why:
                    labels += f"; --batch-size {size}: n/a ({why})"
            # a scan's output and that of --fragments differ; each must be one
            kinds: dict[bool, set[str]] = {}
            for label, found_hashes in found.items():
                kinds.setdefault("--fragments" in label, set()).update(found_hashes)
            same = all(len(hashes) == 1 for hashes in kinds.values())
            for fragments, hashes in sorted(kinds.items()):
                every |= {f"{fragments}:{h}" for h in hashes}
            verdict = "all identical" if same else "NOT identical"
            shown = ", ".join(
                ("--fragments " if fragments else "") + h[:16]
                for fragments, hashes in sorted(kinds.items())
                for h in sorted(hashes)
            )
            lines.append(f"- {build.name}: {verdict} over {runs} runs ({labels}); {shown}")
        if len(self.builds) > 1:
            kinds = {digest.partition(":")[0] for digest in every}
            same = len(every) == len(kinds)
            lines.append(f"- across builds: {'identical' if same else 'different'}")
        return lines

    def _stdlib_cases(self) -> list[str]:
        return sorted({c for c, _ in self.runs if c.startswith("stdlib-")})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--build",
        action="append",
        required=True,
        metavar="NAME=CHECKOUT",
        help="a build to compare: a name and a checkout of samecode (repeatable)",
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--stdlib",
        choices=("files", "roots"),
        default="files",
        help="the standard libraries as their .py files (test folders left out) or as "
        "their four folders, walked by the command",
    )
    parser.add_argument(
        "--extras", default="cli", help="the extras each build is installed with (cli,fast)"
    )
    parser.add_argument(
        "--repeat-slow", type=int, default=1, help="runs of django-index and django-match"
    )
    parser.add_argument("--only", nargs="+", choices=CASES, help="cases to run (all by default)")
    parser.add_argument(
        "--retries",
        type=int,
        default=2,
        help="times a run is redone when the rest of the machine was busy during it "
        "(the least disturbed attempt is kept)",
    )
    parser.add_argument(
        "--max-busy",
        type=float,
        default=0.1,
        metavar="CORES",
        help="the CPU the rest of the machine may use during a run, on average, in cores",
    )
    parser.add_argument(
        "--wait-idle",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="before each run, wait up to this long for the rest of the machine to be idle",
    )
    args = parser.parse_args()

    builds = []
    for given in args.build:
        name, _, checkout = given.partition("=")
        if not name or not checkout or not re.fullmatch(r"[\w.-]+", name):
            parser.error(f"--build {given!r}: expected NAME=CHECKOUT")
        builds.append(Build(name, Path(checkout).resolve()))
    cases = [c for c in CASES if not args.only or c in args.only]
    for build in builds:
        install(build, args.extras)

    work = CACHE / "pipeline"
    shutil.rmtree(work, ignore_errors=True)
    bench = Bench(builds, cases, work, args.wait_idle, args.retries, args.max_busy)
    if any(c.startswith("stdlib") or c == "identical" for c in cases):
        bench.stdlib = stdlib_roots() if args.stdlib == "roots" else stdlib_files()
    if any(c.startswith("django") for c in cases):
        bench.trees = [django_tree(v) for v in DJANGO]
    for number in range(args.repeat):
        print(f"[repeat {number + 1} of {args.repeat}]", file=sys.stderr)
        bench.repeat(number == 0, number < args.repeat_slow)

    text = bench.report(args)
    print(text)
    CACHE.mkdir(exist_ok=True)
    (CACHE / "bench_pipeline.md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
