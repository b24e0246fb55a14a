"""Where numpy starts to pay for seeding exact matches: each candidate pair of a real scan
timed both ways, by its number of fingerprints.

    python benchmarks/bench_seed_paths.py TREE [--every 4]

Runs ``samecode scan TREE --fragments --jobs 1`` in this process, keeps every
``--every``-th pair that :func:`~samecode.fragments.regions.exact_matches` is given,
then times that call on each kept pair in pure Python and on numpy (best of two), and
prints, by the pair's fingerprints (both files' together, in powers of two), the pairs
and the mean time each way. :func:`exact_matches` takes numpy from the size where it is
the faster (its ``use_numpy(..., calls=)``).
"""

from __future__ import annotations

import argparse
import collections
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from samecode import _kernels
from samecode.cli import main as samecode_main
from samecode.fragments import regions


def captured(tree: str, every: int) -> list[tuple[Any, Any, dict[str, Any]]]:
    """The arguments of every ``every``-th call of ``exact_matches`` in a scan of ``tree``."""
    kept: list[tuple[Any, Any, dict[str, Any]]] = []
    calls = 0
    original = regions.exact_matches

    def keeping(a: Any, b: Any, **options: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls % every == 0:
            kept.append((a, b, options))
        return original(a, b, **options)

    regions.exact_matches = keeping  # type: ignore[assignment]
    try:
        with tempfile.TemporaryDirectory() as folder:
            out = str(Path(folder) / "out.jsonl")
            samecode_main(["scan", tree, "--fragments", "--jobs", "1", "-q", "--no-gitignore",
                           "--format", "jsonl", "--output", out])  # fmt: skip
    except SystemExit:
        pass
    finally:
        regions.exact_matches = original  # type: ignore[assignment]
    return kept


def best_time(a: Any, b: Any, options: dict[str, Any], pure: bool) -> float:
    os.environ[_kernels.PURE] = "1" if pure else "0"
    best = float("inf")
    for _ in range(2):
        start = time.perf_counter()
        regions.exact_matches(a, b, **options)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("tree")
    parser.add_argument("--every", type=int, default=4)
    args = parser.parse_args()
    pairs = captured(args.tree, args.every)
    _kernels.MIN_LENGTH = 0  # each way whatever the size
    sizes: dict[int, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for a, b, options in pairs:
        mine, theirs = options["kgrams"]
        size = len(mine.selected) + len(theirs.selected)
        row = sizes[size.bit_length()]
        row[0] += 1
        row[1] += best_time(a, b, options, pure=True)
        row[2] += best_time(a, b, options, pure=False)
    print(f"{len(pairs):,} pairs of {args.tree}")
    print("| fingerprints | pairs | pure (ms) | numpy (ms) | pure / numpy |")
    print("|---|---|---|---|---|")
    for bits in sorted(sizes):
        count, pure, fast = sizes[bits]
        low = 2 ** (bits - 1) if bits else 0
        print(f"| {low:,}-{2**bits - 1:,} | {count:,} | {pure * 1000 / count:.3f} | "
              f"{fast * 1000 / count:.3f} | {pure / fast:.2f} |")  # fmt: skip


if __name__ == "__main__":
    main()
