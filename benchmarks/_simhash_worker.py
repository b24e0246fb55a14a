"""Answer simhash cases and timings with whichever simhash this interpreter has.

Reads one JSON request on standard input, writes one JSON answer on standard output.
``"module"`` names what to import: ``simhash`` (simhash-pybind, or the pure-Python
``simhash`` package of 1e0ng, in their own virtual environments) or
``samecode.fingerprints.simhash``.
"""

import hashlib
import importlib
import json
import random
import re
import sys
import time


def compat(module, cases):
    out = []
    for case in cases:
        kind = case["kind"]
        if kind == "compute":
            out.append(str(module.compute(case["hashes"])))
        elif kind == "bits":
            out.append(module.num_differing_bits(case["a"], case["b"]))
        elif kind == "shingle":
            out.append(list(module.shingle(case["tokens"], case["window"])))
        elif kind == "hash":
            out.append(str(module.unsigned_hash(bytes.fromhex(case["data"]))))
        elif kind == "find_all":
            pairs = module.find_all(case["hashes"], case["blocks"], case["bits"])
            out.append(sorted([str(a), str(b)] for a, b in pairs))
    return out


def timed(function, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2], result


def bench(module, request):
    name, task, repeat = request["module"], request["task"], request["repeat"]
    rng = random.Random(request.get("seed", 1))
    if task == "compute":
        hashes = [rng.getrandbits(64) for _ in range(request["n"])]
        seconds, value = timed(lambda: module.compute(hashes), repeat)
        return {"seconds": seconds, "value": str(value)}
    if task == "tokens":
        tokens = request["tokens"]
        if name == "simhash" and hasattr(module, "Simhash"):
            seconds, value = timed(lambda: module.Simhash(tokens).value, repeat)
        else:
            seconds, value = timed(lambda: module.SimHash(tokens).value, repeat)
        return {"seconds": seconds, "value": str(value)}
    if task == "texts":
        texts = request["texts"]
        style = request["style"]
        if hasattr(module, "Simhash"):

            def run():
                return [module.Simhash(text).value for text in texts]
        elif style == "words":

            def run():
                return [module.SimHash.from_text(text).value for text in texts]
        else:  # the same features as 1e0ng's default: char 4-grams of the word characters
            pattern = re.compile(r"[\w\u4e00-\u9fcc]+")

            def run():
                values = []
                for text in texts:
                    content = "".join(pattern.findall(text.lower()))
                    grams = [content[i : i + 4] for i in range(max(len(content) - 3, 1))]
                    values.append(module.SimHash(grams).value)
                return values

        seconds, values = timed(run, repeat)
        return {"seconds": seconds, "values": [str(v) for v in values]}
    if task == "find_all":
        hashes, planted = planted_hashes(request["n"], request["seed"])
        seconds, pairs = timed(lambda: module.find_all(hashes, 5, 3), repeat)
        digest = hashlib.sha256(repr(sorted(pairs)).encode()).hexdigest()
        found = sum((min(a, b), max(a, b)) in pairs for a, b in planted if a != b)
        return {
            "seconds": seconds,
            "pairs": len(pairs),
            "sha256": digest,
            "planted": found,
            "planted_distinct": sum(a != b for a, b in planted),
        }
    if task == "online":
        return online(module, request)
    raise ValueError(task)


def planted_hashes(n, seed):
    """``n`` random 64-bit hashes, 1 % of them copies of another with 1 to 3 bits flipped."""
    rng = random.Random(seed)
    hashes = [rng.getrandbits(64) for _ in range(n - n // 100)]
    planted = []
    for i in range(n // 100):
        value = hashes[i]
        for _ in range(rng.randint(1, 3)):
            value ^= 1 << rng.randrange(64)
        hashes.append(value)
        planted.append((hashes[i], value))
    rng.shuffle(hashes)
    return hashes, planted


def online(module, request):
    """Build an index of ``n`` fingerprints one ``add`` at a time, then query each planted one."""
    n, repeat = request["n"], request["repeat"]
    hashes, planted = planted_hashes(n, request["seed"])
    queries = [b for _, b in planted] + hashes[: request["queries"] - len(planted)]
    builds, bulks, looks, answers = [], [], [], None
    for _ in range(repeat):
        if hasattr(module, "SimhashIndex"):  # the pure-Python simhash package (1e0ng)
            objs = [(str(i), module.Simhash(h)) for i, h in enumerate(hashes)]
            start = time.perf_counter()
            index = module.SimhashIndex(objs, k=3)
            builds.append(time.perf_counter() - start)
            bulks.append(builds[-1])
            probes = [module.Simhash(q) for q in queries]
            start = time.perf_counter()
            found = [index.get_near_dups(p) for p in probes]
            looks.append(time.perf_counter() - start)
            answers = [sorted(int(i) for i in ids) for ids in found]
        else:
            index = module.HammingIndex(64, 3, expected_size=n)
            add = index.add
            start = time.perf_counter()
            for i, h in enumerate(hashes):
                add(i, h)
            builds.append(time.perf_counter() - start)
            bulk = module.HammingIndex(64, 3, expected_size=n)
            start = time.perf_counter()
            bulk.add_many(enumerate(hashes))
            bulks.append(time.perf_counter() - start)
            query = index.query
            start = time.perf_counter()
            found = [query(q) for q in queries]
            looks.append(time.perf_counter() - start)
            answers = [sorted(key for key, _ in hits) for hits in found]
    digest = hashlib.sha256(repr(answers).encode()).hexdigest()
    return {
        "build": sorted(builds)[len(builds) // 2],
        "bulk": sorted(bulks)[len(bulks) // 2],
        "query": sorted(looks)[len(looks) // 2],
        "queries": len(queries),
        "sha256": digest,
    }


def main():
    request = json.load(sys.stdin)
    module = importlib.import_module(request["module"])
    if request["op"] == "compat":
        answer = compat(module, request["cases"])
    else:
        answer = bench(module, request)
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
