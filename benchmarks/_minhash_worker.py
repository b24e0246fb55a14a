"""Answer MinHash and LSH cases and timings with datasketch or samecode.

Reads one JSON request on standard input, writes one JSON answer on standard output.
``"library"`` is ``datasketch`` (in its own virtual environment) or ``samecode``; both
sides run this same code, so their answers and timings compare like for like.
"""

import json
import os
import random
import sys
import time
import tracemalloc


def load(library):
    if library == "datasketch":
        from datasketch import LeanMinHash, MinHash, MinHashLSH
        from datasketch.lsh import _optimal_param as optimal_param
    else:
        from samecode.minhash import LeanMinHash, MinHash
        from samecode.minhash.lsh import MinHashLSH
        from samecode.minhash.params import optimal_param
    return MinHash, LeanMinHash, MinHashLSH, optimal_param


def signature(MinHash, case, features):
    m = MinHash(num_perm=case["num_perm"], seed=case["seed"], scheme=case["scheme"])
    if case.get("one_by_one"):
        for feature in features:
            m.update(feature)
    else:
        m.update_batch(features)
    return m


def compat(library, cases):
    MinHash, LeanMinHash, MinHashLSH, optimal_param = load(library)
    out = []
    for case in cases:
        try:
            out.append(answer(case, MinHash, LeanMinHash, MinHashLSH, optimal_param))
        except (TypeError, ValueError) as error:
            out.append({"error": type(error).__name__})
    return out


def answer(case, MinHash, LeanMinHash, MinHashLSH, optimal_param):
    kind = case["kind"]
    if kind == "params":
        return list(optimal_param(case["threshold"], case["num_perm"], *case["weights"]))
    sets = [[bytes.fromhex(f) for f in features] for features in case["sets"]]
    sketches = [signature(MinHash, case, features) for features in sets]
    if kind == "signature":
        m = sketches[0]
        lean = LeanMinHash(m)
        forms = {}
        for order in ("@", "<", ">"):
            buffer = bytearray(lean.bytesize(byteorder=order))
            lean.serialize(buffer, byteorder=order)
            forms[order] = buffer.hex()
            back = LeanMinHash.deserialize(bytes(buffer), byteorder=order)
            forms[order + "read"] = [int(v) for v in back.hashvalues]
        return {
            "hashvalues": [int(v) for v in m.hashvalues],
            "count": repr(float(m.count())),
            "empty": bool(m.is_empty()),
            "lean": forms,
        }
    if kind == "pair":
        a, b = sketches
        merged = a.copy()
        merged.merge(b)
        return {
            "jaccard": repr(float(a.jaccard(b))),
            "merged": [int(v) for v in merged.hashvalues],
            "union": [int(v) for v in MinHash.union(a, b).hashvalues],
            "equal": bool(a == b),
        }
    if kind == "lsh":
        # Half inserted in a session, half in another index merged in; removals in a
        # deletion session; then queries, a query buffer and bucket counts.
        lsh = MinHashLSH(threshold=case["threshold"], num_perm=case["num_perm"])
        other = MinHashLSH(threshold=case["threshold"], num_perm=case["num_perm"])
        half = len(sketches) // 2
        with lsh.insertion_session() as session:
            for key in range(half):
                session.insert(str(key), sketches[key])
        for key in range(half, len(sketches)):
            other.insert(str(key), sketches[key])
        lsh.merge(other)
        with lsh.deletion_session() as session:
            for key in case["remove"]:
                session.remove(str(key))
        answers = [sorted(lsh.query(m)) for m in sketches]
        present = [str(key) in lsh for key in range(len(sketches))]
        for m in sketches[:2]:
            lsh.add_to_query_buffer(m)
        buffered = sorted(lsh.collect_query_buffer())
        kept = [str(key) for key in range(len(sketches)) if key not in case["remove"]]
        counts = [sorted(c.values()) for c in lsh.get_counts()]
        subset = [sorted(c.values()) for c in lsh.get_subset_counts(*kept[:3])]
        return {
            "b": lsh.b,
            "r": lsh.r,
            "query": answers,
            "present": present,
            "buffered": buffered,
            "counts": counts,
            "subset_counts": subset,
        }
    raise ValueError(f"unknown case kind {kind}")


def corpus(size, features, seed):
    """``size`` documents of ``features`` distinct shingles each, half of them copies of
    another with a tenth replaced (so LSH has pairs to find)."""
    rng = random.Random(seed)
    docs = []
    for i in range(size):
        if i and rng.random() < 0.5:
            base = list(rng.choice(docs))
            for j in rng.sample(range(features), features // 10):
                base[j] = rng.randbytes(12)
            docs.append(base)
        else:
            docs.append([rng.randbytes(12) for _ in range(features)])
    return docs


def median_time(function, repeat):
    """The median time of ``repeat`` calls of ``function``, and its last result."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2], result


def time_lsh(out, build, sketches, keys, repeat):
    """Median times of building an index (``build``), querying every sketch, removing every key."""
    out["lsh_insert"], lsh = median_time(build, repeat)
    out["lsh_query"], found = median_time(lambda: [lsh.query(m) for m in sketches], repeat)
    out["candidates"] = sum(len(f) for f in found)

    def remove_all():
        index = build()
        start = time.perf_counter()
        for key in keys:
            index.remove(key)
        return time.perf_counter() - start

    out["lsh_remove"] = sorted(remove_all() for _ in range(repeat))[repeat // 2]


def timing_rensa(request):
    from rensa import RMinHash, RMinHashLSH

    docs = corpus(request["documents"], request["features"], request["seed"])
    num_perm, repeat = request["num_perm"], request["repeat"]
    out = {}

    def signatures():
        sketches = []
        for features in docs:
            m = RMinHash(num_perm=num_perm, seed=42)
            m.update(features)
            sketches.append(m)
        return sketches

    out["rensa"], sketches = median_time(signatures, repeat)

    def build():
        lsh = RMinHashLSH(
            threshold=request["threshold"], num_perm=num_perm, num_bands=request["bands"]
        )
        for key, m in enumerate(sketches):
            lsh.insert(key, m)
        return lsh

    time_lsh(out, build, sketches, range(len(sketches)), repeat)
    return out


def sqlite_lsh(out, sketches, keys, threshold, num_perm):
    """SQLiteLSH (one run: a file's timings are steady): bulk insert, query, remove
    one key at a time, and bytes on disk per key."""
    import tempfile

    from samecode.minhash.settings import LSHSettings
    from samecode.minhash.sqlitelsh import SQLiteLSH

    settings = LSHSettings("affine32", num_perm=num_perm, threshold=threshold)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "lsh.db")
        with SQLiteLSH.create(path, settings) as store:
            start = time.perf_counter()
            store.insert_many(zip(keys, sketches))
            out["sqlite_insert"] = time.perf_counter() - start
            store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            out["sqlite_bytes_per_key"] = os.path.getsize(path) / len(keys)
            start = time.perf_counter()
            for m in sketches:
                store.query(m)
            out["sqlite_query"] = time.perf_counter() - start
            start = time.perf_counter()
            for key in keys:
                store.remove(key)
            out["sqlite_remove"] = time.perf_counter() - start


def timing(library, request):
    if library == "rensa":
        return timing_rensa(request)
    MinHash, LeanMinHash, MinHashLSH, _ = load(library)
    docs = corpus(request["documents"], request["features"], request["seed"])
    num_perm, repeat = request["num_perm"], request["repeat"]
    out = {}

    def signatures(scheme):
        sketches = []
        for features in docs:
            m = MinHash(num_perm=num_perm, scheme=scheme)
            m.update_batch(features)
            sketches.append(m)
        return sketches

    out["affine32"], sketches = median_time(lambda: signatures("affine32"), repeat)
    out["legacy"], _ = median_time(lambda: signatures("legacy"), max(1, repeat // 2))
    if library == "samecode":
        import zlib

        from samecode.minhash.oph import OnePermutationMinHash

        def fast():
            made = []
            for features in docs:
                m = OnePermutationMinHash(num_perm=num_perm)
                m.update_batch(features)
                made.append(m)
            return made

        def floor():  # one hash call per feature, nothing else
            crc = zlib.crc32
            return [list(map(crc, features)) for features in docs]

        out["one-permutation"], _ = median_time(fast, repeat)
        out["floor"], _ = median_time(floor, repeat)
    keys = [f"doc{i}" for i in range(len(docs))]

    def build():
        lsh = MinHashLSH(threshold=request["threshold"], num_perm=num_perm)
        for key, m in zip(keys, sketches):
            lsh.insert(key, m)
        return lsh

    time_lsh(out, build, sketches, keys, repeat)
    if library == "samecode":
        sqlite_lsh(out, sketches, keys, request["threshold"], num_perm)
    lean = LeanMinHash(sketches[0])
    out["lean_bytes"] = lean.bytesize()
    tracemalloc.start()
    kept = signatures("affine32")
    out["memory_per_signature"] = tracemalloc.get_traced_memory()[0] / len(kept)
    index = build()
    out["memory_per_key_lsh"] = (
        (tracemalloc.get_traced_memory()[0]) / len(kept) - out["memory_per_signature"]
    )
    tracemalloc.stop()
    del index
    return out


def main():
    request = json.load(sys.stdin)
    if request["op"] == "compat":
        answer = compat(request["library"], request["cases"])
    else:
        answer = timing(request["library"], request)
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
