"""Feed millions of features to one hash, one update() at a time, and measure peak memory.

Usage: ``python benchmarks/bench_memory.py [--features N] [--size BITS]``

Prints the process's peak resident memory (RSS) before and after, and the growth. If the
hash kept its features' hashes, 10 million features would need at least 160 MB (16 bytes
of MD5 each, before any object overhead); a bounded hash grows by about its 1 MiB buffer.
Linux and macOS only (``resource.getrusage``).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

from samecode.halohash import BitAverageHaloHash


def peak_rss_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--features", type=int, default=10_000_000)
    parser.add_argument("--size", type=int, default=128)
    args = parser.parse_args(argv)
    h = BitAverageHaloHash(size_in_bits=args.size)
    h.update(b"warm-up")
    before = peak_rss_mb()
    start = time.perf_counter()
    update = h.update
    features = [b"%d" % i for i in range(1000)]  # reused: the input itself takes no memory
    for i in range(args.features):
        update(features[i % 1000])
    digest = h.hexdigest().decode()
    elapsed = time.perf_counter() - start
    after = peak_rss_mb()
    print(f"{args.features:,} features at {args.size} bits, one update() each: {elapsed:.1f} s")
    print(f"digest {digest}; elements_count {h.elements_count:,}")
    print(f"peak RSS before {before:.1f} MB, after {after:.1f} MB, growth {after - before:.1f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
