"""Run cases or timings with whichever ``samecode`` this interpreter imports.

Reads one JSON request on standard input and writes one JSON answer on standard output.
The same file serves this project and the SameCode 0.5.1 reference, so both answer the
very same questions. Requests:

* ``{"op": "compat", "cases": [...]}``: outputs of every case (see ``compat_samecode.py``);
* ``{"op": "bench", "task": ..., ...}``: the seconds one timed task took.
"""

import binascii
import gc
import hashlib
import json
import random
import sys
import time

from samecode.chunking import ngrams, select_ngrams
from samecode.halohash import (
    BitAverageHaloHash,
    bit_to_num,
    byte_hamming_distance,
    common_chunks,
    common_chunks_from_hexdigest,
    decode_vector,
)


def _token(spec):
    kind, value = spec
    if kind in ("s", "i"):
        return value
    if kind == "b":
        return binascii.unhexlify(value)
    if kind == "f":
        return float(value)
    raise ValueError(spec)


def _halo(case):
    size = case["size"]
    first = [binascii.unhexlify(f) for f in case["a"]]
    second = [binascii.unhexlify(f) for f in case["b"]]
    a = BitAverageHaloHash(first, size_in_bits=size)
    b = BitAverageHaloHash(size_in_bits=size)
    for feature in second:  # one at a time, as the seed's examples do
        b.update(feature)
    hex_a, hex_b = a.hexdigest(), b.hexdigest()
    out = {
        "hexdigest": hex_a.decode(),
        "b64digest": a.b64digest().decode(),
        "hexdigest_b": hex_b.decode(),
        "distance": a.distance(b),
        "byte_hamming_distance": byte_hamming_distance(hex_a, hex_b),
        "bit_to_num": str(bit_to_num(a.hash())),
        "decode_vector": decode_vector(a.b64digest()).to01(),
    }
    for n in case["chunk_bytes"]:
        out[f"common_chunks/{n}"] = common_chunks(a, b, n)
    for n in case["chunk_bits"]:
        out[f"common_chunks_from_hexdigest/{n}"] = common_chunks_from_hexdigest(hex_a, hex_b, n)
    return out


def _ngrams(case):
    tokens = [_token(t) for t in case["tokens"]]
    return {"ngrams": repr(list(ngrams(tokens, case["n"])))}


def _select(case):
    grams = [tuple(_token(t) for t in gram) for gram in case["ngrams"]]
    return {
        "select": repr(list(select_ngrams(grams))),
        "select_with_pos": repr(list(select_ngrams(iter(grams), with_pos=True))),
    }


_CASES = {"halo": _halo, "ngrams": _ngrams, "select": _select}


def _compat(request):
    return [_CASES[case["kind"]](case) for case in request["cases"]]


def _short_tokens(count, seed):
    rng = random.Random(seed)
    letters = b"abcdefghijklmnopqrstuvwxyz_0123456789"
    return [bytes(rng.choices(letters, k=rng.randint(2, 10))) for _ in range(count)]


def _words(count, seed, vocabulary=5000):
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(vocabulary)]
    # A skewed choice, as in real text: a few words are very common.
    weights = [1 / (rank + 1) for rank in range(vocabulary)]
    return rng.choices(vocab, weights=weights, k=count)


def _bench(request):
    task, size, count, seed = request["task"], request.get("size"), request["count"], 7
    if task in ("halo_list", "halo_update", "hashlib_floor"):
        data = _short_tokens(count, seed)
        if task == "halo_list":

            def run():
                return BitAverageHaloHash(data, size_in_bits=size).hexdigest()
        elif task == "halo_update":

            def run():
                h = BitAverageHaloHash(size_in_bits=size)
                update = h.update
                for token in data:
                    update(token)
                return h.hexdigest()
        else:
            name = {
                32: "md5",
                64: "md5",
                128: "md5",
                160: "sha1",
                256: "sha256",
                384: "sha384",
                512: "sha512",
            }[size]
            constructor = getattr(hashlib, name)

            def run():
                return [constructor(token).digest() for token in data]
    elif task in ("select_ngrams_str", "select_ngrams_int"):
        words = _words(count + 3, seed)
        if task == "select_ngrams_int":
            ids = {}
            words = [ids.setdefault(w, len(ids)) for w in words]
        grams = list(zip(words, words[1:], words[2:], words[3:]))

        def run():
            return list(select_ngrams(grams))
    else:
        raise ValueError(task)
    gc.collect()
    start = time.perf_counter()
    result = run()
    elapsed = time.perf_counter() - start
    digest = hashlib.sha256(repr(result).encode()).hexdigest()
    return {"seconds": elapsed, "result_sha256": digest}


def main():
    request = json.load(sys.stdin)
    answer = {"compat": _compat, "bench": _bench}[request["op"]](request)
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
