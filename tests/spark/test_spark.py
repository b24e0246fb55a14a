"""The Spark job gives one machine's answers: the same JSONL, byte for byte, for every
method and any number of partitions, with a giant class, identical copies, skipped files
and a key shared by more documents than a block."""

from __future__ import annotations

import dataclasses
import os
import random
import re
import subprocess
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar

import pytest

pytest.importorskip("pyspark")

from hypothesis import given, settings
from hypothesis import strategies as st

from samecode._groups import linked_groups
from samecode.cli import main
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.reports.pairs import Report, scan_parameters, to_jsonl
from samecode.scan.candidates import Method, method
from samecode.scan.model import Document
from samecode.scan.pipeline import ScanOptions, read_contents, run_pipeline, scan
from samecode.sources.walk import WalkOptions
from samecode.spark import connected_components, job, scan_dataframe, scan_files, session
from samecode.spark.session import memory_of


@pytest.fixture(scope="session")
def spark() -> Any:
    from pyspark import cloudpickle

    # The tests' own method travels to the workers by value (they cannot import this).
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    return session("local[2]", shuffle_partitions=4)


@dataclass(frozen=True)
class Blocked(Method):
    """A built-in method whose oversized groups are cut into blocks of three."""

    name: ClassVar[str] = "blocked"
    block: ClassVar[int | None] = 3
    inner: Any = None
    base: str = "exact"

    @property
    def needs_counts(self) -> bool:  # type: ignore[override]
        return method(self.base).needs_counts

    def prepare(
        self, threshold: Fraction, measure: Any, *, counts: Any = None, documents: int = 0
    ) -> Method:
        inner = method(self.base).prepare(threshold, measure, counts=counts, documents=documents)
        return Blocked(inner, self.base)

    def keys(self, shingles: Any) -> Any:
        return self.inner.keys(shingles)

    def propose(self, members: Any, table: Any, others: Any = None, cache: Any = None) -> Any:
        return self.inner.propose(members, table, others, cache)


def _words(rng: random.Random, count: int) -> list[str]:
    return [f"w{rng.randrange(400)}" for _ in range(count)]


def _edit(rng: random.Random, words: list[str], edits: int) -> list[str]:
    out = list(words)
    for _ in range(edits):
        out[rng.randrange(len(out))] = f"e{rng.randrange(10**6)}"
    return out


def _corpus(root: Any, seed: int = 7) -> None:
    rng = random.Random(seed)
    files: dict[str, str] = {}
    # a chain: each file an edit of the one before, so the ends are far apart
    words = _words(rng, 120)
    for i in range(14):
        files[f"chain/c{i:02}.txt"] = " ".join(words)
        words = _edit(rng, words, 3)
    # one key for many: a shared body and two words of their own each
    body = _words(rng, 80)
    for i in range(11):
        files[f"skew/s{i:02}.txt"] = " ".join([*body, f"own{i}a", f"own{i}b"])
    # identical copies, near pairs, and singletons
    copy = " ".join(_words(rng, 60))
    for i in range(4):
        files[f"copies/k{i}.txt"] = copy
    for i in range(6):
        base = _words(rng, 70)
        files[f"pairs/p{i}a.txt"] = " ".join(base)
        files[f"pairs/p{i}b.txt"] = " ".join(_edit(rng, base, 1 + i % 3))
    for i in range(8):
        files[f"single/u{i}.txt"] = " ".join(_words(rng, 50))
    files["skipped/short.txt"] = "too short"
    files["skipped/empty.txt"] = ""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "skipped" / "binary.bin").write_bytes(b"\x00\x01\x02")


def _jsonl(options: ScanOptions, pairs: Any, classes: Any, skipped: Any, compared: int) -> str:
    return to_jsonl(Report(scan_parameters(options), pairs, classes, skipped, compared))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: Any) -> str:
    root = tmp_path_factory.mktemp("corpus")
    _corpus(root)
    return str(root)


def _check_frames(found: Any, local: Any) -> None:
    rows = {(r.a, r.b): r for r in found.pairs.collect()}
    assert sorted(rows) == [(p.a, p.b) for p in local.pairs]
    assert all(rows[p.a, p.b].jaccard == p.jaccard for p in local.pairs)
    classes = sorted(found.classes.collect(), key=lambda r: r.id)
    assert [tuple(r.members) for r in classes] == [c.members for c in local.classes]
    assert [r.size for r in classes] == [len(c.members) for c in local.classes]
    decisions = {r.path: r for r in found.decisions.collect()}
    assert len(decisions) == len(local.documents)
    for number, clone in enumerate(local.classes, 1):
        for member in clone.members:
            row = decisions[member]
            assert row.keep == (member == clone.representative)
            assert row.duplicate_of == (None if row.keep else clone.representative)
            assert row["class"] == number
    in_class = {m for c in local.classes for m in c.members}
    assert all(r.keep for r in decisions.values() if r.path not in in_class)
    assert sorted(r.path for r in found.skipped.collect()) == sorted(s.path for s in local.skipped)


CASES = [
    ("exact", "jaccard", 0.7, 1),
    ("exact", "jaccard", 0.7, 4),
    ("exact", "containment", 0.8, 3),
    ("minhash", "jaccard", 0.7, 2),
    ("simhash", "jaccard", 0.6, 3),
    ("halo", "jaccard", 0.6, 2),
    (Blocked(), "jaccard", 0.5, 3),
    (Blocked(base="minhash"), "jaccard", 0.5, 2),
]


@pytest.mark.parametrize(("chosen", "measure", "threshold", "partitions"), CASES)
def test_spark_gives_the_jsonl_of_one_machine(
    spark, corpus, chosen, measure, threshold, partitions
):
    options = ScanOptions(
        method=chosen,
        measure=measure,
        threshold=threshold,
        walk=WalkOptions(gitignore=False, min_tokens=5),
    )
    local = scan([corpus], options)
    found = scan_files([corpus], options, partitions=partitions)
    answer = found.collect()
    expected = _jsonl(options, local.pairs, local.classes, local.skipped, len(local.documents))
    got = _jsonl(options, answer.pairs, answer.classes, answer.skipped, answer.compared)
    assert sorted(got.splitlines()) == sorted(expected.splitlines())
    assert got == expected
    assert local.pairs, "the corpus has pairs"
    assert len(local.classes[0].members) >= 8, "one class is large"
    if partitions == 4:
        _check_frames(found, local)
        found.release()  # what was cached is computed again
        assert found.pairs.count() == len(local.pairs)
    if isinstance(chosen, Blocked) and chosen.base == "exact":
        assert found.stats["oversized_keys"] >= 1
        assert found.stats["block_tasks"] >= 10


def test_star_classes_are_those_of_one_machine(spark, corpus):
    # The edit chain is one linked class; as stars it is cut, the same way on both.
    options = ScanOptions(
        threshold=0.7, chaining="star", walk=WalkOptions(gitignore=False, min_tokens=5)
    )
    local = scan([corpus], options)
    linked = scan([corpus], dataclasses.replace(options, chaining="linked"))
    assert len(local.classes) > len(linked.classes)
    answer = scan_files([corpus], options, partitions=3).collect()
    expected = _jsonl(options, local.pairs, local.classes, local.skipped, len(local.documents))
    got = _jsonl(options, answer.pairs, answer.classes, answer.skipped, answer.compared)
    assert got == expected
    assert '"pairs_between_classes": 0' not in got.splitlines()[0]


def test_a_dataframe_of_contents_gives_the_answer_of_its_files(spark, corpus):
    options = ScanOptions(
        method="minhash", threshold=0.7, walk=WalkOptions(gitignore=False, min_tokens=5)
    )
    local = scan([corpus], options)
    rows = [(str(p), p.read_bytes()) for p in sorted(Path(corpus).rglob("*")) if p.is_file()]
    frame = spark.createDataFrame(rows, "name string, data binary")
    found = scan_dataframe(frame, options, path="name", content="data", partitions=2)
    answer = found.collect()
    expected = _jsonl(options, local.pairs, local.classes, local.skipped, len(local.documents))
    got = _jsonl(options, answer.pairs, answer.classes, answer.skipped, answer.compared)
    assert sorted(got.splitlines()) == sorted(expected.splitlines())


def test_files_read_by_sparks_binary_file_source_give_the_answer_of_a_local_scan(spark, corpus):
    # Spark names the files by URI (file:/...); the answer is the same, path for path.
    options = ScanOptions(threshold=0.7, walk=WalkOptions(gitignore=False, min_tokens=5))
    local = scan([corpus], options)
    frame = spark.read.format("binaryFile").option("recursiveFileLookup", "true").load(corpus)
    answer = scan_dataframe(frame, options, partitions=3).collect()
    uri = {row.path: row.path.removeprefix("file:") for row in frame.select("path").collect()}
    # The source lists no empty file (the local scan reports it skipped, as empty).
    assert set(uri.values()) == {d.path for d in local.documents} | {
        s.path for s in local.skipped if s.reason != "empty"
    }
    assert answer.compared == len(local.documents)
    assert [(uri[p.a], uri[p.b], p.shared, p.a_shingles, p.b_shingles) for p in answer.pairs] == [
        (p.a, p.b, p.shared, p.a_shingles, p.b_shingles) for p in local.pairs
    ]
    assert [tuple(uri[m] for m in c.members) for c in answer.classes] == [
        c.members for c in local.classes
    ]
    assert local.pairs


def test_bad_frames_are_refused_clearly(spark):
    good = spark.createDataFrame([("a", "x y z")], "path string, content string")
    with pytest.raises(SamecodeValueError, match="no column 'text'"):
        scan_dataframe(good, content="text")
    numbers = spark.createDataFrame([(1, "x")], "path long, content string")
    with pytest.raises(SamecodeTypeError, match="column 'path' must be of type string"):
        scan_dataframe(numbers)
    nulls = spark.createDataFrame([(None, "x")], "path string, content string")
    with pytest.raises(SamecodeValueError, match="holds a null"):
        scan_dataframe(nulls)
    body = " ".join(f"w{i}" for i in range(30))
    twice = spark.createDataFrame([("a", body), ("a", body)], "path string, content string")
    with pytest.raises(SamecodeValueError, match="'a' twice"):
        scan_dataframe(twice)
    with pytest.raises(SamecodeTypeError, match="options must be ScanOptions"):
        scan_dataframe(good, "exact")  # type: ignore[arg-type]
    with pytest.raises(SamecodeValueError, match="partitions must be from 1"):
        scan_dataframe(good, partitions=0)


def test_nothing_to_compare_gives_empty_frames(spark):
    frame = spark.createDataFrame([("a", "short")], "path string, content string")
    found = scan_dataframe(frame, partitions=2)
    assert found.compared == 0
    assert found.pairs.count() == found.classes.count() == found.decisions.count() == 0
    assert [(r.path, r.reason) for r in found.skipped.collect()] == [("a", "too few tokens")]


@settings(max_examples=6, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=40))
def test_components_are_those_of_union_find(spark, edges):
    labels = dict(connected_components(spark.sparkContext.parallelize(edges, 2), 3).collect())
    groups = linked_groups([(a, b) for a, b in edges if a != b])
    expected = {node: min(group) for group in groups for node in group}
    assert labels == expected


def test_the_command_line_writes_the_same_report(spark, corpus, tmp_path, capsys):
    out = {}
    for engine in ("local", "spark"):
        target = tmp_path / f"{engine}.jsonl"
        args = ["scan", corpus, "--no-gitignore", "-t", "0.7", "--min-tokens", "5", "--quiet"]
        args += ["--engine", engine, "--format", "jsonl", "-o", str(target)]
        if engine == "spark":
            args += ["--spark-master", "local[2]", "--spark-partitions", "2"]
        assert main(args) == 0
        out[engine] = target.read_bytes()
    assert out["spark"] == out["local"]
    assert b'"type": "pair"' in out["local"]


@pytest.mark.parametrize("memory", ["4g", "512m", "1536M", "2T", "100000k"])
def test_a_size_as_spark_writes_it_is_the_drivers_memory(memory, monkeypatch):
    monkeypatch.setenv("SPARK_DRIVER_MEMORY", "junk")  # the argument wins
    assert memory_of(memory) == memory


@pytest.mark.parametrize("memory", ["", "4", "4 g", "4gb", "0g", "-1g", "1.5g", "g", "4g\n"])
def test_a_bad_driver_memory_is_refused_clearly(memory):
    with pytest.raises(
        SamecodeValueError, match="whole number and k, m, g or t.*" + re.escape(repr(memory))
    ):
        memory_of(memory)


def test_the_drivers_memory_comes_from_the_environment_else_sparks_default(monkeypatch):
    monkeypatch.delenv("SPARK_DRIVER_MEMORY", raising=False)
    assert memory_of() is None
    monkeypatch.setenv("SPARK_DRIVER_MEMORY", "3g")
    assert memory_of() == "3g"
    monkeypatch.setenv("SPARK_DRIVER_MEMORY", "three")
    with pytest.raises(SamecodeValueError, match=r"'three' \(from SPARK_DRIVER_MEMORY\)"):
        memory_of()
    with pytest.raises(SamecodeTypeError, match="driver memory must be a str"):
        memory_of(4096)  # type: ignore[arg-type]


def test_a_running_driver_keeps_its_memory(spark, monkeypatch):
    monkeypatch.delenv("SPARK_DRIVER_MEMORY", raising=False)
    # The fixture's driver runs with Spark's default, 1g: asking for it again is fine.
    assert session(driver_memory="1024m") is spark
    with pytest.raises(SamecodeValueError, match=r"fixed when its JVM starts.*with 1g; got '3g'"):
        session(driver_memory="3g")


def test_a_new_driver_gets_the_memory_asked_for(tmp_path):
    # A JVM of its own: this process's driver is already running.
    script = (
        "from samecode.spark import session\n"
        "spark = session('local[1]', driver_memory='1536m')\n"
        "print(spark.sparkContext._jvm.java.lang.Runtime.getRuntime().maxMemory())\n"
        "spark.stop()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "SPARK_DRIVER_MEMORY"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    heap = int(done.stdout.split()[-1])
    # The JVM reports a little less than -Xmx (a survivor space), never near the default.
    assert 1400 * 2**20 < heap <= 1536 * 2**20


def test_rows_are_read_in_batches_with_the_answer_of_one_machine(spark):
    # More rows than a batch (and than two) in one partition: the same pairs as locally.
    rng = random.Random(3)
    rows = []
    for i in range(900):
        words = _words(rng, 40)
        rows.append((f"r{i:04}", " ".join(words)))
        if i % 5 == 0:
            rows.append((f"r{i:04}-near", " ".join(_edit(rng, words, 1))))
    assert len(rows) > 2 * 512  # the job reads 512 rows at a time
    frame = spark.createDataFrame(rows, "path string, content string").coalesce(1)
    assert frame.rdd.getNumPartitions() == 1
    options = ScanOptions(threshold=0.7, walk=WalkOptions(min_tokens=5))
    found = scan_dataframe(frame, options, partitions=3).collect()
    read = read_contents(rows, options.shingling, options.walk.max_size, options.walk.min_tokens)
    local = run_pipeline([d for d in read if isinstance(d, Document)], options)
    assert found.pairs == local
    assert found.compared == len(rows)
    assert len(local) >= 100


def test_partitions_grow_with_the_input_and_the_answer_does_not_change(spark, corpus, monkeypatch):
    options = ScanOptions(threshold=0.7, walk=WalkOptions(gitignore=False, min_tokens=5))
    local = scan([corpus], options)
    expected = _jsonl(options, local.pairs, local.classes, local.skipped, len(local.documents))
    rows = [(str(p), p.read_bytes()) for p in sorted(Path(corpus).rglob("*")) if p.is_file()]
    frame = spark.createDataFrame(rows, "path string, content binary").coalesce(1)
    default = 2 * spark.sparkContext.defaultParallelism
    assert scan_dataframe(frame, options).stats["partitions"] == default
    assert scan_files([corpus], options).stats["partitions"] == default
    # Fewer documents a partition than the input over the default: more partitions than
    # the default, for the files and for a frame of one input partition (spread before it
    # is read). Just over the default: each partition costs every stage a task.
    from pyspark import RDD

    per = -(-len(rows) // (default + 2))
    monkeypatch.setattr(job, "DOCUMENTS_PER_PARTITION", per)
    many = -(-len(rows) // per)
    assert default < many <= default + 2
    spread: list[int] = []
    repartition = RDD.repartition

    def spy(rdd: Any, count: int) -> Any:
        spread.append(count)
        return repartition(rdd, count)

    monkeypatch.setattr(RDD, "repartition", spy)
    for found in (scan_dataframe(frame, options), scan_files([corpus], options)):
        assert found.stats["partitions"] == many
        answer = found.collect()
        got = _jsonl(options, answer.pairs, answer.classes, answer.skipped, answer.compared)
        assert sorted(got.splitlines()) == sorted(expected.splitlines())
    assert spread == [many]  # the frame's one input partition spread before reading
    # Partitions asked for are kept, whatever the size of the input, and so is the input.
    assert scan_dataframe(frame, options, partitions=2).stats["partitions"] == 2
    assert spread == [many]


def test_collect_gives_every_row_of_the_frames_in_order(spark, corpus):
    # collect() takes the rows a partition at a time; it gives what the frames hold.
    options = ScanOptions(threshold=0.7, walk=WalkOptions(gitignore=False, min_tokens=5))
    found = scan_files([corpus], options, partitions=5)
    answer = found.collect()
    rows = sorted((r.a, r.b, r.shared, r.a_shingles, r.b_shingles) for r in found.pairs.collect())
    assert [(p.a, p.b, p.shared, p.a_shingles, p.b_shingles) for p in answer.pairs] == rows
    assert [c.members for c in answer.classes] == [
        tuple(r.members) for r in sorted(found.classes.collect(), key=lambda r: r.id)
    ]
    assert len(rows) > 5
