"""The Spark engine against the single machine and against Spark MLlib's MinHashLSH, on a
generated corpus with planted near-duplicates; time and shuffle bytes per stage.

    python benchmarks/bench_spark.py --documents 100000 [--master local[2]]
        [--partitions N] [--threshold 0.8] [--seed 1] [--skew 2100]
        [--driver-memory 1g] [--cases local,spark,mllib] [--tables 8]
        [--workdir /tmp/samecode-bench-spark] [--json results.json]

The corpus (about ``--documents`` texts, written once as Parquet by Spark itself, so
the driver never holds it): families of one text of 80 to 200 words drawn from 5,000,
every tenth family with one or two planted near-copies (one to three words replaced);
and ``--skew`` texts sharing a common body of 150 words with two words of their own each
(one key shared by more documents than a block of 2,048, so the job cuts it into block
tasks; all its pairs are true pairs, ``skew**2 / 2`` of them, the same at every size).
Every text is a function of the seed and its family's number, so the executors and this
process make the same corpus independently.

Cases:

* ``local``: :func:`~samecode.scan.pipeline.read_contents` and
  :func:`~samecode.scan.pipeline.run_pipeline` here (``--local-jobs`` processes);
* ``spark``: :func:`~samecode.spark.job.scan_dataframe` over the Parquet corpus on
  ``--master``, the pairs, classes and keep/remove list written as Parquet, then
  :meth:`~samecode.spark.job.SparkScan.collect` (what ``samecode scan --engine spark``
  does); per stage (the jobs the scan names ``samecode: <stage>``): wall time and the
  shuffle bytes written and read, from Spark's status REST API;
* ``mllib``: ``MinHashLSH(numHashTables=T).approxSimilarityJoin`` at Jaccard distance
  ``1 - threshold`` (plus 1e-12: MLlib keeps distances strictly below it) over the same
  shingle sets (sparse vectors of 2,000,000,000 dimensions, indexes the shingles modulo
  that), the pairs written as Parquet; each ``T`` of ``--tables``. Its recall (of the
  exact pairs) and precision are counted in Spark.

Checked, not trusted: the Spark pairs are the local ones, each with the same counts, and
every reported value is recomputed here from the shingle sets (``|A & B|`` and
``|A | B|`` of Python sets, the float of their ratio); every planted pair whose Jaccard
reaches the threshold is found (all of this needs the ``local`` case; ``--cases spark``
alone times Spark without checking, for sizes this process cannot hold). The load of the
machine (``/proc/loadavg`` sampled every
5 s) is printed with every case. Not part of CI.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from samecode.engine import engine_for
from samecode.scan.model import Document
from samecode.scan.pipeline import ScanOptions, read_contents, run_pipeline
from samecode.spark import SparkScan, scan_dataframe
from samecode.spark.session import memory_of

VOCABULARY = 5000
SKEW_BODY = 150
MLLIB_DIMENSIONS = 2_000_000_000


# -- the corpus ---------------------------------------------------------------------------


def copies_of(family: int) -> int:
    """Planted near-copies of a family's text: one or two for every tenth family."""
    return 0 if family % 10 else 1 + (family // 10) % 2


def families_for(documents: int, skew: int) -> int:
    """Families that make about ``documents`` texts with ``skew`` skewed ones."""
    per_twenty = 20 + 1 + 2  # twenty families hold three copies
    return max(1, (documents - skew) * 20 // per_twenty)


def family_rows(seed: int, families: int, number: int) -> list[tuple[str, str]]:
    """The ``(path, text)`` rows of item ``number``: a family below ``families``, else
    a skewed text."""
    if number >= families:
        body = random.Random(f"{seed}:skew").choices(range(VOCABULARY), k=SKEW_BODY)
        own = number - families
        words = [f"w{w}" for w in body] + [f"own{own}", f"x{own}"]
        return [(f"s{own:08}", " ".join(words))]
    rng = random.Random(f"{seed}:{number}")
    words = [f"w{w}" for w in rng.choices(range(VOCABULARY), k=rng.randrange(80, 200))]
    rows = [(f"d{number:08}", " ".join(words))]
    for copy in range(copies_of(number)):
        edited = list(words)
        for _ in range(rng.randrange(1, 4)):
            edited[rng.randrange(len(edited))] = f"w{rng.randrange(VOCABULARY)}"
        rows.append((f"d{number:08}-copy{copy}", " ".join(edited)))
    return rows


def planted(families: int) -> Iterator[tuple[str, str]]:
    for number in range(0, families, 10):
        for copy in range(copies_of(number)):
            yield f"d{number:08}", f"d{number:08}-copy{copy}"


def write_corpus(spark: Any, args: argparse.Namespace, families: int) -> str:
    target = Path(args.workdir) / f"corpus-{args.documents}-{args.skew}-{args.seed}.parquet"
    if not (target / "_SUCCESS").exists():
        seed = args.seed
        items = spark.sparkContext.parallelize(range(families + args.skew), args.partitions or 8)
        rows = items.flatMap(lambda number: family_rows(seed, families, number))
        frame = spark.createDataFrame(rows, "path string, content string")
        frame.write.mode("overwrite").parquet(str(target))
    return str(target)


# -- the machine's load ---------------------------------------------------------------------


class Load:
    """``/proc/loadavg``'s one-minute load, sampled every 5 s while a case runs."""

    def __init__(self) -> None:
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while True:
            self.samples.append(float(Path("/proc/loadavg").read_text().split()[0]))
            if self._stop.wait(5):
                return

    def __enter__(self) -> Load:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def text(self) -> str:
        s = self.samples
        return (
            f"load {s[0]:.2f} -> {s[-1]:.2f} (median {statistics.median(s):.2f}, max {max(s):.2f})"
        )


def busiest(count: int = 4) -> str:
    """The processes using the most CPU now (not this benchmark's)."""
    ours = {os.getpid(), *map(int, _children(os.getpid()))}
    rows = os.popen("ps -eo pid,pcpu,comm --sort=-pcpu --no-headers").read().splitlines()
    others = [r.split(None, 2) for r in rows if int(r.split()[0]) not in ours]
    return ", ".join(f"{name.strip()} {cpu}%" for _, cpu, name in others[:count])


def _children(pid: int) -> list[str]:
    found = os.popen(f"pgrep -P {pid}").read().split()
    return found + [c for child in found for c in _children(int(child))]


def timed(name: str, function: Any) -> tuple[float, Any, str]:
    with Load() as load:
        started = time.perf_counter()
        result = function()
        seconds = time.perf_counter() - started
    text = f"{load.text()}; others: {busiest()}"
    print(f"  {name}: {seconds:.1f} s; {text}", flush=True)
    return seconds, result, text


# -- Spark's own figures ------------------------------------------------------------------------


def stages(spark: Any) -> list[dict[str, Any]]:
    """Per job description: wall time (first submission to last completion of its jobs),
    shuffle bytes written and read (all its stages), from the status REST API."""
    base = spark.sparkContext.uiWebUrl + "/api/v1/applications/" + spark.sparkContext.applicationId

    def get(path: str) -> Any:
        with urllib.request.urlopen(base + path) as answer:
            return json.load(answer)

    def when(text: str) -> float:
        return time.mktime(time.strptime(text[:19], "%Y-%m-%dT%H:%M:%S")) + float(text[19:23])

    by_name: dict[str, dict[str, Any]] = {}
    stage_of = {}
    for stage in get("/stages?status=complete"):
        stage_of[stage["stageId"]] = stage
    for job in get("/jobs"):
        name = job.get("description") or "(unnamed)"
        entry = by_name.setdefault(
            name, {"stage": name, "start": 1e20, "end": 0.0, "write": 0, "read": 0, "jobs": 0}
        )
        entry["jobs"] += 1
        entry["start"] = min(entry["start"], when(job["submissionTime"]))
        entry["end"] = max(entry["end"], when(job.get("completionTime", job["submissionTime"])))
        for stage_id in job["stageIds"]:
            stage = stage_of.get(stage_id)
            if stage is not None:
                entry["write"] += stage["shuffleWriteBytes"]
                entry["read"] += stage["shuffleReadBytes"]
    out = sorted(by_name.values(), key=lambda e: e["start"])
    for entry in out:
        entry["seconds"] = entry["end"] - entry["start"]
    return out


# -- the cases ----------------------------------------------------------------------------------


def run_spark(spark: Any, corpus: str, options: ScanOptions, args: argparse.Namespace) -> Any:
    context = spark.sparkContext
    out = Path(args.workdir) / f"out-{args.documents}-{args.skew}"
    context.setJobDescription("bench: input")
    frame = spark.read.parquet(corpus)
    found: SparkScan = scan_dataframe(frame, options, partitions=args.partitions)
    context.setJobDescription("bench: write pairs, classes, decisions")
    found.pairs.write.mode("overwrite").parquet(str(out / "pairs"))
    found.classes.write.mode("overwrite").parquet(str(out / "classes"))
    found.decisions.write.mode("overwrite").parquet(str(out / "decisions"))
    context.setJobDescription(None)
    return found


def collect(spark: Any, found: SparkScan) -> Any:
    spark.sparkContext.setJobDescription("bench: collect to the driver")
    answer = found.collect()
    spark.sparkContext.setJobDescription(None)
    return answer


def mllib(
    spark: Any, corpus: str, options: ScanOptions, args: argparse.Namespace, tables: int
) -> str:
    from pyspark.ml.feature import MinHashLSH
    from pyspark.ml.linalg import Vectors

    spark.sparkContext.setJobDescription(f"mllib: T={tables}")
    shingling, max_size, min_tokens = options.shingling, options.max_size, options.min_tokens

    def vectors(rows: Any) -> Iterator[tuple[str, Any]]:
        for document in read_contents(
            [(r[0], r[1]) for r in rows], shingling, max_size, min_tokens
        ):
            if isinstance(document, Document):
                indexes = sorted({s % MLLIB_DIMENSIONS for s in document.shingles})
                yield document.path, Vectors.sparse(MLLIB_DIMENSIONS, indexes, [1.0] * len(indexes))

    rdd = spark.read.parquet(corpus).rdd.mapPartitions(vectors)
    frame = spark.createDataFrame(rdd, ["path", "features"])
    model = MinHashLSH(
        inputCol="features", outputCol="hashes", numHashTables=tables, seed=args.seed
    )
    model = model.fit(frame)
    distance = float(1 - options.exact_threshold) + 1e-12
    joined = model.approxSimilarityJoin(frame, frame, distance, distCol="distance")
    target = str(Path(args.workdir) / f"out-{args.documents}-{args.skew}" / f"mllib-{tables}")
    joined.selectExpr("datasetA.path AS a", "datasetB.path AS b", "distance").where(
        "a < b"
    ).write.mode("overwrite").parquet(target)
    spark.sparkContext.setJobDescription(None)
    return target


def quality(spark: Any, target: str, exact_pairs: str) -> tuple[int, float, float]:
    found = spark.read.parquet(target).select("a", "b").distinct()
    exact = spark.read.parquet(exact_pairs).select("a", "b")
    proposed, total = found.count(), exact.count()
    hit = found.join(exact, ["a", "b"]).count()
    return proposed, hit / max(1, total), hit / max(1, proposed)


# -- main ------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=2000)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument(
        "--partitions",
        type=int,
        default=None,
        help="partitions of the job's stages (default: the job's own choice)",
    )
    parser.add_argument("--threshold", type=float, default=0.8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--skew", type=int, default=2100)
    parser.add_argument("--driver-memory", default=None)
    parser.add_argument("--cases", default="local,spark,mllib")
    parser.add_argument("--local-jobs", type=int, default=2)
    parser.add_argument("--tables", default="8", help="numHashTables to try, comma-separated")
    parser.add_argument("--workdir", default="/tmp/samecode-bench-spark")
    parser.add_argument("--json", default=None, help="also write the results here")
    args = parser.parse_args()
    cases = set(args.cases.split(","))
    Path(args.workdir).mkdir(parents=True, exist_ok=True)
    print(f"{' '.join(sys.argv)}  ({time.strftime('%Y-%m-%d %H:%M:%S %Z')})", flush=True)

    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master(args.master)
        .appName("bench_spark")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.ui.retainedJobs", "100000")
        .config("spark.ui.retainedStages", "100000")
        .config("spark.local.dir", str(Path(args.workdir) / "spark-local"))
        # Counting recall joins two sets of pairs: a shuffle, not a broadcast to the driver.
        .config("spark.sql.autoBroadcastJoinThreshold", "-1")
    )
    memory = memory_of(args.driver_memory)
    if memory is not None:
        builder = builder.config("spark.driver.memory", memory)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    heap = spark.sparkContext._jvm.java.lang.Runtime.getRuntime().maxMemory()
    print(f"driver heap {heap / 2**20:.0f} MiB (spark.driver.memory {memory or 'default'})")

    families = families_for(args.documents, args.skew)
    _, path, _ = timed(
        "write the corpus (Parquet, by Spark)", lambda: write_corpus(spark, args, families)
    )
    options = ScanOptions(threshold=args.threshold)
    results: dict[str, Any] = {"command": " ".join(sys.argv), "heap_mib": heap // 2**20}

    results["documents"] = sum(
        1 + copies_of(number) if number < families else 1 for number in range(families + args.skew)
    )
    # Each document's shingles as the array it was read into (8 bytes a shingle; a
    # frozenset would take about 9 KiB a document, 9 GiB at a million); sets are made
    # for the pairs recomputed.
    sets: dict[str, Any] = {}
    local: dict[tuple[str, str], Any] = {}
    checked = "local" in cases
    if checked:
        rows = [
            row
            for number in range(families + args.skew)
            for row in family_rows(args.seed, families, number)
        ]

        def local_run() -> Any:
            read = read_contents(rows, options.shingling, options.max_size, options.min_tokens)
            documents = [d for d in read if isinstance(d, Document)]
            with engine_for(args.local_jobs) as engine:
                return documents, run_pipeline(documents, options, engine)

        seconds, (documents, pairs), load = timed(
            f"local (read, run_pipeline, jobs {args.local_jobs})", local_run
        )
        results["local"] = {"seconds": seconds, "load": load, "pairs": len(pairs)}
        local = {(p.a, p.b): p for p in pairs}
        sets = {d.path: d.shingles for d in documents}
        del documents, pairs, rows

    def jaccard(a: str, b: str) -> tuple[int, int, float]:
        first, second = set(sets[a]), set(sets[b])
        shared = len(first & second)
        union = len(first | second)
        return shared, union, shared / union

    reachable = [p for p in planted(families) if checked and jaccard(*p)[2] >= args.threshold]
    results["planted"], results["reachable"] = sum(1 for _ in planted(families)), len(reachable)
    missed = [p for p in reachable if p not in local]
    if missed:
        raise SystemExit(f"local: planted pairs missed: {missed[:5]}")

    if "spark" in cases:
        seconds, found, load = timed(
            "spark (scan_dataframe, write Parquet)", lambda: run_spark(spark, path, options, args)
        )
        collect_seconds, answer, collect_load = timed(
            "spark collect()", lambda: collect(spark, found)
        )
        per_stage = stages(spark)
        if checked:
            if len(answer.pairs) != len(local):
                raise SystemExit(f"spark found {len(answer.pairs)} pairs, local {len(local)}")
            for pair in answer.pairs:
                mine = local.get((pair.a, pair.b))
                shared, union, value = jaccard(pair.a, pair.b)
                if mine is None or (pair.shared, pair.a_shingles, pair.b_shingles) != (
                    mine.shared,
                    mine.a_shingles,
                    mine.b_shingles,
                ):
                    raise SystemExit(f"spark's pair {pair} is not the local one {mine}")
                if (
                    pair.shared != shared
                    or pair.a_shingles + pair.b_shingles - shared != union
                    or pair.jaccard != value
                ):
                    raise SystemExit(f"spark's pair {pair}: recomputed {shared}/{union} = {value}")
                if value < args.threshold:
                    raise SystemExit(f"spark's pair {pair} is below the threshold")
            print(f"  checked: {len(answer.pairs)} pairs, every value recomputed")
        print(f"  stats {found.stats}")
        results["spark"] = {
            "seconds": seconds,
            "load": load,
            "collect_seconds": collect_seconds,
            "collect_load": collect_load,
            "stats": found.stats,
            "pairs": len(answer.pairs),
            "classes": len(answer.classes),
            "stages": per_stage,
        }
        del answer
        found.release()
        print(
            f"  {'stage':<42} {'jobs':>4} {'seconds':>8} {'shuffle write':>14} {'shuffle read':>13}"
        )
        for entry in per_stage:
            print(
                f"  {entry['stage'][:42]:<42} {entry['jobs']:>4} {entry['seconds']:8.1f} "
                f"{entry['write'] / 2**20:11.1f} MiB {entry['read'] / 2**20:10.1f} MiB"
            )

    if "mllib" in cases:
        exact_pairs = str(Path(args.workdir) / f"out-{args.documents}-{args.skew}" / "pairs")
        results["mllib"] = []
        for tables in map(int, args.tables.split(",")):
            seconds, target, load = timed(
                f"mllib T={tables}", lambda t=tables: mllib(spark, path, options, args, t)
            )
            proposed, recall, precision = quality(spark, target, exact_pairs)
            print(f"  T={tables}: {proposed} pairs, recall {recall:.6f}, precision {precision:.6f}")
            results["mllib"].append(
                {
                    "tables": tables,
                    "seconds": seconds,
                    "load": load,
                    "pairs": proposed,
                    "recall": recall,
                    "precision": precision,
                }
            )

    print(json.dumps({k: v for k, v in results.items() if k != "spark"}, indent=1, default=str))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1, default=str))
    spark.stop()
    shutil.rmtree(Path(args.workdir) / "spark-local", ignore_errors=True)


if __name__ == "__main__":
    main()
