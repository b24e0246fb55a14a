"""Plans, the batch engine, HammingIndex and simhash.find_all against brute force."""

from __future__ import annotations

import itertools
import random

import pytest
from bitarray import bitarray
from hypothesis import given, settings
from hypothesis import strategies as st

from samecode.fingerprints.simhash import SimHash, find_all
from samecode.halohash import BitAverageHaloHash
from samecode.hamming import allpairs as _allpairs
from samecode.hamming import plan as plan_module
from samecode.hamming.covering import covering_tables
from samecode.hamming.index import HammingIndex, fingerprint_value
from samecode.hamming.plan import Plan, choose_plan, even_blocks


def brute_query(items, value, distance):
    hits = [(k, (v ^ value).bit_count()) for k, v in items.items()]
    return sorted(((k, d) for k, d in hits if d <= distance), key=lambda h: (h[1], h[0]))


def brute_pairs(items, distance):
    keys = sorted(items)
    out = []
    for i, a in enumerate(keys):
        for b in keys[i + 1 :]:
            d = (items[a] ^ items[b]).bit_count()
            if d <= distance:
                out.append((a, b, d))
    return sorted(out, key=lambda p: (p[2], p[0], p[1]))


def brute_distinct_pairs(values, distance):
    """simhash-py's answer: pairs of distinct values, smaller first."""
    return {
        (min(a, b), max(a, b))
        for a, b in itertools.combinations(set(values), 2)
        if (a ^ b).bit_count() <= distance
    }


def brute_clusters(items, distance):
    parent = {k: k for k in items}

    def root(k):
        while parent[k] != k:
            k = parent[k]
        return k

    for a, b, _ in brute_pairs(items, distance):
        parent[root(b)] = root(a)
    groups = {}
    for k in sorted(items):
        groups.setdefault(root(k), []).append(k)
    return sorted((g for g in groups.values() if len(g) > 1), key=lambda g: (-len(g), g[0]))


def planted(rng, size, count, distance):
    """Random values, about a third of them within ``distance + 1`` bits of another."""
    values = []
    for _ in range(count):
        if values and rng.random() < 0.35:
            value = rng.choice(values)
            for _ in range(rng.randint(0, distance + 1)):
                value ^= 1 << rng.randrange(size)
        else:
            value = rng.getrandbits(size)
        values.append(value)
    return values


# -- plans ------------------------------------------------------------------------


@given(st.integers(2, 9), st.data())
@settings(max_examples=60, deadline=None)
def test_covering_tables_miss_no_difference(blocks, data):
    distance = data.draw(st.integers(0, blocks - 1))
    per_table = data.draw(st.integers(1, blocks - distance))
    tables = covering_tables(blocks, distance, per_table)
    assert all(len(t) == per_table for t in tables)
    for differing in itertools.combinations(range(blocks), distance):
        assert any(not set(t) & set(differing) for t in tables), differing


def test_covering_tables_beats_every_choice():
    assert len(covering_tables(8, 3, 3)) == 8  # C(8, 3) = 56 for simhash-py's layout
    assert len(covering_tables(6, 3, 2)) == 6
    with pytest.raises(ValueError, match="distance must be between 0 and blocks - 1"):
        covering_tables(4, 4, 1)
    with pytest.raises(ValueError, match="per_table must be between 1 and"):
        covering_tables(5, 2, 4)


@pytest.mark.parametrize("size", [8, 16, 32, 64, 128, 256, 512])
@pytest.mark.parametrize("distance", [0, 1, 3, 7, 20])
@pytest.mark.parametrize("purpose", ["memory", "sqlite", "batch"])
def test_choose_plan_is_exact_and_round_trips(size, distance, purpose):
    if distance > size:
        return
    plan = choose_plan(size, distance, 50_000, purpose=purpose)
    assert (plan.size_in_bits, plan.max_distance) == (size, distance)
    assert Plan.from_json(plan.to_json()) == plan  # from_json checks exactness again


@pytest.mark.parametrize("purpose", ["memory", "sqlite", "batch"])
@pytest.mark.parametrize(("size", "distance"), [(16, 1), (37, 4), (64, 3), (128, 5), (256, 8)])
def test_choose_plan_prunes_nothing_it_needs(size, distance, purpose):
    """The bound is below every layout's cost, so the pruned choice is the exhaustive one."""
    for n in (1, 1000, 100_000, 10**7):
        weighed = []
        for count, per_table in plan_module._shapes(size, distance):
            design = plan_module._design(size, distance, count, per_table)
            if design is None:
                continue
            probes = plan_module._probes(design, purpose)
            chance = plan_module._chance(design, n, purpose)
            cost = plan_module._cost(purpose, n, len(design.tables), probes, chance)
            bound = plan_module._cost_bound(purpose, n, size, distance, count, per_table)
            assert bound <= cost * (1 + 1e-9)
            budget = max(3 * n * -(-size // 8), 64 << 20)
            memory = sum(plan_module.table_bytes(k, n) for k in design.key_bits)
            if purpose != "memory" or memory <= budget:
                weighed.append((cost, count, per_table, design))
        _, candidate, scan_one = plan_module._COSTS[purpose]
        scan = n * scan_one if purpose != "batch" else n * n / 2 * candidate
        cheapest = min((w[0] for w in weighed), default=scan)
        if cheapest < scan * 0.999:
            close = [w for w in weighed if w[0] <= cheapest * 1.001]
            want = min(close, key=lambda w: (w[1], w[2]))[3]
        else:
            want = Plan(size, distance, even_blocks(size, 1), ())
        assert choose_plan(size, distance, n, purpose=purpose) == want


def test_plan_validation():
    with pytest.raises(ValueError, match="tile"):
        Plan(16, 1, ((0, 8), (9, 7)), ((0,), (1,)))
    with pytest.raises(ValueError, match="names block 5"):
        Plan(16, 1, even_blocks(16, 2), ((5,),))
    with pytest.raises(ValueError, match="not exact"):
        Plan(16, 2, even_blocks(16, 3), ((0,), (1,)))
    with pytest.raises(ValueError, match="not a samecode plan"):
        Plan.from_json("{}")
    with pytest.raises(ValueError, match="purpose must be one of"):
        choose_plan(64, 3, purpose="disk")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="max_distance must be an int"):
        choose_plan(64, 3.0)  # type: ignore[arg-type]


def test_plan_keys_are_the_blocks_bits():
    plan = Plan(16, 1, ((0, 4), (4, 4), (8, 8)), ((0, 2), (1,)))
    value = 0xABCD
    assert plan.keys(value) == [(0xAB << 4) | 0xD, 0xC]


# -- the batch engine ---------------------------------------------------------------


@pytest.fixture(params=["small", "chunked", "narrow"])
def engine(request, monkeypatch):
    """Run the engine's dictionary path for small inputs, its bitmap path on tiny chunks,
    or that path with keys cut to 11 bits (part of a byte: many chance candidates)."""
    if request.param != "small":
        monkeypatch.setattr(_allpairs, "_SMALL", 0)
        monkeypatch.setattr(_allpairs, "_CHUNK", 7)
    if request.param == "narrow":
        monkeypatch.setattr(_allpairs, "batch_key_bits", lambda size: 11)
    return request.param


@given(
    st.sampled_from([(16, 1), (32, 2), (64, 3), (64, 5), (128, 6), (24, 2), (13, 2)]),
    st.integers(0, 2**32),
    st.integers(0, 300),
)
@settings(max_examples=40, deadline=None)
def test_near_pairs_match_brute_force(shape, seed, count):
    size, distance = shape
    rng = random.Random(seed)
    values = list(dict.fromkeys(planted(rng, size, count, distance)))
    items = dict(enumerate(values))
    got = _allpairs.near_pairs(values, size, distance)
    assert got == {(a, b) for a, b, _ in brute_pairs(items, distance)}


def test_near_pairs_chunked_path(engine):
    rng = random.Random(7)
    values = list(dict.fromkeys(planted(rng, 64, 3000, 3)))
    items = dict(enumerate(values))
    got = _allpairs.near_pairs(values, 64, 3)
    assert got == {(a, b) for a, b, _ in brute_pairs(items, 3)}


# -- simhash.find_all ---------------------------------------------------------------


@given(st.lists(st.integers(0, 2**64 - 1), max_size=60), st.integers(0, 2**32), st.integers(0, 5))
@settings(max_examples=60, deadline=None)
def test_find_all_matches_brute_force(randoms, seed, bits):
    rng = random.Random(seed)
    values = randoms + planted(rng, 64, 60, bits)
    want = brute_distinct_pairs(values, bits)
    assert find_all(values, bits + 1, bits) == want
    assert find_all(iter(values), 64, bits) == want


def test_find_all_chunked_path(engine):
    rng = random.Random(3)
    values = planted(rng, 64, 2500, 3) + [7] * 30
    want = brute_distinct_pairs(values, 3)
    assert find_all(values, 5, 3) == want


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        (
            ([1, 2], 3, 3),
            ValueError,
            r"number_of_blocks \(3\) must be greater than different_bits \(3\)",
        ),
        (([1, 2], 65, 3), ValueError, "must not exceed 64"),
        (([1, 2], 4, -1), ValueError, "different_bits must be >= 0"),
        (([1, 2], 4.0, 1), TypeError, "number_of_blocks must be an int"),
        (([-1], 4, 1), ValueError, "unsigned 64-bit"),
        (([2**64], 4, 1), ValueError, "unsigned 64-bit"),
        (([1.0], 4, 1), TypeError, "must be an int"),
        ((5, 4, 1), TypeError, "iterable of ints"),
    ],
)
def test_find_all_argument_rules(args, error, message):
    with pytest.raises(error, match=message):
        find_all(*args)


# -- HammingIndex -------------------------------------------------------------------


@given(
    st.sampled_from([(16, 1), (32, 2), (64, 3), (64, 0), (128, 5), (64, 30), (20, 3)]),
    st.integers(0, 2**32),
    st.integers(0, 120),
    st.sampled_from([10, 1000, 1_000_000]),
)
@settings(max_examples=50, deadline=None)
def test_index_matches_brute_force(shape, seed, count, expected):
    size, distance = shape
    rng = random.Random(seed)
    index = HammingIndex(size, distance, expected_size=expected)
    items = dict(enumerate(planted(rng, size, count, distance)))
    index.add_many(items.items())
    for key in rng.sample(sorted(items), len(items) // 4):
        assert index.remove(key) == items.pop(key)
    for key in range(count, count + 10):  # reuse freed rows
        items[key] = rng.getrandbits(size)
        index.add(key, items[key])
    assert len(index) == len(items)
    assert set(index) == set(items)
    probes = [rng.getrandbits(size) for _ in range(5)] + list(items.values())[:10]
    for probe in probes:
        for limit in {distance, distance // 2}:
            assert index.query(probe, limit) == brute_query(items, probe, limit)
    assert index.find_all() == brute_pairs(items, distance)
    assert index.clusters() == brute_clusters(items, distance)
    assert dict(index.items()) == items


@given(
    st.sampled_from([(16, 2, 10), (64, 3, 10), (64, 3, 1_000_000), (128, 5, 100)]),
    st.integers(0, 2**32),
    st.lists(
        st.tuples(
            st.sampled_from(["add", "remove", "add_many"]), st.integers(0, 30), st.integers(0, 5)
        ),
        max_size=80,
    ),
)
@settings(max_examples=60, deadline=None)
def test_index_after_any_changes(shape, seed, steps):
    """Adds, removals and batches over six near fingerprints: long chains, reused rows."""
    size, distance, expected = shape
    rng = random.Random(seed)
    pool = planted(rng, size, 6, distance)
    index = HammingIndex(size, distance, expected_size=expected)
    model: dict[int, int] = {}
    for step, key, which in steps:
        if step == "add" and key not in model:
            index.add(key, pool[which])
            model[key] = pool[which]
        elif step == "remove" and key in model:
            assert index.remove(key) == model.pop(key)
        elif step == "add_many":
            batch = [(k, pool[(which + k) % 6]) for k in range(key, key + 5) if k not in model]
            index.add_many(batch)
            model.update(batch)
    assert list(index.items()) == list(model.items())
    for value in [*pool, rng.getrandbits(size)]:
        assert index.query(value) == brute_query(model, value, distance)


def test_index_accepts_every_form_of_fingerprint():
    a = BitAverageHaloHash(b"one two three four".split(), size_in_bits=64)
    index = HammingIndex(64, 3)
    index.add("object", a)
    index.add("bits", a.hash())
    index.add("int", a.intdigest())
    assert index.query(a) == [("bits", 0), ("int", 0), ("object", 0)]
    assert index["bits"] == a.intdigest()
    assert fingerprint_value(bitarray("1" + "0" * 63, "little"), 64) == 1 << 63


def test_index_refuses_bad_input():
    index = HammingIndex(64, 3, kind=SimHash)
    index.add("a", 1)
    with pytest.raises(KeyError, match="already in the index"):
        index.add("a", 2)
    with pytest.raises(KeyError, match="already in the index"):
        index.add_many([("b", 1), ("b", 2)])
    assert "b" not in index  # add_many is all or nothing
    with pytest.raises(TypeError, match="holds SimHash fingerprints; got a BitAverageHaloHash"):
        index.add("c", BitAverageHaloHash(size_in_bits=64))
    with pytest.raises(ValueError, match="holds 64-bit fingerprints; got a 128-bit SimHash"):
        index.add("c", SimHash(["x"], size_in_bits=128))
    with pytest.raises(ValueError, match="must be an int from 0 to 2\\*\\*64 - 1; got -1"):
        index.add("c", -1)
    with pytest.raises(ValueError, match="got a bitarray of 8 bits"):
        index.query(bitarray(8))
    with pytest.raises(TypeError, match="must be an int, a bitarray"):
        index.add("c", True)
    with pytest.raises(TypeError, match="must be an int, a bitarray"):
        index.add("c", "0xff")
    with pytest.raises(TypeError, match="key must be hashable"):
        index.add([1], 5)
    with pytest.raises(ValueError, match="max_distance must be between 0 and this index's"):
        index.query(1, 4)
    with pytest.raises(KeyError):
        index.remove("missing")
    with pytest.raises(ValueError, match="size_in_bits must be between 1 and 4096"):
        HammingIndex(0)
    with pytest.raises(ValueError, match="plan is for 64-bit"):
        HammingIndex(32, 3, plan=choose_plan(64, 3))


def test_index_with_keys_that_do_not_compare():
    index = HammingIndex(16, 2)
    index.add_many([("s", 0b1), (2, 0b11), (b"b", 0b111)])
    assert index.query(0b1) == [("s", 0), (2, 1), (b"b", 2)]
    assert index.query(0b11) == [(2, 0), ("s", 1), (b"b", 1)]
    assert index.find_all() == [("s", 2, 1), (2, b"b", 1), ("s", b"b", 2)]
    assert index.clusters() == [["s", 2, b"b"]]
