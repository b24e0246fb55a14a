"""The Spark engine against the single machine and against Spark MLlib's MinHashLSH, on a
generated corpus with planted near-duplicates.

    python benchmarks/bench_spark.py --documents 2000 [--master local[2]] [--partitions 8]
        [--threshold 0.8] [--seed 1] [--repeat 1]

The corpus: ``--documents`` texts of 80 to 200 words drawn from 5,000, a tenth of them
with one or two planted near-copies (a few words replaced), a chain of edits, and a
key shared by many (a common body with two words of its own each). Cases, each timed
(wall, median of ``--repeat`` runs):

* ``local``: :func:`samecode.scan.pipeline.run_pipeline` over the documents, one process;
* ``spark``: :func:`samecode.spark.job.scan_dataframe` on ``--master``, its pairs
  collected;
* ``mllib``: ``MinHashLSH(numHashTables=T).approxSimilarityJoin`` at Jaccard distance
  ``1 - threshold`` over the same shingle sets (as sparse vectors of ``2**20``
  dimensions, indexes from the shingles' hashes), with ``T`` raised from 1 until it
  finds as many of the exact pairs as asked (``--recall``, 0.99), or 64.

Checked: the Spark pairs and values are the local ones, every planted pair whose exact
Jaccard reaches the threshold is found, and MLlib's recall of the exact pairs. Results
are printed as a table; the command line is the record of how they were made. Not part
of CI: it runs at small sizes in seconds; the issue's sizes (100 k to 1 M documents) take
hours on two cores.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

from samecode.scan.model import Document
from samecode.scan.pipeline import ScanOptions, read_contents, run_pipeline
from samecode.spark import scan_dataframe, session


def corpus(documents: int, seed: int) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """``(path, text)`` rows and the planted pairs."""
    rng = random.Random(seed)
    vocabulary = [f"w{i}" for i in range(5000)]
    rows: list[tuple[str, str]] = []
    planted: list[tuple[str, str]] = []
    body = rng.choices(vocabulary, k=150)
    while len(rows) < documents:
        number = len(rows)
        if number % 50 == 7:  # many documents sharing most of their keys
            rows.append((f"d{number:08}", " ".join([*body, f"own{number}", f"x{number}"])))
            continue
        words = rng.choices(vocabulary, k=rng.randrange(80, 200))
        rows.append((f"d{number:08}", " ".join(words)))
        if number % 10 == 0:
            for copy in range(rng.choice((1, 2))):
                edited = list(words)
                for _ in range(rng.randrange(1, 4)):
                    edited[rng.randrange(len(edited))] = rng.choice(vocabulary)
                name = f"d{number:08}-copy{copy}"
                rows.append((name, " ".join(edited)))
                planted.append((f"d{number:08}", name))
    return rows, planted


def timed(function: Any, repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def mllib(spark: Any, documents: list[Document], threshold: float, tables: int) -> set[Any]:
    from pyspark.ml.feature import MinHashLSH
    from pyspark.ml.linalg import Vectors

    size = 1 << 20
    rows = []
    for document in documents:
        indexes = sorted({shingle % size for shingle in document.shingles})
        rows.append((document.path, Vectors.sparse(size, indexes, [1.0] * len(indexes))))
    frame = spark.createDataFrame(rows, ["path", "features"])
    model = MinHashLSH(inputCol="features", outputCol="hashes", numHashTables=tables).fit(frame)
    joined = model.approxSimilarityJoin(frame, frame, 1 - threshold, distCol="distance")
    pairs = joined.selectExpr("datasetA.path AS a", "datasetB.path AS b").collect()
    return {(row.a, row.b) for row in pairs if row.a < row.b}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--threshold", type=float, default=0.8)
    parser.add_argument("--recall", type=float, default=0.99)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()

    rows, planted = corpus(args.documents, args.seed)
    options = ScanOptions(threshold=args.threshold)
    read = read_contents(rows, options.shingling, options.max_size, options.min_tokens)
    documents = [d for d in read if isinstance(d, Document)]
    local_time, local = timed(lambda: run_pipeline(documents, options), args.repeat)
    exact = {(p.a, p.b): p.jaccard for p in local}

    spark = session(args.master)
    frame = spark.createDataFrame(rows, "path string, content string").cache()
    frame.count()

    def on_spark() -> Any:
        found = scan_dataframe(frame, options, partitions=args.partitions)
        return found, found.collect()

    spark_time, (found, collected) = timed(on_spark, args.repeat)
    spark_pairs = {(p.a, p.b): p.jaccard for p in collected.pairs}
    if spark_pairs != exact:
        raise SystemExit("the Spark pairs differ from the local ones")
    sets = {d.path: set(d.shingles) for d in documents}

    def jaccard(a: str, b: str) -> float:
        return len(sets[a] & sets[b]) / len(sets[a] | sets[b])

    reachable = [tuple(sorted(p)) for p in planted if jaccard(*p) >= args.threshold]
    missed = [p for p in reachable if p not in exact]
    if missed:
        raise SystemExit(f"planted pairs missed: {missed[:5]}")

    tables, mllib_time, recall = 1, 0.0, 0.0
    while True:
        mllib_time, proposed = timed(
            lambda tables=tables: mllib(spark, documents, args.threshold, tables), args.repeat
        )
        recall = len(proposed & set(exact)) / max(1, len(exact))
        if recall >= args.recall or tables >= 64:
            break
        tables *= 2

    print(f"documents {len(rows)} (compared {len(documents)}), threshold {args.threshold}")
    print(f"exact pairs {len(exact)}; planted {len(planted)}, reaching it {len(reachable)}")
    print(f"{'case':<8} {'seconds':>8}  notes")
    print(f"{'local':<8} {local_time:8.2f}  run_pipeline, one process")
    print(
        f"{'spark':<8} {spark_time:8.2f}  {args.master}, {args.partitions} partitions; "
        f"same pairs and values; stats {found.stats}"
    )
    print(
        f"{'mllib':<8} {mllib_time:8.2f}  MinHashLSH numHashTables={tables}, "
        f"recall {recall:.4f} of the exact pairs"
    )


if __name__ == "__main__":
    main()
