"""Corpus.match (a corpus of prefixes) is exact: it returns what comparing every query with
every stored file returns, and files that share a header do not make it slow."""

from __future__ import annotations

import random
import time
from array import array
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from samecode.corpus import match as corpus_match
from samecode.corpus.store import Corpus
from samecode.engine import ProcessPool
from samecode.scan.model import Document, Pair
from samecode.similarity import reaches, reaches_stored
from samecode.text.shingling import token_id


def document(path: str, shingles: set[int]) -> Document:
    return Document(path, len(shingles), "0" * 64, len(shingles), array("Q", sorted(shingles)))


def brute_force(
    queries: list[Document], known: list[Document], t: Fraction, measure: str
) -> list[Pair]:
    out = []
    for q in queries:
        for k in known:
            if q.path == k.path:
                continue
            shared = len(set(q.shingles) & set(k.shingles))
            n, m = len(q.shingles), len(k.shingles)
            ok = (
                reaches(shared, n, m, t, "jaccard")
                if measure == "jaccard"
                else reaches_stored(shared, m, t)
            )
            if ok:
                out.append(Pair(q.path, k.path, shared, n, m))
    return sorted(out, key=lambda p: (p.a, p.b))


# Small alphabets of shingles, so that sets overlap a lot (and hash order puts the same
# few shingles in every prefix); a few copies and near-copies of each other.
sets = st.lists(st.sets(st.integers(0, 40), max_size=25), min_size=1, max_size=12)


@settings(max_examples=120, deadline=None)
@given(
    known=sets,
    queries=sets,
    lowest=st.sampled_from([Fraction(1, 2), Fraction(2, 3), Fraction(4, 5)]),
    extra=st.sampled_from([Fraction(0), Fraction(1, 10), Fraction(1, 5)]),
    measure=st.sampled_from(["jaccard", "containment"]),
    shared_name=st.booleans(),
    batch=st.sampled_from([3, 1 << 22]),
)
def test_match_is_brute_force(known, queries, lowest, extra, measure, shared_name, batch):
    import os
    import tempfile

    t = min(Fraction(1), lowest + extra)
    scale = 1 << 58  # spread the hashes, so both signs of a 64-bit column are used
    stored = [document(f"/k/{i}", {v * scale + v for v in s}) for i, s in enumerate(known)]
    asked = [
        document(
            f"/k/{i}" if shared_name and i < len(stored) else f"/q/{i}",
            {v * scale + v for v in s},
        )
        for i, s in enumerate(queries)
    ]
    before = corpus_match.JOIN_SHINGLES
    corpus_match.JOIN_SHINGLES = batch  # tiny batches of queries and stored files too
    try:
        with (
            tempfile.TemporaryDirectory() as folder,
            Corpus.create(os.path.join(folder, "c.db"), min_threshold=lowest) as corpus,
        ):
            corpus.add(stored)
            found = corpus.match(asked, t, measure)
    finally:
        corpus_match.JOIN_SHINGLES = before
    assert found == brute_force(asked, stored, t, measure)


def test_a_shared_header_does_not_make_every_file_a_candidate(tmp_path):
    # 200 queries against 3,000 stored files, every file beginning with the same licence
    # header: the header's shingles are in every stored prefix (hash order), so a probe
    # per query made every stored file a candidate of every query (issue 20, item 16).
    # Shingle hashes as the shingling makes them: 64-bit digests.
    header = {token_id(f"licence {j}") for j in range(150)}

    def body(i: int) -> set[int]:
        return {token_id(f"{i} {j}") for j in range(300)}

    stored = [document(f"/k/{i}", header | body(i)) for i in range(3000)]
    queries = [document(f"/q/{i}", header | body(i) | {token_id(f"q{i}")}) for i in range(200)]
    queries += [document(f"/new/{i}", header | body(10_000 + i)) for i in range(200)]
    with Corpus.create(tmp_path / "c.db") as corpus:
        corpus.add(stored)
        started = time.perf_counter()
        found = corpus.match(queries)
        seconds = time.perf_counter() - started
    assert [(p.a, p.b) for p in found] == sorted((f"/q/{i}", f"/k/{i}") for i in range(200))
    assert seconds < 15, seconds  # was 40 s and more, verifying 3,000 files per query


def test_match_on_a_process_pool_and_a_read_only_corpus(tmp_path):
    # The join runs on the engine; the probe's temporary table is the connection's own,
    # so a corpus opened read-only answers too, and the file is left as it was.
    rng = random.Random(7)
    base = [rng.getrandbits(64) for _ in range(400)]
    known = [document(f"/k/{i}", {v for v in base if rng.random() < 0.9}) for i in range(30)]
    asked = [document(f"/q/{i}", {v for v in base if rng.random() < 0.9}) for i in range(20)]
    asked.append(document("/q/new", {rng.getrandbits(64) for _ in range(50)}))
    path = tmp_path / "c.db"
    with Corpus.create(path, min_threshold=Fraction(1, 2)) as corpus:
        corpus.add(known)
    before = path.read_bytes()
    expected = brute_force(asked, known, Fraction(4, 5), "jaccard")
    assert expected
    with Corpus.open(path, readonly=True) as corpus:
        assert corpus.match(asked, Fraction(4, 5)) == expected
        with ProcessPool(2) as engine:
            assert corpus.match(asked, Fraction(4, 5), engine=engine) == expected
            assert corpus.match(asked, Fraction(4, 5), "containment", engine=engine) == (
                brute_force(asked, known, Fraction(4, 5), "containment")
            )
    assert path.read_bytes() == before


def test_a_file_removed_while_a_match_runs_is_left_out_not_called_damage(tmp_path):
    path = tmp_path / "c.db"
    shingles = set(range(100, 140))
    with Corpus.create(path) as corpus:
        corpus.add([document(f"/known/{n}.py", shingles | {n}) for n in range(3)])
    query = document("/query.py", shingles)
    with Corpus.open(path, readonly=True) as corpus:
        probe = corpus._candidates.probe_batch

        def probe_then_removed(*args):  # another process removes a file meanwhile
            found = probe(*args)
            with Corpus.open(path) as other:
                assert other.remove(["/known/1.py"]) == 1
            return found

        corpus._candidates.probe_batch = probe_then_removed
        pairs = corpus.match([query], Fraction(4, 5))
    assert [pair.b for pair in pairs] == ["/known/0.py", "/known/2.py"]
