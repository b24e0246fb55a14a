"""The array kernels of fragments both ways, pure Python and numpy (``samecode[fast]``),
side by side on the same files, and the whole ``scan --fragments`` of a standard library
both ways, with the sha256 of each JSONL output.

    python benchmarks/bench_kernels.py [--repeat 5] [--scan-repeat 2] [--jobs 2]
        [--tree PATH] [--wait-idle 120]

The tree is this Python's standard library as installed (``sysconfig``'s ``stdlib``
folder, tests included; ``site-packages`` left out by the scan's default excludes), or
``--tree``. Each file is read, tokenized and its boilerplate masked as ``scan
--fragments`` does it (not timed); then, file by file, each kernel is timed both ways
(``SAMECODE_PURE=1``, then unset, within each repeat):

* ``k-gram hashes``: :func:`samecode.text.shingling.kgram_hashes` (a list of ints) and
  :func:`~samecode.text.shingling.kgram_array` (an ``array("Q")``, what the k-grams use);
* ``winnowing``: :func:`samecode.fragments.winnowing.winnow` over the masked hashes;
* ``look-up arrays``: :meth:`Kgrams.selecting <samecode.fragments.kgrams.Kgrams.selecting>`
  (the k-grams sorted by hash, their highest bits, the two sieves);
* ``all three``: :meth:`Kgrams.of <samecode.fragments.kgrams.Kgrams.of>` with the masked
  ranges, as the scan calls it;
* ``distinct shingles``: :meth:`Shingling.measure
  <samecode.text.shingling.Shingling.measure>` with the default rules (tokenizing
  included), what ``scan`` without ``--fragments`` computes of each file.
* ``exact matches``: :func:`samecode.fragments.regions.exact_matches` of each file (its
  k-grams made, boilerplate masked) against a near-copy of it, every 40th line left out:
  the seed look-ups, sorted on numpy, and the matches through them;
* ``tokens with offsets``: :meth:`TokenSpans.of
  <samecode.fragments.tokens.TokenSpans.of>` of each file's text (the offsets of its
  words summed on numpy);
* ``boilerplate masks``: :func:`~samecode.fragments.boilerplate.mask` of each file (a
  catalogue's message ids: the tokens of each run of lines found on numpy).

Each kernel's output is hashed (sha256 of its pickle) both ways and must be the same. Then
``python -m samecode scan TREE [--fragments] --format jsonl --jobs N`` of this checkout, a
fresh process each way and each repeat. The report gives each kernel's median seconds
over all files both ways and the ratio, and the median wall time of ``scan`` and of
``scan --fragments`` both ways with the outputs' sha256. Not part of CI.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import pickle
import statistics
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_pipeline import timed, wait_idle
from samecode._kernels import PURE
from samecode.fragments import FragmentOptions
from samecode.fragments.boilerplate import mask
from samecode.fragments.ignored import masked_ranges
from samecode.fragments.kgrams import Kgrams
from samecode.fragments.regions import exact_matches
from samecode.fragments.tokens import TokenSpans
from samecode.fragments.winnowing import winnow
from samecode.sources.reading import read_text
from samecode.sources.walk import WalkOptions, discover
from samecode.text.shingling import Shingling, kgram_array, kgram_hashes

SRC = Path(__file__).resolve().parents[1] / "src"
KERNELS = ["k-gram hashes (list)", "k-gram hashes (array)", "winnowing", "look-up arrays",
           "all three (Kgrams.of)", "distinct shingles (measure)",
           "exact matches (seeds)", "tokens with offsets (TokenSpans.of)",
           "boilerplate masks (mask)"]  # fmt: skip
WAYS = {"pure": "1", "numpy": ""}


def inputs(tree: Path) -> list[tuple[Any, ...]]:
    """Each file's token ids and masked ranges as the scan makes them, its masked k-gram
    hashes and fingerprints (for the kernels that take them), its text and its path."""
    options = FragmentOptions()
    walk = WalkOptions()
    paths, _ = discover([str(tree)], walk)
    found = []
    for path in paths:
        text = read_text(path, walk.max_size)
        if not hasattr(text, "text"):
            continue
        tokens = TokenSpans.of(text.text, options.shingling, path)
        if len(tokens) < walk.min_tokens:
            continue
        masked = masked_ranges(mask(path, text.text, tokens, options.k))
        kgrams = Kgrams.of(tokens.ids, options.k, options.window, masked)
        # a near-copy to match the file with: every 40th line left out
        edited = "\n".join(line for n, line in enumerate(text.text.split("\n")) if n % 40 != 7)
        copy = TokenSpans.of(edited, options.shingling, path)
        pair = (kgrams, Kgrams.of(copy.ids, options.k, options.window))
        found.append((tokens.ids, masked, kgrams.hashes, kgrams.selected, text.text, path,
                      copy.ids, pair, tokens))  # fmt: skip
    return found


def run_kernels(files: list[Any], way: str) -> tuple[dict[str, float], dict[str, str]]:
    """The seconds of each kernel over ``files`` one ``way``, and its outputs' sha256."""
    options = FragmentOptions()
    k, window = options.k, options.window
    os.environ[PURE] = WAYS[way]
    seconds = dict.fromkeys(KERNELS, 0.0)
    digests = {kernel: hashlib.sha256() for kernel in KERNELS}
    work: dict[str, Callable[[Any], Any]] = {
        KERNELS[0]: lambda f: kgram_hashes(f[0], k),
        KERNELS[1]: lambda f: kgram_array(f[0], k),
        KERNELS[2]: lambda f: winnow(f[2], window),
        KERNELS[3]: lambda f: Kgrams.selecting(f[2], f[3]),
        KERNELS[4]: lambda f: Kgrams.of(f[0], k, window, f[1]),
        KERNELS[5]: lambda f: shingling.measure(f[4], f[5]),
        KERNELS[6]: lambda f: exact_matches(
            f[0], f[6], k=k, window=window, max_repeats=options.max_repeats, kgrams=f[7]
        ),
        KERNELS[7]: lambda f: TokenSpans.of(f[4], options.shingling, f[5]),
        KERNELS[8]: lambda f: mask(f[5], f[4], f[8], k),
    }
    shingling = Shingling()  # what a scan without --fragments measures
    try:
        for kernel, step in work.items():
            for file in files:
                started = time.perf_counter()
                got = step(file)
                seconds[kernel] += time.perf_counter() - started
                if kernel == KERNELS[5]:  # a set: in no particular order
                    got = got[0], sorted(got[1])
                digests[kernel].update(pickle.dumps(got))
    finally:
        del os.environ[PURE]
    return seconds, {kernel: digest.hexdigest() for kernel, digest in digests.items()}


def scan(tree: Path, jobs: int, way: str, out: Path, *options: str) -> tuple[float, str]:
    """``scan`` with ``options`` of ``tree`` in a fresh process one ``way``: its wall time
    and its output's sha256."""
    output = out / f"{way}.jsonl"
    command = [sys.executable, "-m", "samecode", "scan", str(tree), *options, "--format",
               "jsonl", "-q", "--jobs", str(jobs), "--output", str(output)]  # fmt: skip
    os.environ[PURE] = WAYS[way]
    try:
        wall = timed(command).wall
    finally:
        del os.environ[PURE]
    return wall, hashlib.sha256(output.read_bytes()).hexdigest()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scan-repeat", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--tree", type=Path, default=Path(sysconfig.get_paths()["stdlib"]))
    parser.add_argument("--wait-idle", type=float, default=120.0)
    args = parser.parse_args()
    # the scans' processes import this checkout's package, as this one does
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(SRC), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    files = inputs(args.tree)
    tokens = sum(len(ids) for ids, *_ in files)
    print(f"[{len(files)} files, {tokens:,} tokens]", file=sys.stderr)
    for way in WAYS:  # numpy imported, caches warm: not timed
        run_kernels(files[:20], way)
    measured: dict[str, list[dict[str, float]]] = {way: [] for way in WAYS}
    digests: dict[str, dict[str, str]] = {}
    for number in range(args.repeat):
        print(f"[kernels: repeat {number + 1} of {args.repeat}]", file=sys.stderr)
        for way in WAYS:
            wait_idle(args.wait_idle)
            seconds, digests[way] = run_kernels(files, way)
            measured[way].append(seconds)
        if digests["pure"] != digests["numpy"]:
            raise SystemExit(f"the kernels' outputs differ: {digests}")
    scans = {"scan": (), "scan --fragments": ("--fragments",)}
    walls = {(name, way): [] for name in scans for way in WAYS}
    outputs: dict[tuple[str, str], set[str]] = {key: set() for key in walls}
    with tempfile.TemporaryDirectory() as out:
        for number in range(args.scan_repeat):
            print(f"[scans: repeat {number + 1} of {args.scan_repeat}]", file=sys.stderr)
            for name, options in scans.items():
                for way in WAYS:
                    wait_idle(args.wait_idle)
                    wall, digest = scan(args.tree, args.jobs, way, Path(out), *options)
                    walls[name, way].append(wall)
                    outputs[name, way].add(digest)
    median = {
        way: {kernel: statistics.median(m[kernel] for m in runs) for kernel in KERNELS}
        for way, runs in measured.items()
    }
    lines = [
        f"{args.tree}: {len(files):,} files, {tokens:,} tokens; medians of {args.repeat} runs",
        "",
        "| kernel | pure (s) | numpy (s) | pure / numpy | ns per token, pure / numpy |",
        "|---|---|---|---|---|",
    ]
    for kernel in KERNELS:
        pure, fast = median["pure"][kernel], median["numpy"][kernel]
        lines.append(
            f"| {kernel} | {pure:.3f} | {fast:.3f} | {pure / fast:.1f}x | "
            f"{pure / tokens * 1e9:.0f} / {fast / tokens * 1e9:.0f} |"
        )
    wall = {key: statistics.median(got) for key, got in walls.items()}
    same = True
    lines.append("")
    lines.append(
        f"- outputs of every kernel identical both ways (sha256 of their pickles): "
        f"{digests['pure'] == digests['numpy']}"
    )
    for name in scans:
        pure, fast = outputs[name, "pure"], outputs[name, "numpy"]
        alike = pure == fast and len(pure) == 1
        same = same and alike
        lines.append(
            f"- `{name} --jobs {args.jobs}`, median of {args.scan_repeat}: pure "
            f"{wall[name, 'pure']:.1f} s, numpy {wall[name, 'numpy']:.1f} s "
            f"({wall[name, 'pure'] / wall[name, 'numpy']:.2f}x); JSONL sha256 "
            f"{'identical' if alike else 'DIFFERENT'}: {sorted(pure | fast)}"
        )
    print("\n".join(lines))
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
