"""MinHashLSH: datasketch's bands and rows (against exact integrals), and buckets, queries,
removals, rankings and whole-set answers against brute force."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import combinations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from samecode.minhash import MinHash
from samecode.minhash.lsh import MinHashLSH
from samecode.minhash.oph import OnePermutationMinHash
from samecode.minhash.params import optimal_param

from reference import naive_lsh_bands, naive_optimal_param

POOL = [f"w{i}".encode() for i in range(40)]
DOCUMENTS = st.lists(
    st.sets(st.sampled_from(POOL), min_size=1, max_size=25), min_size=1, max_size=12
)


def signature(features: set[bytes], num_perm: int = 32) -> MinHash:
    m = MinHash(num_perm=num_perm)
    m.update_batch(sorted(features))
    return m


def jaccard(a: set[bytes], b: set[bytes]) -> float:
    return len(a & b) / len(a | b)


# -- bands and rows -------------------------------------------------------------------------


@pytest.mark.parametrize("num_perm", [16, 17, 24, 32])
def test_optimal_param_is_the_exact_minimum(num_perm: int) -> None:
    for step in range(1, 20):
        threshold = Fraction(step, 20)
        errors = sorted(naive_optimal_param(threshold, num_perm))
        best, runner_up = errors[0], errors[1]
        if runner_up[0] - best[0] < Fraction(1, 10**9):
            continue  # a near tie: quadrature may pick either, as scipy's may
        assert optimal_param(float(threshold), num_perm) == (best[1], best[2])


# Choices datasketch 2.0.0's _optimal_param made (the full table is checked by
# benchmarks/compat_datasketch.py --table); 512 is the largest size it covers.
DATASKETCH = {
    (0.5, 64): (14, 4),
    (0.5, 100): (20, 5),
    (0.5, 512): (73, 7),
    (0.8, 100): (8, 12),
    (0.8, 256): (17, 15),
    (0.9, 128): (5, 25),
    (0.9, 512): (16, 32),
}


@pytest.mark.parametrize(("threshold", "num_perm"), sorted(DATASKETCH))
def test_optimal_param_is_datasketchs_choice(threshold: float, num_perm: int) -> None:
    assert optimal_param(threshold, num_perm) == DATASKETCH[threshold, num_perm]
    lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
    assert (lsh.b, lsh.r) == DATASKETCH[threshold, num_perm]


@pytest.mark.parametrize(
    ("kwargs", "error", "rule"),
    [
        ({"threshold": 1.5}, ValueError, "threshold must be in"),
        ({"threshold": "0.5"}, TypeError, "threshold must be a number"),
        ({"num_perm": 1}, ValueError, "too few permutation functions"),
        ({"weights": (0.6, 0.6)}, ValueError, "weights must sum to 1.0"),
        ({"weights": (1.5, -0.5)}, ValueError, "weights must be in"),
        ({"weights": 0.5}, TypeError, "weights must be a pair"),
        ({"params": (3, 50)}, ValueError, "b \\* r <= num_perm"),
        ({"params": (1, 10)}, ValueError, "b >= 2"),
        ({"params": 4}, TypeError, "params must be"),
        ({"threshold": 0.9, "num_perm": 16}, ValueError, "too small \\(b < 2\\)"),
    ],
)
def test_bad_parameters_are_refused(kwargs: dict[str, object], error: type, rule: str) -> None:
    with pytest.raises(error, match=rule):
        MinHashLSH(**kwargs)  # type: ignore[arg-type]


# -- the index against brute force --------------------------------------------------------


@given(DOCUMENTS, st.sampled_from([(4, 8), (8, 4), (16, 2), (10, 3)]), st.data())
def test_query_finds_exactly_the_keys_sharing_a_band(
    documents: list[set[bytes]], params: tuple[int, int], data: st.DataObject
) -> None:
    b, r = params
    lsh = MinHashLSH(num_perm=32, params=params)
    signatures = [signature(d) for d in documents]
    for key, m in enumerate(signatures):
        lsh.insert(key, m)
    removed = set(data.draw(st.sets(st.sampled_from(range(len(documents))))))
    for key in removed:
        lsh.remove(key)
    kept = [k for k in range(len(documents)) if k not in removed]
    bands = {
        k: naive_lsh_bands(signatures[k].hashvalues.tolist(), b, r) for k in range(len(documents))
    }
    for key, m in enumerate(signatures):
        expected = {k for k in kept if any(x == y for x, y in zip(bands[k], bands[key]))}
        assert set(lsh.query(m)) == expected
        assert (key in lsh) == (key not in removed)
    assert len(lsh) == len(kept)
    assert lsh.keys() == kept
    pairs = {
        (i, j) for i, j in combinations(kept, 2) if any(x == y for x, y in zip(bands[i], bands[j]))
    }
    assert lsh.candidate_pairs() == pairs
    # Removing leaves no trace: the same as an index that never saw the removed keys.
    fresh = MinHashLSH(num_perm=32, params=params)
    for key in kept:
        fresh.insert(key, signatures[key])
    assert lsh._buckets == fresh._buckets


@given(DOCUMENTS, st.floats(0.3, 0.9))
def test_verified_answers_are_exact(documents: list[set[bytes]], threshold: float) -> None:
    lsh = MinHashLSH(threshold=threshold, num_perm=64)
    for key, features in enumerate(documents):
        lsh.insert(key, signature(features, 64))
    candidates = lsh.candidate_pairs()
    expected = sorted(
        ((i, j, jaccard(documents[i], documents[j])) for i, j in candidates),
        key=lambda p: (-p[2], p[0], p[1]),
    )
    assert lsh.find_all(verify=documents.__getitem__) == [p for p in expected if p[2] >= threshold]
    assert lsh.find_all(verify=documents.__getitem__, threshold=0.0) == expected
    estimated = lsh.find_all()
    assert {(i, j) for i, j, _ in estimated} == candidates
    for i, j, value in estimated:
        assert value == signature(documents[i], 64).jaccard(signature(documents[j], 64))
    query = signature(documents[0], 64)
    ranked = lsh.query_ranked(query, verify=documents.__getitem__, features=documents[0])
    exact = sorted(
        (
            (k, jaccard(documents[0], documents[k]))
            for k in lsh.query(query)
            if jaccard(documents[0], documents[k]) >= threshold
        ),
        key=lambda item: (-item[1], item[0]),
    )
    assert ranked == exact
    assert (
        lsh.query_ranked(query, verify=documents.__getitem__, features=documents[0], top_k=1)
        == exact[:1]
    )


def components(pairs: set[tuple[int, int]]) -> list[list[int]]:
    """The connected components of a graph given by its edges, by search from each node:
    largest first, then by least member, each sorted."""
    neighbours: dict[int, set[int]] = {}
    for i, j in pairs:
        neighbours.setdefault(i, set()).add(j)
        neighbours.setdefault(j, set()).add(i)
    seen: set[int] = set()
    found = []
    for start in sorted(neighbours):
        if start in seen:
            continue
        reach, frontier = {start}, [start]
        while frontier:
            for other in neighbours[frontier.pop()] - reach:
                reach.add(other)
                frontier.append(other)
        seen |= reach
        found.append(sorted(reach))
    return sorted(found, key=lambda group: (-len(group), group[0]))


@given(DOCUMENTS, st.lists(st.integers(0, 11), max_size=6), st.sampled_from([None, 0.3, 0.6, 1.0]))
def test_clusters_are_the_components_of_the_pairs(
    documents: list[set[bytes]], copied: list[int], verified_at: float | None
) -> None:
    documents = documents + [documents[i] for i in copied if i < len(documents)]
    lsh = MinHashLSH(threshold=0.5, num_perm=32)
    for key, features in enumerate(documents):
        lsh.insert(key, signature(features))
    if verified_at is None:  # every pair that shares a bucket
        groups = lsh.clusters()
        linked = {(i, j) for i, j, _ in lsh.find_all()}
    else:  # every such pair of exact Jaccard >= verified_at
        groups = lsh.clusters(verify=documents.__getitem__, threshold=verified_at)
        linked = {
            (i, j)
            for i, j in lsh.candidate_pairs()
            if jaccard(documents[i], documents[j]) >= verified_at
        }
    assert groups == components(linked)


def test_clusters_of_many_copies_verify_one_set_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # 2,000 copies of one set and a few others in the same buckets: a pair is verified only
    # between keys not linked yet and of different sets, never all 2 million pairs.
    import samecode.minhash.lsh

    compared = []
    exact = samecode.minhash.lsh.set_jaccard

    def counted(first: frozenset[bytes], second: frozenset[bytes]) -> float:
        compared.append(1)
        return exact(first, second)

    monkeypatch.setattr(samecode.minhash.lsh, "set_jaccard", counted)
    common = set(POOL[:30])
    documents = [common] * 2000 + [common - {POOL[i]} for i in range(5)]
    lsh = MinHashLSH(threshold=0.5, num_perm=32)
    for key, features in enumerate(documents):
        lsh.insert(key, signature(features))
    asked = []

    def features(key: int) -> set[bytes]:
        asked.append(key)
        return documents[key]

    assert lsh.clusters(verify=features, threshold=0.9) == [list(range(2005))]
    assert sorted(asked) == list(range(2005))  # each key's set once
    assert len(compared) <= 6 * lsh.b  # each distinct set against the others, a bucket
    assert lsh.clusters() == [list(range(2005))]


@given(DOCUMENTS, st.sampled_from([(4, 8), (8, 4), (16, 2)]), st.data())
def test_datasketchs_sessions_merge_counts_and_query_buffer(
    documents: list[set[bytes]], params: tuple[int, int], data: st.DataObject
) -> None:
    b, r = params
    signatures = [signature(d) for d in documents]
    whole = MinHashLSH(num_perm=32, params=params)
    for key, m in enumerate(signatures):
        whole.insert(key, m)
    split = data.draw(st.integers(0, len(documents)))
    left, right = MinHashLSH(num_perm=32, params=params), MinHashLSH(num_perm=32, params=params)
    with left.insertion_session(buffer_size=3) as session:
        for key in range(split):
            session.insert(key, signatures[key], check_duplication=False)
    for key in range(split, len(documents)):
        right.insert(key, signatures[key])
    left.merge(right)
    assert left._buckets == whole._buckets
    assert left.keys() == whole.keys() == list(range(len(documents)))
    assert len(right) == len(documents) - split  # the other index is unchanged
    # Counts: per band, how many keys have each band value (counted from the definition).
    bands = [naive_lsh_bands(m.hashvalues.tolist(), b, r) for m in signatures]

    def counted(keys: list[int]) -> list[list[int]]:
        return [sorted(Counter(bands[k][i] for k in keys).values()) for i in range(b)]

    assert [sorted(c.values()) for c in whole.get_counts()] == counted(list(whole.keys()))
    subset = data.draw(st.lists(st.sampled_from(range(len(documents))), max_size=5))
    assert [sorted(c.values()) for c in whole.get_subset_counts(*subset)] == counted(
        sorted(set(subset))
    )
    # The query buffer: the keys every buffered query finds.
    queries = data.draw(st.lists(st.sampled_from(range(len(documents))), max_size=3))
    for key in queries:
        whole.add_to_query_buffer(signatures[key])
    expected = (
        set.intersection(*(set(whole.query(signatures[k])) for k in queries)) if queries else set()
    )
    assert sorted(whole.collect_query_buffer()) == sorted(expected)
    assert whole.collect_query_buffer() == []
    with whole.deletion_session() as removals:
        for key in queries:
            if key in whole:
                removals.remove(key)
    assert set(whole.keys()) == set(range(len(documents))) - set(queries)


def test_datasketchs_names_refuse_what_they_cannot_do() -> None:
    lsh = MinHashLSH(threshold=0.5, num_perm=32)
    lsh.insert("a", signature({b"x"}))
    with pytest.raises(ValueError, match="already in the index"):  # checked either way
        lsh.insert("a", signature({b"y"}), check_duplication=False)
    with pytest.raises(TypeError, match="check_duplication must be a bool; got str"):
        lsh.insert("b", signature({b"y"}), check_duplication="no")  # type: ignore[arg-type]
    for bad, error in ((0, ValueError), (2.5, TypeError), (True, TypeError)):
        with pytest.raises(error, match="buffer_size"):
            lsh.insertion_session(buffer_size=bad)  # type: ignore[arg-type]
        with pytest.raises(error, match="buffer_size"):
            lsh.deletion_session(buffer_size=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not in the index"):
        lsh.get_subset_counts("a", "zzz")
    with pytest.raises(TypeError, match="can merge only a MinHashLSH; got dict"):
        lsh.merge({})  # type: ignore[arg-type]
    other = MinHashLSH(threshold=0.5, num_perm=32)
    other.insert("b", signature({b"y"}))
    other.insert("a", signature({b"z"}))
    with pytest.raises(ValueError, match="the key 'a' is in both indexes; nothing merged"):
        lsh.merge(other)
    assert lsh.keys() == ["a"]  # nothing merged
    assert "b" not in lsh
    assert (lsh.b, lsh.r) != (16, 2)
    with pytest.raises(ValueError, match="num_perm 32, b 16, r 2 into one of num_perm 32, b"):
        lsh.merge(MinHashLSH(num_perm=32, params=(16, 2)))
    seeded = MinHashLSH(threshold=0.5, num_perm=32)
    seeded.insert("c", MinHash(num_perm=32, seed=2))
    with pytest.raises(ValueError, match="scheme 'affine32' and seed 2 into one of scheme"):
        lsh.merge(seeded)
    empty = MinHashLSH(threshold=0.5, num_perm=32)
    empty.merge(seeded)  # an empty index takes the other's signatures
    with pytest.raises(ValueError, match="holds MinHash of scheme 'affine32' and seed 2"):
        empty.insert("d", signature({b"x"}))
    with pytest.raises(TypeError, match="expected a MinHash"):
        lsh.add_to_query_buffer("a")  # type: ignore[arg-type]


def test_ranked_estimates_and_top_k() -> None:
    lsh = MinHashLSH(threshold=0.3, num_perm=64)
    base = set(POOL[:30])
    versions = {"same": base, "most": set(POOL[:27]), "half": set(POOL[:15])}
    for key, features in versions.items():
        lsh.insert(key, signature(features, 64))
    query = signature(base, 64)
    ranked = lsh.query_ranked(query)
    assert ranked[0] == ("same", 1.0)
    assert [v for _, v in ranked] == sorted((v for _, v in ranked), reverse=True)
    assert lsh.query_ranked(query, top_k=1) == ranked[:1]
    with pytest.raises(ValueError, match="verify needs the query's features"):
        lsh.query_ranked(query, verify=versions.__getitem__)
    with pytest.raises(ValueError, match="top_k must be >= 0"):
        lsh.query_ranked(query, top_k=-1)
    with pytest.raises(ValueError, match="threshold must be in"):
        lsh.find_all(threshold=2.0)
    exact = lsh.query_ranked(query, verify=versions.__getitem__, features=base, threshold=0.6)
    assert exact == [("same", 1.0), ("most", 0.9)]


def test_one_permutation_sketches_are_indexed_too() -> None:
    lsh = MinHashLSH(threshold=0.5, num_perm=64)
    rng = random.Random(3)
    base = [rng.getrandbits(64) for _ in range(500)]
    for key, features in {"a": base, "b": base[:480], "c": base[250:]}.items():
        sketch = OnePermutationMinHash(64)
        sketch.update_hashes(features)
        lsh.insert(key, sketch)
    query = OnePermutationMinHash(64)
    query.update_hashes(base)
    assert sorted(lsh.query(query))[:2] == ["a", "b"]
    with pytest.raises(ValueError, match="this index holds MinHash of scheme 'one-permutation'"):
        lsh.query(MinHash(num_perm=64))


def test_refusals() -> None:
    lsh = MinHashLSH(threshold=0.5, num_perm=32)
    lsh.insert("a", signature({b"x"}))
    with pytest.raises(ValueError, match="already in the index"):
        lsh.insert("a", signature({b"y"}))
    with pytest.raises(ValueError, match="not in the index"):
        lsh.remove("zzz")
    with pytest.raises(ValueError, match="expecting a MinHash of 32 permutations; got 16"):
        lsh.insert("b", signature({b"x"}, 16))
    with pytest.raises(ValueError, match="holds MinHash of scheme 'affine32' and seed 1"):
        lsh.insert("b", MinHash(num_perm=32, seed=2))
    with pytest.raises(TypeError, match="expected a MinHash or OnePermutationMinHash"):
        lsh.query([1, 2, 3])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="a key must be hashable"):
        lsh.insert(["list"], signature({b"x"}))  # type: ignore[arg-type]
    assert ["list"] not in lsh
    assert "a" in lsh
    assert not lsh.is_empty()
    lsh.remove("a")  # the last key gone, another scheme is welcome
    lsh.insert("b", MinHash(num_perm=32, seed=2))
    assert lsh.keys() == ["b"]


def test_bands_and_rows_are_searched_up_to_1024_permutations_only() -> None:
    from samecode.minhash.params import MAX_OPTIMISED_PERM, optimal_param

    assert MAX_OPTIMISED_PERM == 1024
    with pytest.raises(ValueError, match=r"up to 1024 .*got 65536: give params=\(b, r\)"):
        optimal_param(0.5, 65536)  # would take days
    with pytest.raises(ValueError, match="give params"):
        MinHashLSH(threshold=0.5, num_perm=5000)
    lsh = MinHashLSH(threshold=0.5, num_perm=5000, params=(50, 100))
    assert (lsh.b, lsh.r) == (50, 100)
