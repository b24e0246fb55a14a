"""How well each fingerprint's Hamming distance tracks true similarity, on real code.

The pairs are the standard-library modules of two CPython versions installed here (the
same module name in both, so edits across releases give a whole range of similarity),
plus as many pairs of *different* modules as the low end. Each module becomes the set of
its 4-token shingles (:func:`samecode.code_tokens`, Python comment syntax); the truth is
the Jaccard similarity of two sets, and every fingerprint is computed from the same set.

Writes ``docs/_static/quality.json`` and draws ``docs/_static/quality.png`` with
matplotlib, which is installed in a virtual environment of its own.

    python benchmarks/bench_quality.py --old 3.10 --new 3.13
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
from pathlib import Path

from samecode import (
    BitAverageHaloHash,
    BucketAverageHaloHash,
    BucketedBitAverageHaloHash,
    SimHash,
    code_tokens,
)

from _refenv import HERE, peer_python

STATIC = HERE.parent / "docs" / "_static"
KINDS = {
    "SimHash 64": lambda f: SimHash(f, 64),
    "SimHash 128": lambda f: SimHash(f, 128),
    "BitAverageHaloHash 128": lambda f: BitAverageHaloHash([x.encode() for x in f], 128),
    "BucketAverageHaloHash 128": lambda f: BucketAverageHaloHash(f, 128),
    "BucketedBitAverageHaloHash 128/8": lambda f: BucketedBitAverageHaloHash(f, 128, buckets=8),
}


def stdlib(version: str) -> Path:
    found = subprocess.run(
        ["pyenv", "prefix", *[v for v in _versions() if v.startswith(version + ".")][-1:]],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return Path(found) / "lib" / f"python{version}"


def _versions() -> list[str]:
    out = subprocess.run(
        ["pyenv", "versions", "--bare"], capture_output=True, text=True, check=True
    )
    return sorted(out.stdout.split(), key=lambda v: [int(p) for p in v.split(".") if p.isdigit()])


def shingles(path: Path) -> set[str]:
    tokens = code_tokens(path.read_bytes(), line_comments=("#",), block_comments=())
    return {"\x1f".join(tokens[i : i + 4]) for i in range(len(tokens) - 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old", default="3.10")
    parser.add_argument("--new", default="3.13")
    parser.add_argument("--near", type=float, default=0.5, help="Jaccard of a near-duplicate")
    args = parser.parse_args()
    old, new = stdlib(args.old), stdlib(args.new)
    names = sorted({p.name for p in old.glob("*.py")} & {p.name for p in new.glob("*.py")})
    sets_old = {n: shingles(old / n) for n in names}
    sets_new = {n: shingles(new / n) for n in names}
    names = [n for n in names if len(sets_old[n]) >= 50 and len(sets_new[n]) >= 50]
    rng = random.Random(5)
    pairs = [(n, n) for n in names]
    pairs += [tuple(rng.sample(names, 2)) for _ in range(len(names))]
    prints = {
        kind: (
            {n: make(sorted(sets_old[n])) for n in names},
            {n: make(sorted(sets_new[n])) for n in names},
        )
        for kind, make in KINDS.items()
    }
    rows = []
    for a, b in pairs:
        sa, sb = sets_old[a], sets_new[b]
        row: dict[str, object] = {"old": a, "new": b, "jaccard": len(sa & sb) / len(sa | sb)}
        for kind in KINDS:
            fa, fb = prints[kind][0][a], prints[kind][1][b]
            row[kind] = fa.distance(fb)
            if kind in ("SimHash 128", "BitAverageHaloHash 128"):
                row[kind + " prefixes"] = {
                    n: (fa.prefix(n) ^ fb.prefix(n)).count() for n in (16, 32, 64)
                }
        rows.append(row)
    summary = {}
    print(
        f"{len(names)} modules in both {old} and {new}; {len(rows)} pairs; "
        f"near-duplicate: J >= {args.near}"
    )
    for kind in KINDS:
        width = int(kind.split()[1].split("/")[0])
        best = None
        for threshold in range(width // 2):
            hits = [r for r in rows if r[kind] <= threshold]  # type: ignore[operator]
            true = [r for r in rows if r["jaccard"] >= args.near]  # type: ignore[operator]
            tp = sum(1 for r in hits if r["jaccard"] >= args.near)  # type: ignore[operator]
            precision = tp / len(hits) if hits else 1.0
            recall = tp / len(true) if true else 1.0
            f1 = 2 * precision * recall / (precision + recall) if tp else 0.0
            if best is None or f1 > best[0]:
                best = (f1, threshold, precision, recall)
        assert best is not None
        correlation = statistics.correlation(
            [float(r["jaccard"]) for r in rows],
            [float(r[kind]) for r in rows],  # type: ignore[arg-type]
        )
        summary[kind] = {
            "width": width,
            "threshold": best[1],
            "f1": round(best[0], 3),
            "precision": round(best[2], 3),
            "recall": round(best[3], 3),
            "correlation": round(correlation, 3),
        }
        print(
            f"  {kind:34} best threshold d <= {best[1]:3} bits: precision {best[2]:.3f}, "
            f"recall {best[3]:.3f}, F1 {best[0]:.3f}; Pearson r(J, d) = {correlation:.3f}"
        )
    spread = {}
    for kind in ("SimHash 128", "BitAverageHaloHash 128"):
        full = [float(r[kind]) / 128 for r in rows]  # type: ignore[arg-type]
        spread[kind] = {}
        for n in (16, 32, 64):
            part = [r[kind + " prefixes"][n] / n for r in rows]  # type: ignore[index]
            error = statistics.pstdev([p - f for p, f in zip(part, full)])
            spread[kind][n] = round(error, 4)
        print(f"  {kind}: std. dev. of (prefix distance/N - full distance/128): {spread[kind]}")
    STATIC.mkdir(parents=True, exist_ok=True)
    data = {
        "old": str(old),
        "new": str(new),
        "near": args.near,
        "rows": rows,
        "summary": summary,
        "prefix_spread": spread,
        "kinds": list(KINDS),
    }
    (STATIC / "quality.json").write_text(json.dumps(data, indent=0))
    plotter = peer_python("plot", "matplotlib==3.9.2")
    subprocess.run(
        [
            str(plotter),
            "-I",
            str(HERE / "_plot_quality.py"),
            str(STATIC / "quality.json"),
            str(STATIC / "quality.png"),
        ],
        check=True,
    )
    print(f"wrote {STATIC / 'quality.json'} and {STATIC / 'quality.png'}")


if __name__ == "__main__":
    sys.exit(main())
