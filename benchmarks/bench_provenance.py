"""Provenance on a real vendoring: pip 24.2's vendored packages against their upstream releases.

    python benchmarks/bench_provenance.py [--src src] [--cache .bench-cache/provenance]
        [--jobs 2] [--json OUT] [--details FILE] [--extra ARG ...]

The case (issue 33): a project ``proj/`` whose ``vendor/`` folder holds the contents of
``pip/_vendor/`` from the pip 24.2 wheel (imports rewritten to ``pip._vendor``, some files
trimmed), plus one small file of its own, ``proj/app.py``; and a corpus of the 17 releases
that ``pip/_vendor/vendor.txt`` pins, each unpacked as installed (the importable top-level
packages and modules of its wheel, or the package folder of its sdist where there is no
wheel), under ``upstream/NAME-VERSION/``. Everything is downloaded once with ``pip
download --no-deps`` and unpacked under ``--cache``.

Ground truth, computed here: a vendored file ``vendor/X/...`` has an upstream file when
the release whose top-level package or module is ``X`` holds the same path
(``pkg_resources`` is setuptools'). The vendored files counted are the text files with a
non-blank line (the ``.exe`` launchers of distlib and the empty ``py.typed`` markers are
left out). Those with no upstream file (pip's own ``__init__.py`` and ``vendor.txt``,
renamed or added files) are counted and listed, and left out of the coverage figures. A
file is byte-identical when it has the same bytes as its upstream file.

Each run is a fresh ``python -m samecode`` process of this interpreter with
``PYTHONPATH=--src`` (a before/after comparison is two runs of this script), every
command given ``-q --no-gitignore --jobs N`` (the cache lies in an ignored folder) and the
``--extra`` arguments (such as ``--profile provenance``):

1. ``index add upstream/ --db DB --fragments``, into a fresh corpus;
2. ``match proj/ --db DB --fragments --format jsonl --no-default-excludes``: coverage
   (``--no-default-excludes`` so that ``vendor/`` is walked by builds before 8259335 too,
   whose ``match`` left it out). For each vendored file with an upstream file, the share of
   its non-blank lines inside regions whose other side is that upstream file. Figures: the
   files with 90 % or more covered (issue 33's target: 95 % of them) and the byte-identical
   files covered whole (target: all);
3. ``match proj/ --db DB --fail-on-match``, as a user types it: its exit status (target 1;
   0 is a false all-clear);
4. ``scan proj/vendor --fragments --format jsonl`` (the vendored tree given as the root,
   so the default excludes, which apply to folders found below it, leave nothing out):
   the clone classes whose occurrences' token counts differ more than 2x (target: at most
   2 % of classes) and more than 4x (target: none), and the largest class;
5. the same of ``proj/vendor`` and ``upstream/`` together, the tree whose first class
   issue 33 describes (563 occurrences chained through pygments' ``_mapping.py``).

Prints a table of the figures and the commands; ``--json OUT`` writes them (with the
worst-covered files); the 20 worst-covered files go to standard error, and all files with
their shares to ``--details FILE``. Each worst file's uncovered non-blank lines are split
into those the match ignored as an import block or a licence header (its ``ignored``
records) and the rest. Not part of CI.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _process import run_samecode

HERE = Path(__file__).resolve().parent
CACHE = HERE.parent / ".bench-cache" / "provenance"
PIP = "pip==24.2"
OWN_FILE = '''"""The project's own code, beside what it vendors."""

from vendor import requests


def fetch_status(url: str) -> int:
    """The HTTP status of a GET of ``url``."""
    return requests.get(url, timeout=10).status_code
'''


# -- downloads and trees -----------------------------------------------------------------


def download(requirement: str, folder: Path) -> Path:
    """The wheel of ``requirement`` (its sdist if it has none), downloaded once."""
    folder.mkdir(parents=True, exist_ok=True)
    name, version = requirement.split("==")
    stem = name.lower().replace("-", "_").replace(".", "_")
    sdists = {f"{stem}_{version}{suffix}" for suffix in (".tar.gz", ".zip")}

    def found() -> Path | None:
        for path in sorted(folder.iterdir()):
            named = path.name.lower().replace("-", "_")
            if named.startswith(f"{stem}_{version}_") or named in sdists:
                return path
        return None

    if found() is None:
        print(f"[downloading {requirement}]", file=sys.stderr)
        pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps"]
        pip += ["--dest", str(folder), requirement]
        wheel = subprocess.run([*pip, "--only-binary=:all:"], capture_output=True, check=False)
        if wheel.returncode != 0:
            subprocess.run([*pip, "--no-binary=:all:"], check=True)
    path = found()
    if path is None:
        sys.exit(f"bench_provenance: pip download of {requirement} left nothing in {folder}")
    return path


def unpack(archive: Path, into: Path) -> None:
    """Unpack a wheel, a zip or a tar archive into ``into``."""
    if archive.suffix in (".whl", ".zip"):
        with zipfile.ZipFile(archive) as zipped:
            zipped.extractall(into)
        return
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(into, filter="data")
        else:  # Python < 3.11.4
            tar.extractall(into)


def installed(archive: Path, into: Path) -> None:
    """Put the importable top-level packages and modules of a release into ``into``: a
    wheel's, or, from an sdist, the folders holding an ``__init__.py`` at its top or under
    its ``src/`` (tests aside) and the modules beside them (setup files aside)."""
    with tempfile.TemporaryDirectory() as scratch:
        unpack(archive, Path(scratch))
        root = Path(scratch)
        if archive.suffix != ".whl":
            (root,) = (p for p in root.iterdir() if p.is_dir())
            root = root / "src" if (root / "src").is_dir() else root
        into.mkdir(parents=True)
        for entry in sorted(root.iterdir()):
            package = entry.is_dir() and (entry / "__init__.py").is_file()
            in_wheel = archive.suffix == ".whl" and entry.is_dir()
            data = entry.name.endswith((".dist-info", ".data", ".libs", ".egg-info"))
            module = entry.suffix == ".py" and entry.name not in ("setup.py", "conftest.py")
            package = package and entry.name not in ("test", "tests", "docs")
            if (package or in_wheel) and not data:
                shutil.copytree(entry, into / entry.name)
            elif module:
                shutil.copy2(entry, into / entry.name)


def build_trees(cache: Path) -> tuple[Path, Path]:
    """``proj/`` and ``upstream/`` under ``cache/trees``, made on first use."""
    trees = cache / "trees"
    proj, upstream = trees / "proj", trees / "upstream"
    if (trees / "done").is_file():
        return proj, upstream
    shutil.rmtree(trees, ignore_errors=True)
    downloads = cache / "downloads"
    pip_wheel = download(PIP, downloads)
    with zipfile.ZipFile(pip_wheel) as wheel:
        pins = wheel.read("pip/_vendor/vendor.txt").decode().split()
        prefix = "pip/_vendor/"
        for member in wheel.namelist():
            if member.startswith(prefix) and not member.endswith("/"):
                target = proj / "vendor" / member[len(prefix) :]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(wheel.read(member))
    (proj / "app.py").write_text(OWN_FILE, encoding="utf-8")
    for pin in pins:
        name, version = pin.split("==")
        installed(download(pin, downloads), upstream / f"{name}-{version}")
    (trees / "done").write_text("\n".join(pins) + "\n")
    return proj, upstream


# -- ground truth ------------------------------------------------------------------------


def text_lines(data: bytes) -> list[str] | None:
    """A file's lines as the regions number them (ended by ``\\n``), or None if it is
    binary (holds a NUL byte)."""
    if b"\0" in data:
        return None
    return data.decode("utf-8", errors="replace").split("\n")


@dataclass
class Vendored:
    """A vendored file, its upstream file, and the lines the match covered."""

    path: Path
    relative: str
    upstream: Path | None
    identical: bool
    lines: list[str]
    covered: set[int] = field(default_factory=set)
    ignored: dict[str, set[int]] = field(default_factory=dict)

    @property
    def nonblank(self) -> list[int]:
        return [n for n, line in enumerate(self.lines, 1) if line.strip()]

    @property
    def share(self) -> float:
        lines = self.nonblank
        return sum(1 for n in lines if n in self.covered) / len(lines)

    @property
    def uncovered(self) -> list[int]:
        return [n for n in self.nonblank if n not in self.covered]


def ground_truth(proj: Path, upstream: Path) -> tuple[list[Vendored], int]:
    """Every vendored text file with a non-blank line, and the number of others."""
    owners: dict[str, Path] = {}
    for release in sorted(upstream.iterdir()):
        for entry in release.iterdir():
            owners[entry.name] = release
    vendor = proj / "vendor"
    files: list[Vendored] = []
    left_out = 0
    for path in sorted(p for p in vendor.rglob("*") if p.is_file()):
        data = path.read_bytes()
        lines = text_lines(data)
        if lines is None or not any(line.strip() for line in lines):
            left_out += 1
            continue
        relative = path.relative_to(vendor).as_posix()
        owner = owners.get(relative.split("/")[0])
        candidate = owner / relative if owner is not None else None
        source = candidate if candidate is not None and candidate.is_file() else None
        same = source is not None and source.read_bytes() == data
        files.append(Vendored(path.resolve(), relative, source, same, lines))
    return files, left_out


# -- the runs ----------------------------------------------------------------------------


@dataclass
class Command:
    argv: list[str]
    status: int = 0
    seconds: float = 0.0


def samecode(src: Path, argv: list[str], cwd: Path, output: Path | None = None) -> Command:
    """Run ``python -m samecode ARGV`` of ``src``; its standard output to ``output``."""
    status, seconds, said = run_samecode(src, argv, cwd, output)
    if status not in (0, 1):
        sys.exit(f"bench_provenance: samecode {' '.join(argv)} exited {status}:\n{said.strip()}")
    return Command(argv, status, seconds)


def records(report: Path) -> list[dict[str, Any]]:
    with report.open(encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def cover(files: list[Vendored], report: Path, cwd: Path) -> None:
    """Mark each file's lines inside regions with its upstream file, and the lines the
    match ignored, from a ``match --fragments --format jsonl`` report."""
    by_path = {f.path: f for f in files}

    def resolved(path: str) -> Path:
        return (cwd / path).resolve()

    for record in records(report):
        if record["type"] == "region":
            for mine, other in (("a", "b"), ("b", "a")):
                vendored = by_path.get(resolved(record[mine]))
                if vendored is None or vendored.upstream is None:
                    continue
                if resolved(record[other]) == vendored.upstream.resolve():
                    start, end = record[f"{mine}_start"], record[f"{mine}_end"]
                    vendored.covered.update(range(start, end + 1))
        elif record["type"] == "ignored":
            vendored = by_path.get(resolved(record["path"]))
            if vendored is not None:
                start, end = record["start"], record["end"]
                lines = vendored.ignored.setdefault(record["reason"], set())
                lines.update(range(start, end + 1))


def class_figures(report: Path) -> dict[str, Any]:
    """The clone classes of a ``scan --fragments --format jsonl`` report: how many, how
    many with occurrences differing more than 2x and 4x in tokens, and the largest."""
    classes = [r for r in records(report) if r["type"] == "class"]
    ranges: list[tuple[int, int, int, int]] = []  # occurrences, fewest, most tokens, id
    for c in classes:
        tokens = [o["tokens"] for o in c["occurrences"]]
        ranges.append((len(tokens), min(tokens), max(tokens), c["id"]))
    beyond2 = sum(1 for _, low, high, _ in ranges if high > 2 * low)
    beyond4 = sum(1 for _, low, high, _ in ranges if high > 4 * low)
    largest = max(ranges, key=lambda r: (r[0], -r[3]), default=(0, 0, 0, 0))
    return {
        "classes": len(classes),
        "classes_beyond_2x": beyond2,
        "classes_beyond_2x_share": beyond2 / len(classes) if classes else 0.0,
        "classes_beyond_4x": beyond4,
        "largest_class": {
            "id": largest[3],
            "occurrences": largest[0],
            "min_tokens": largest[1],
            "max_tokens": largest[2],
        },
    }


def file_row(f: Vendored) -> dict[str, Any]:
    uncovered = f.uncovered
    ignored = {
        reason: sum(1 for n in uncovered if n in lines) for reason, lines in f.ignored.items()
    }
    masked = set().union(*f.ignored.values()) if f.ignored else set()
    return {
        "path": f.relative,
        "share": round(f.share, 4),
        "nonblank_lines": len(f.nonblank),
        "bytes": f.path.stat().st_size,
        "identical": f.identical,
        "uncovered": len(uncovered),
        "uncovered_ignored": {k: v for k, v in ignored.items() if v},
        "uncovered_elsewhere": sum(1 for n in uncovered if n not in masked),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--src", type=Path, default=HERE.parent / "src", help="samecode's src/")
    parser.add_argument("--cache", type=Path, default=CACHE, help="downloads, trees and runs")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--details", type=Path, help="write every file's share here (JSONL)")
    parser.add_argument(
        "--extra",
        nargs=argparse.REMAINDER,
        default=[],
        help="options given to every samecode command (last: all that follows is theirs)",
    )
    args = parser.parse_args()
    src = args.src.resolve()
    if not (src / "samecode" / "__main__.py").is_file():
        parser.error(f"--src {args.src} holds no samecode package")
    cache = args.cache.resolve()
    proj, upstream = build_trees(cache)
    work = cache / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    common = ["-q", "--no-gitignore", "--jobs", str(args.jobs), *args.extra]
    db = work / "upstream.db"

    print("[index add]", file=sys.stderr)
    index = ["index", "add", str(upstream), "--db", str(db), "--fragments", *common]
    runs = {"index": samecode(src, index, work)}
    print("[match --fragments]", file=sys.stderr)
    covering = work / "match-fragments.jsonl"
    match = ["match", str(proj), "--db", str(db), "--fragments", "--format", "jsonl"]
    runs["match_fragments"] = samecode(
        src, [*match, "--no-default-excludes", *common], work, covering
    )
    print("[match --fail-on-match]", file=sys.stderr)
    plain = ["match", str(proj), "--db", str(db), "--fail-on-match", *common]
    runs["match_fail_on_match"] = samecode(src, plain, work)
    scans = {"scan": [proj / "vendor"], "scan_with_upstream": [proj / "vendor", upstream]}
    reports = {}
    for name, roots in scans.items():
        print(f"[{name}]", file=sys.stderr)
        reports[name] = work / f"{name}.jsonl"
        scan = ["scan", *map(str, roots), "--fragments", "--format", "jsonl", *common]
        runs[name] = samecode(src, scan, work, reports[name])

    files, left_out = ground_truth(proj, upstream)
    cover(files, covering, work)
    traced = [f for f in files if f.upstream is not None]
    identical = [f for f in traced if f.identical]
    mostly = sum(1 for f in traced if f.share >= 0.9)
    whole = sum(1 for f in identical if not f.uncovered)
    worst = sorted(traced, key=lambda f: (f.share, -len(f.nonblank), f.relative))[:20]
    no_upstream = [f.relative for f in files if f.upstream is None]
    worst_rows = [file_row(f) for f in worst]
    figures: dict[str, Any] = {
        "src": str(src),
        "extra": args.extra,
        "vendored_files": len(files),
        "binary_or_empty_left_out": left_out,
        "no_upstream_file": no_upstream,
        "with_upstream_file": len(traced),
        "byte_identical": len(identical),
        "covered_90": mostly,
        "covered_90_share": mostly / len(traced),
        "identical_covered_whole": whole,
        "identical_at_zero": sum(1 for f in identical if f.share == 0),
        "fail_on_match_status": runs["match_fail_on_match"].status,
        **{name: class_figures(report) for name, report in reports.items()},
        "seconds": {name: round(run.seconds, 2) for name, run in runs.items()},
        "commands": {name: "samecode " + " ".join(run.argv) for name, run in runs.items()},
        "worst": worst_rows,
    }
    if args.details:
        with args.details.open("w", encoding="utf-8") as out:
            for f in sorted(traced, key=lambda f: (f.share, f.relative)):
                out.write(json.dumps(file_row(f)) + "\n")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")

    print(f"\nsamecode from {src}; extra options: {' '.join(args.extra) or '(none)'}")
    print(f"trees in {proj.parent}; reports in {work}")
    for name, run in runs.items():
        print(
            f"  {name:<20} {run.seconds:7.2f} s  status {run.status}  samecode {' '.join(run.argv)}"
        )
    shares = f"{mostly / len(traced):.1%}"
    rows = [
        ("vendored text files", f"{len(files)} ({left_out} binary or empty left out)"),
        ("  with no upstream file", str(len(files) - len(traced))),
        ("  with an upstream file", str(len(traced))),
        ("  byte-identical to it", str(len(identical))),
        ("files >= 90 % covered (target 95 %)", f"{mostly} of {len(traced)} ({shares})"),
        ("identical files covered whole (all)", f"{whole} of {len(identical)}"),
        ("identical files at 0 %", str(figures["identical_at_zero"])),
        ("match --fail-on-match status (1)", str(figures["fail_on_match_status"])),
    ]
    for name in reports:
        classes = figures[name]
        largest = classes["largest_class"]
        rows += [
            (f"{name}: clone classes", str(classes["classes"])),
            (
                "  beyond 2x in tokens (<= 2 %)",
                f"{classes['classes_beyond_2x']} ({classes['classes_beyond_2x_share']:.1%})",
            ),
            ("  beyond 4x in tokens (0)", str(classes["classes_beyond_4x"])),
            (
                "  largest class",
                f"{largest['occurrences']} occurrences, "
                f"{largest['min_tokens']:,}-{largest['max_tokens']:,} tokens",
            ),
        ]
    print()
    for label, value in rows:
        print(f"{label:<40} {value}")
    print("\nNo upstream file:", ", ".join(no_upstream), file=sys.stderr)
    print(
        "\nWorst covered (share, non-blank lines, bytes, identical, uncovered lines:"
        " ignored as import block / licence header / elsewhere):",
        file=sys.stderr,
    )
    for row in worst_rows:
        ignored = row["uncovered_ignored"]
        print(
            f"  {row['share']:6.1%} {row['nonblank_lines']:6} {row['bytes']:8} "
            f"{'same' if row['identical'] else 'diff':<4} "
            f"{ignored.get('import block', 0):4} / {ignored.get('licence header', 0):4} / "
            f"{row['uncovered_elsewhere']:5}  {row['path']}",
            file=sys.stderr,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
