"""A corpus's texts compressed against a dictionary (format version 7): bytes a text, and
microseconds a text to compress and to decompress, without a dictionary, with the one a
corpus makes (:func:`samecode.corpus.text_dictionary.dictionary_from_files`), and with
others that were weighed against it.

    python benchmarks/bench_text_dictionary.py [--files 2000] [--stored DIR] [--repeat 3]

The texts are ``bench_scale.py``'s generated code (as ``bench_corpus_fragments.py``
stores) or every file under ``--stored DIR`` (e.g. 2,000 of the standard libraries'
``.py`` files). Each dictionary is made of the files in the order a sync reads them
(sorted paths); the times are the best of ``--repeat`` passes over all the texts, zlib's
level 6 unless named. Every way gives back every text's bytes (checked).
"""

from __future__ import annotations

import argparse
import json
import re
import time
import zlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from bench_scale import generate
from bench_scan import CACHE
from samecode.corpus.records import pack_text, unpack_text
from samecode.corpus.text_dictionary import DICTIONARY_BYTES, dictionary_from_files

_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]{2,}")


def tail_of_first(texts: list[bytes]) -> bytes:
    """The last 32 KiB of the first files' bytes, one after the other."""
    return b"".join(texts[:64])[-DICTIONARY_BYTES:]


def frequent_words(texts: list[bytes]) -> bytes:
    """The words of the first 64 files that two or more hold, the commonest last."""
    counts: Counter[bytes] = Counter()
    for text in texts[:64]:
        counts.update(set(_WORD.findall(text)))
    ranked = sorted((w for w, n in counts.items() if n > 1), key=lambda w: (-counts[w] * len(w), w))
    kept, used = [], 0
    for word in ranked:
        if used + len(word) + 1 <= DICTIONARY_BYTES:
            kept.append(word + b" ")
            used += len(word) + 1
    return b"".join(reversed(kept))


def measure(
    texts: list[bytes], pack: Callable[[bytes], bytes], dictionary: bytes, repeat: int
) -> dict[str, float]:
    """Bytes a text, and the best time a text to pack and to unpack."""
    best_pack = best_unpack = float("inf")
    packed: list[bytes] = []
    for _ in range(repeat):
        started = time.perf_counter()
        packed = [pack(text) for text in texts]
        best_pack = min(best_pack, time.perf_counter() - started)
        started = time.perf_counter()
        back = [unpack_text(p, "t", dictionary) for p in packed]
        best_unpack = min(best_unpack, time.perf_counter() - started)
        if back != texts:
            raise SystemExit("a text did not come back")
    return {
        "bytes_per_text": round(sum(map(len, packed)) / len(texts), 1),
        "pack_us": round(best_pack / len(texts) * 1e6, 1),
        "unpack_us": round(best_unpack / len(texts) * 1e6, 1),
    }


def level(number: int, dictionary: bytes) -> Callable[[bytes], bytes]:
    def pack(text: bytes) -> bytes:
        packer = zlib.compressobj(number, zlib.DEFLATED, 15, 8, zlib.Z_DEFAULT_STRATEGY, dictionary)
        return packer.compress(text) + packer.flush()

    return pack


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--stored", metavar="DIR", help="the files under DIR, not generated ones")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.stored:
        paths = sorted(str(p) for p in Path(args.stored).resolve().rglob("*") if p.is_file())
    else:
        root = CACHE / f"scale-{args.files}-{args.seed}"
        generate(root, args.files, args.files // 10, args.seed)
        paths = sorted(str(p) for p in root.rglob("*.py"))
    texts = [Path(path).read_bytes() for path in paths]
    corpus = dictionary_from_files(paths)
    others = {"tail of the first 64 files": tail_of_first(texts),
              "frequent words of the first 64": frequent_words(texts)}  # fmt: skip
    results = {
        "files": len(texts),
        "text_bytes": round(sum(map(len, texts)) / len(texts), 1),
        "none": measure(texts, pack_text, b"", args.repeat),
        "corpus's (16 files' first 2 KiB)": measure(
            texts, lambda t: pack_text(t, corpus), corpus, args.repeat
        ),
        "corpus's, level 9": measure(texts, level(9, corpus), corpus, args.repeat),
        "corpus's, level 5": measure(texts, level(5, corpus), corpus, args.repeat),
    }
    for name, dictionary in others.items():
        results[name] = measure(texts, level(6, dictionary), dictionary, args.repeat)
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
