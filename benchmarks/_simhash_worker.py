"""Answer simhash cases and timings with whichever simhash this interpreter has.

Reads one JSON request on standard input, writes one JSON answer on standard output.
``"module"`` names what to import: ``simhash`` (simhash-pybind, or the pure-Python
``simhash`` package of 1e0ng, in their own virtual environments) or ``samecode.simhash``.
"""

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
    raise ValueError(task)


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
