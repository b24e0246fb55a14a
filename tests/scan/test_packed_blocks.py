"""A packed block (format version 6's key tables) gives back the postings it was made of,
finds each key's files and no other's, and takes the fewest whole bytes its keys and
files need."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import samecode.corpus._packed_blocks as packed


def brute_width(values: list[int]) -> int:
    return max(1, (max(values).bit_length() + 7) // 8)


# keys near one another (a block's), far apart, or of few distinct bytes; files of any
# width
def postings_of(key_bytes: int) -> st.SearchStrategy[list[int]]:
    top = 2 ** (8 * key_bytes) - 1
    key = st.one_of(
        st.integers(0, top),
        st.integers(0, 2**12).map(lambda k: (top // 3) + k),
        st.sampled_from([0, 1, 255, 256, 65535, 65536, top]),
    )
    file = st.one_of(st.integers(0, 300), st.integers(0, 2**32 - 1))
    return st.lists(st.tuples(key, file), max_size=200).map(
        lambda pairs: sorted({k << 32 | f for k, f in pairs})
    )


def a_part(data: st.DataObject, layout: Any) -> tuple[int, list[int], packed.Columns, int]:
    """Key bytes, sorted postings (some), their columns and a block's room in bytes,
    drawn, once a part of them cut out of their columns by ``layout`` (a module of
    blocks) has been checked to be the block of its postings."""
    key_bytes = data.draw(st.sampled_from([4, 8]))
    postings = data.draw(postings_of(key_bytes).filter(bool))
    held = packed.columns(postings, key_bytes)
    low = data.draw(st.integers(0, len(postings) - 1))
    high = data.draw(st.integers(low, len(postings)))
    part = layout.pack_part(postings, held, low, high, key_bytes)
    assert part == layout.pack(postings[low:high], key_bytes)
    return key_bytes, postings, held, data.draw(st.integers(64, 2000))


def reads_back(layout: Any, block: bytes, postings: list[int], key_bytes: int) -> bool:
    """Whether ``block`` of the sorted ``postings``, made by ``layout`` (a module of
    blocks), holds any, once checked to be sound, to give them back and to count them
    (an empty block is no bytes)."""
    assert not layout.misshapen(block, key_bytes)
    assert read_back(layout.unpack(block, key_bytes), key_bytes) == postings
    if not postings:
        assert block == b""
        return False
    assert layout.count(len(block), block[:2], key_bytes) == len(postings)
    return True


def files_by_key(postings: list[int]) -> dict[int, list[int]]:
    """Each key of the sorted ``postings`` and its files, ascending."""
    by_key: dict[int, list[int]] = {}
    for posting in postings:
        by_key.setdefault(posting >> 32, []).append(posting & (2**32 - 1))
    return by_key


def read_back(unpacked: tuple[Any, Any], key_bytes: int) -> list[int]:
    """The postings of a block's :func:`unpack` (of either layout)."""
    keys, files = unpacked
    if key_bytes == 4:
        assert files is None
        return keys.tolist()  # type: ignore[no-any-return]
    assert files is not None
    return [k << 32 | f for k, f in zip(keys, files)]


def drawn(data: st.DataObject) -> tuple[int, list[int], bytes]:
    """Key bytes, sorted postings and their block."""
    key_bytes = data.draw(st.sampled_from([4, 8]))
    postings = data.draw(postings_of(key_bytes))
    return key_bytes, postings, packed.pack(postings, key_bytes)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_block_holds_its_postings_in_the_fewest_bytes(data):
    key_bytes, postings, block = drawn(data)
    if not reads_back(packed, block, postings, key_bytes):
        return
    first, last = postings[0] >> 32, postings[-1] >> 32
    # the key width: the bytes below those the first and last keys share
    below = next(w for w in range(1, key_bytes + 1) if first >> 8 * w == last >> 8 * w)
    widest = brute_width([p & (2**32 - 1) for p in postings])
    assert (block[0] >> 4, block[0] & 15) == (below, widest)
    assert len(block) == 1 + key_bytes - below + len(postings) * (below + widest)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_key_is_found_with_its_files_and_no_other(data):
    key_bytes, postings, block = drawn(data)
    by_key = files_by_key(postings)
    top = 2 ** (8 * key_bytes) - 1
    asked = set(by_key) | {0, top} | {k + d for k in by_key for d in (-1, 1, 256, 1 << 32)}
    for key in asked:
        if 0 <= key <= top:
            assert packed.files_of(block, key, key_bytes) == by_key.get(key, [])


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_parts_cut_out_of_the_columns_are_the_blocks_of_their_postings(data):
    key_bytes, postings, held, room = a_part(data, packed)
    most = packed.most(postings, held, key_bytes, room)
    assert len(packed.pack(postings[: min(most, len(postings))], key_bytes)) <= room


def test_a_key_wider_than_the_table_s_is_in_no_block():
    # a block whose keys share no high bytes (its width the key's bytes): a key of more
    # bytes must not be taken for its low bytes
    for key_bytes in (4, 8):
        top = 2 ** (8 * key_bytes) - 1
        block = packed.pack([5 << 32 | 1, top << 32 | 2], key_bytes)
        assert block[0] >> 4 == key_bytes
        assert packed.files_of(block, 5, key_bytes) == [1]
        assert packed.files_of(block, 5 + (top + 1), key_bytes) == []
        assert packed.files_of(block, top + (top + 1), key_bytes) == []
