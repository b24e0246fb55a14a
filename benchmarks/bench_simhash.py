"""Speed of samecode's simhash and bucketed halo hashes, side by side with their peers.

Peers, each in a virtual environment of its own: simhash-py's C++ core through
``simhash-pybind`` and the pure-Python ``simhash`` package (1e0ng). Every figure is the
median of ``--repeat`` runs, and both sides' outputs are compared where they compute the
same thing.

    python benchmarks/bench_simhash.py --repeat 5
"""

from __future__ import annotations

import argparse
import hashlib
import random
import statistics
import sys
import time

from samecode import BucketAverageHaloHash, BucketedBitAverageHaloHash

from _refenv import peer_python, simhash_worker

PYBIND = ("simhash-pybind", "simhash-pybind==0.0.3")
PURE = ("simhash-1e0ng", "simhash==2.1.2")


def zipf_words(rng: random.Random, count: int, vocabulary: int = 20_000) -> list[str]:
    weights = [1 / (rank + 1) for rank in range(vocabulary)]
    names = [f"w{rank}x{rng.getrandbits(16):04x}" for rank in range(vocabulary)]
    return rng.choices(names, weights, k=count)


def median_seconds(function: object, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()  # type: ignore[operator]
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--features", type=int, default=1_000_000)
    parser.add_argument("--docs", type=int, default=10_000)
    args = parser.parse_args()
    ours = sys.executable
    pybind = str(peer_python(*PYBIND))
    pure = str(peer_python(*PURE))
    n, repeat = args.features, args.repeat

    print(f"1. compute over {n:,} pre-hashed 64-bit features (median of {repeat})")
    request = {"op": "bench", "task": "compute", "n": n, "repeat": repeat, "seed": 7}
    mine = simhash_worker(ours, {**request, "module": "samecode.fingerprints.simhash"})
    peer = simhash_worker(pybind, {**request, "module": "simhash"})
    assert mine["value"] == peer["value"], "compute outputs differ"
    ms, ps = float(mine["seconds"]), float(peer["seconds"])  # type: ignore[arg-type]
    compute_seconds = ms
    print(f"   samecode.fingerprints.simhash.compute {ms:.3f} s ({n / ms / 1e6:.1f} M/s)")
    print(f"   simhash-pybind compute   {ps:.3f} s ({n / ps / 1e6:.1f} M/s)  ratio {ps / ms:.2f}x")

    tokens = zipf_words(random.Random(3), n)
    print(f"2. 64-bit simhash from a list of {n:,} word tokens (Zipf, 20,000 words)")
    request = {"op": "bench", "task": "tokens", "tokens": tokens, "repeat": max(1, repeat // 2)}
    mine = simhash_worker(ours, {**request, "module": "samecode.fingerprints.simhash"})
    peer = simhash_worker(pure, {**request, "module": "simhash"})
    ms, ps = float(mine["seconds"]), float(peer["seconds"])  # type: ignore[arg-type]
    print(f"   samecode SimHash(tokens) {ms:.3f} s ({n / ms / 1e6:.2f} M/s)")
    print(f"   1e0ng Simhash(tokens)    {ps:.3f} s ({n / ps / 1e6:.2f} M/s)  ratio {ps / ms:.1f}x")
    print(f"   compute (1.) against 1e0ng from tokens: ratio {ps / compute_seconds:.1f}x")

    rng = random.Random(11)
    vocabulary = zipf_words(rng, 200_000)
    texts = [" ".join(rng.sample(vocabulary, 300)) + "." for _ in range(args.docs)]
    print(f"3. text to 64-bit simhash, {args.docs:,} documents of 300 words")
    request = {"op": "bench", "task": "texts", "texts": texts, "repeat": max(1, repeat // 2)}
    peer = simhash_worker(pure, {**request, "module": "simhash", "style": "1e0ng"})
    same = simhash_worker(
        ours, {**request, "module": "samecode.fingerprints.simhash", "style": "char4"}
    )
    words = simhash_worker(
        ours, {**request, "module": "samecode.fingerprints.simhash", "style": "words"}
    )
    # The same features, but 1e0ng keeps the *last* 8 bytes of each MD5 and samecode the
    # first 8 (as simhash-py does), so the values themselves differ.
    ps = float(peer["seconds"])  # type: ignore[arg-type]
    for label, result in (
        ("its features (char 4-grams)", same),
        ("from_text (word 3-grams)", words),
    ):
        seconds = float(result["seconds"])  # type: ignore[arg-type]
        print(f"   samecode, {label}: {seconds:.3f} s, ratio {ps / seconds:.1f}x")
    print(f"   1e0ng Simhash(text): {ps:.3f} s ({args.docs / ps:.0f} docs/s)")

    features = [f"feature-{i}".encode() for i in range(500_000)]
    print(f"4. bucketed halo hashes over {len(features):,} distinct features (in process)")
    floor = median_seconds(lambda: [hashlib.md5(f).digest() for f in features], repeat)
    for label, make in (
        ("BucketAverageHaloHash(128)", lambda: BucketAverageHaloHash(features, 128).digest()),
        (
            "BucketedBitAverageHaloHash(128, 8)",
            lambda: BucketedBitAverageHaloHash(features).digest(),
        ),
    ):
        seconds = median_seconds(make, repeat)
        print(
            f"   {label}: {len(features) / seconds / 1e6:.2f} M features/s "
            f"({seconds / floor:.2f}x the bare MD5 loop)"
        )


if __name__ == "__main__":
    main()
