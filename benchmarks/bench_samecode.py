"""Time this project against SameCode 0.5.1, side by side in one run.

Usage: ``python benchmarks/bench_samecode.py [--repeat N] [--quick]``

Each task runs in a fresh process (``_worker.py``), alternating ours and 0.5.1's (which
lives in a virtual environment of its own), ``--repeat`` times each; the table gives the
median seconds and the ratio. Both sides must produce the same output (its SHA-256 is
compared), so a fast wrong answer cannot pass. The floor is the bare ``hashlib`` calls
over the same tokens: no halo hash can be faster than hashing every feature once.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
from typing import Any

from _refenv import peer_python, run_worker

REFERENCE = "samecode==0.5.1"


def _median_run(python: Any, request: dict[str, Any], repeat: int) -> tuple[float, str]:
    results = [run_worker(python, request) for _ in range(repeat)]
    digests = {r["result_sha256"] for r in results}
    if len(digests) != 1:
        raise RuntimeError(f"{request} gave different results on different runs")
    return statistics.median(r["seconds"] for r in results), digests.pop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per task and side (>= 3)")
    parser.add_argument("--quick", action="store_true", help="a tenth of the data, to try it out")
    args = parser.parse_args(argv)
    if args.repeat < 3 and not args.quick:
        parser.error("--repeat must be at least 3 for a median worth reporting")
    scale = 10 if args.quick else 1
    reference = peer_python("samecode-0.5.1", REFERENCE)
    ours = sys.executable
    tasks = [
        (
            "BitAverageHaloHash(200k tokens), 128 bits",
            {"task": "halo_list", "size": 128, "count": 200_000},
        ),
        (
            "BitAverageHaloHash(200k tokens), 256 bits",
            {"task": "halo_list", "size": 256, "count": 200_000},
        ),
        ("200k x update(token), 128 bits", {"task": "halo_update", "size": 128, "count": 200_000}),
        ("200k x update(token), 256 bits", {"task": "halo_update", "size": 256, "count": 200_000}),
        ("select_ngrams, 1M 4-grams of str", {"task": "select_ngrams_str", "count": 1_000_000}),
        ("select_ngrams, 1M 4-grams of int", {"task": "select_ngrams_int", "count": 1_000_000}),
    ]
    rows = []
    for label, request in tasks:
        request = {"op": "bench", **request, "count": request["count"] // scale}
        theirs_s, theirs_out = _median_run(reference, request, args.repeat)
        ours_s, ours_out = _median_run(ours, request, args.repeat)
        if ours_out != theirs_out:
            raise RuntimeError(f"{label}: outputs differ from 0.5.1")
        floor = ""
        if request["task"].startswith("halo"):
            floor_s, _ = _median_run(ours, {**request, "task": "hashlib_floor"}, args.repeat)
            floor = f"{floor_s:.3f} s ({ours_s / floor_s:.2f}x)"
        rows.append((label, theirs_s, ours_s, theirs_s / ours_s, floor))
    print(
        f"Python {platform.python_version()} on {platform.machine()}; median of {args.repeat} runs"
        + (" (quick: a tenth of the data)" if args.quick else "")
    )
    print()
    header = ("task", "0.5.1", "samecode", "speed-up", "hashlib floor (ours / floor)")
    widths = [max(len(header[0]), *(len(r[0]) for r in rows)), 9, 9, 8, 28]
    line = " | ".join(h.ljust(w) for h, w in zip(header, widths))
    print(line)
    print("-|-".join("-" * w for w in widths))
    for label, theirs_s, ours_s, ratio, floor in rows:
        cells = (label, f"{theirs_s:.3f} s", f"{ours_s:.3f} s", f"{ratio:.1f}x", floor)
        print(" | ".join(c.ljust(w) for c, w in zip(cells, widths)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
