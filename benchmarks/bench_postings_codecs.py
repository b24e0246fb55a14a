"""What a corpus's key tables would cost in other encodings of their blocks: bytes a stored
file, and microseconds to find a key's files in its block, beside the blocks of format
version 5 as they are.

    python benchmarks/bench_postings_codecs.py CORPUS.db [--lookups 20000] [--repeat 5]

Every posting of the corpus's key tables (``prefix_blocks``, and ``fragment_blocks`` where
it stores fragments; :meth:`KeyBlocks.postings <samecode.corpus.key_blocks.KeyBlocks.postings>`)
is cut into blocks as a fold writes them: in order, each block as many postings as fit in
:data:`~samecode.corpus.key_blocks.BLOCK_BYTES` in that encoding. Each encoding's bytes are
its blocks' data (SQLite's rows, pages and the index of the blocks' starts come on top,
about alike for all). Encodings:

* ``stored``: format version 5 (a posting 8 bytes for 4-byte keys; 12 for 8-byte keys),
  looked up by the library's own search of a block's bytes;
* ``offsets``: in a block, each key as its offset from the block's first key and each file
  id, both in as few whole bytes as the block's largest needs (a byte of the two widths
  first); a key is found by a search of the bytes as stored, as in ``stored``;
* ``varint``: each key as its step from the key before it (0 within a key's run) and each
  file id, as LEB128 varints; a block is decoded in Python to find a key;
* ``zlib``: ``stored`` with the keys as steps, compressed (zlib, level 9) a block at a
  time; a block is decompressed and its keys summed (``itertools.accumulate``) to find a
  key.

The look-ups: ``--lookups`` keys, half of them held (drawn from the postings) and half not
(drawn at random), each looked for in the block it falls in (found by ``bisect`` among the
starts, in memory: SQLite's part is the same for all), the files of its postings
returned; every encoding must give the same files. Medians of ``--repeat``. Not part of
CI.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import time
import zlib
from array import array
from bisect import bisect_left, bisect_right
from itertools import accumulate, pairwise

from samecode.corpus.key_blocks import BLOCK_BYTES, KeyBlocks
from samecode.store.file import Statements, StoreFile

_FILE_BITS = 32
_FILE_MASK = (1 << _FILE_BITS) - 1


def _width(value: int) -> int:
    return max(1, (value.bit_length() + 7) // 8)


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


class Codec:
    """An encoding of a table's blocks: ``cut`` the postings into blocks, ``encode`` one,
    ``files`` of a key in an encoded block (given its first key)."""

    name = ""

    def __init__(self, key_bytes: int) -> None:
        self.key_bytes = key_bytes

    def cut(self, keys: list[int], files: list[int]) -> list[tuple[int, int]]:
        """The blocks as ``(start, stop)`` ranges of the postings, each within
        :data:`BLOCK_BYTES`."""
        blocks, start = [], 0
        while start < len(keys):
            stop = self.fill(keys, files, start)
            blocks.append((start, stop))
            start = stop
        return blocks

    def fill(self, keys: list[int], files: list[int], start: int) -> int:
        per = BLOCK_BYTES // (self.key_bytes + 4)
        return min(len(keys), start + per)

    def encode(self, keys: list[int], files: list[int]) -> bytes:
        raise NotImplementedError

    def files(self, data: bytes, base: int, key: int) -> list[int]:
        raise NotImplementedError


class Stored(Codec):
    name = "stored"

    def __init__(self, key_bytes: int) -> None:
        super().__init__(key_bytes)
        self.table = KeyBlocks("postings", key_bytes)

    def encode(self, keys: list[int], files: list[int]) -> bytes:
        if self.key_bytes == 4:
            return array("Q", [k << _FILE_BITS | f for k, f in zip(keys, files)]).tobytes()
        return array("Q", keys).tobytes() + array("I", files).tobytes()

    def files(self, data: bytes, base: int, key: int) -> list[int]:
        # the library's own search of a block's bytes, as a look-up of a corpus makes it
        return self.table._files_in(data, key)


class Offsets(Codec):
    name = "offsets"

    def fill(self, keys: list[int], files: list[int], start: int) -> int:
        base, key_width, file_width, stop = keys[start], 1, 1, start
        while stop < len(keys):
            wider_key = max(key_width, _width(keys[stop] - base))
            wider_file = max(file_width, _width(files[stop]))
            if 1 + (stop - start + 1) * (wider_key + wider_file) > BLOCK_BYTES:
                break
            key_width, file_width, stop = wider_key, wider_file, stop + 1
        return stop

    def encode(self, keys: list[int], files: list[int]) -> bytes:
        base = keys[0]
        key_width = max(_width(k - base) for k in keys)
        file_width = max(_width(f) for f in files)
        head = bytes([key_width << 4 | file_width])
        key_part = b"".join((k - base).to_bytes(key_width, "little") for k in keys)
        file_part = b"".join(f.to_bytes(file_width, "little") for f in files)
        return head + key_part + file_part

    def files(self, data: bytes, base: int, key: int) -> list[int]:
        key_width, file_width = data[0] >> 4, data[0] & 15
        count = (len(data) - 1) // (key_width + file_width)
        offset = key - base
        if not 0 <= offset < 1 << 8 * key_width:
            return []
        pattern, end = offset.to_bytes(key_width, "little"), 1 + count * key_width
        at = data.find(pattern, 1, end)
        while at >= 0 and (at - 1) % key_width:
            at = data.find(pattern, at + 1, end)
        if at < 0:
            return []
        after = at + key_width
        while data.startswith(pattern, after, end):
            after += key_width
        first, last = (at - 1) // key_width, (after - 1) // key_width
        files = data[end + first * file_width : end + last * file_width]
        return [
            int.from_bytes(files[i : i + file_width], "little")
            for i in range(0, len(files), file_width)
        ]


class Varint(Codec):
    name = "varint"

    def fill(self, keys: list[int], files: list[int], start: int) -> int:
        size, stop = 0, start
        while stop < len(keys):
            step = keys[stop] - keys[stop - 1] if stop > start else 0
            more = len(_varint(step)) + len(_varint(files[stop]))
            if size + more > BLOCK_BYTES:
                break
            size, stop = size + more, stop + 1
        return stop

    def encode(self, keys: list[int], files: list[int]) -> bytes:
        steps = [0] + [b - a for a, b in pairwise(keys)]
        return b"".join(_varint(s) + _varint(f) for s, f in zip(steps, files))

    def files(self, data: bytes, base: int, key: int) -> list[int]:
        found, current, value, shift, is_file = [], base, 0, 0, False
        for byte in data:
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte & 0x80:
                continue
            if is_file:
                if current == key:
                    found.append(value)
                elif current > key:
                    break
            else:
                current += value
            value, shift, is_file = 0, 0, not is_file
        return found


class Zlib(Codec):
    name = "zlib"

    def encode(self, keys: list[int], files: list[int]) -> bytes:
        steps = [0] + [b - a for a, b in pairwise(keys)]
        typecode = "I" if self.key_bytes == 4 else "Q"
        raw = array(typecode, steps).tobytes() + array("I", files).tobytes()
        return zlib.compress(raw, 9)

    def files(self, data: bytes, base: int, key: int) -> list[int]:
        raw = zlib.decompress(data)
        count = len(raw) // (self.key_bytes + 4)
        steps = array("I" if self.key_bytes == 4 else "Q")
        steps.frombytes(raw[: count * self.key_bytes])
        keys = list(accumulate(steps, initial=base))[1:]
        low = bisect_right(keys, key - 1)
        high = bisect_right(keys, key, low)
        files = array("I")
        files.frombytes(raw[count * self.key_bytes :])
        return files[low:high].tolist()


CODECS: list[type[Codec]] = [Stored, Offsets, Varint, Zlib]


def measure(
    name: str, key_bytes: int, postings: list[int], files_count: int, lookups: int, repeat: int
) -> list[str]:
    keys = [p >> _FILE_BITS for p in postings]
    files = [p & _FILE_MASK for p in postings]
    rng = random.Random(52)
    held = [keys[rng.randrange(len(keys))] for _ in range(lookups // 2)]
    absent = [rng.getrandbits(8 * key_bytes) for _ in range(lookups - len(held))]
    wanted = held + absent
    rng.shuffle(wanted)
    lines: list[str] = []
    answers: list[list[int]] | None = None
    for codec_type in CODECS:
        codec = codec_type(key_bytes)
        blocks = codec.cut(keys, files)
        data = [codec.encode(keys[a:b], files[a:b]) for a, b in blocks]
        starts = [keys[a] for a, _ in blocks]
        # the blocks a key's postings can be in: from the one before the first that
        # starts with it (its run may begin there) to the last that starts at or below it
        places = [
            range(max(0, bisect_left(starts, key) - 1), max(0, bisect_right(starts, key) - 1) + 1)
            for key in wanted
        ]
        seconds = []
        for _ in range(repeat):
            began = time.perf_counter()
            found = [
                [file for at in span for file in codec.files(data[at], starts[at], key)]
                for span, key in zip(places, wanted)
            ]
            seconds.append(time.perf_counter() - began)
        if answers is None:
            answers = found
        held_bytes = sum(map(len, data))
        lines.append(
            f"| {name} | {codec.name} | {len(blocks):,} | {held_bytes / len(postings):.2f} | "
            f"{held_bytes / files_count:,.0f} | "
            f"{statistics.median(seconds) / len(wanted) * 1e6:.2f} | "
            f"{'yes' if found == answers else 'NO'} |"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("corpus", help="a corpus of format version 5")
    parser.add_argument("--lookups", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    db = sqlite3.connect(f"file:{args.corpus}?mode=ro", uri=True)
    version = db.execute("SELECT value FROM samecode_meta WHERE name = 'version'").fetchone()
    if version is None or version[0] != "5":
        print(f"{args.corpus}: not a corpus of format version 5", file=sys.stderr)
        return 2
    (files_count,) = db.execute("SELECT count(*) FROM files").fetchone()
    sql = Statements(StoreFile(db, args.corpus, True, 30.0))
    tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    print(f"{args.corpus}: {files_count:,} files\n")
    print("| table | encoding | blocks | bytes a posting | bytes a file | us a look-up | same |")
    print("|---|---|---|---|---|---|---|")
    for table, key_bytes in (("prefix_blocks", 4), ("fragment_blocks", 8)):
        if table not in tables:
            continue
        postings = KeyBlocks(table, key_bytes).postings(sql)
        if not postings:
            continue
        lines = measure(table, key_bytes, postings, files_count, args.lookups, args.repeat)
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
