"""A block in buckets (format version 8's key tables) gives back the postings it was made
of, finds each key's files and no other's, takes the fewest bytes its layout allows, and
is never larger than a packed block (version 6's) but its byte of buckets."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_packed_blocks import a_part, brute_width, files_by_key, postings_of, reads_back

import samecode.corpus._bucket_blocks as buckets
import samecode.corpus._packed_blocks as packed


def drawn(data: st.DataObject) -> tuple[int, list[int], bytes]:
    """Key bytes, sorted postings and their block."""
    key_bytes = data.draw(st.sampled_from([4, 8]))
    postings = data.draw(postings_of(key_bytes))
    return key_bytes, postings, buckets.pack(postings, key_bytes)


def brute_bytes(postings: list[int], key_bytes: int) -> int:
    """The fewest bytes a block of ``postings`` takes: for each low width whose buckets
    (counted by their high parts) number at most 256, each but the last of at most 255
    postings, its head, high part, counts and postings."""
    keys = [posting >> 32 for posting in postings]
    files = brute_width([posting & (2**32 - 1) for posting in postings])
    sizes = []
    for width in range(1, key_bytes + 1):
        highs = Counter(key >> 8 * width for key in keys)
        first, last = min(highs), max(highs)
        if last - first + 1 > 256:
            continue
        if any(highs[high] > 255 for high in range(first, last)):
            continue
        head = 2 + key_bytes - width + (last - first)
        sizes.append(head + len(keys) * (width + files))
    return min(sizes)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_block_holds_its_postings_in_the_fewest_bytes(data):
    key_bytes, postings, block = drawn(data)
    if not reads_back(buckets, block, postings, key_bytes):
        return
    assert len(block) == brute_bytes(postings, key_bytes)
    assert len(block) <= len(packed.pack(postings, key_bytes)) + 1


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_key_is_found_with_its_files_and_no_other(data):
    key_bytes, postings, block = drawn(data)
    by_key = files_by_key(postings)
    top = 2 ** (8 * key_bytes) - 1
    near = {k + d for k in by_key for d in (-1, 1, 255, 256, 65536, 1 << 32, 1 << 48)}
    for key in set(by_key) | {0, top, top + 1, 2 * top + 1} | near:
        if key >= 0:
            assert buckets.files_of(block, key, key_bytes) == by_key.get(key, [])


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_parts_cut_out_of_the_columns_are_the_blocks_of_their_postings(data):
    key_bytes, postings, held, room = a_part(data, buckets)
    count = data.draw(st.integers(1, len(postings)))
    most = buckets.most(postings, held, key_bytes, room, count)
    # any run of the first count postings that many long fits
    for start in range(0, count, max(1, count // 7)):
        run = postings[start : min(count, start + max(most, 0))]
        assert len(buckets.pack(run, key_bytes)) <= room


def test_a_bucket_of_many_postings_is_last_or_a_wider_width_is_taken():
    # 300 files of one key, then a key in the next bucket of two low bytes: the first
    # bucket would count 300, so the block takes three low bytes (one bucket)
    postings = [5 << 32 | file for file in range(300)] + [(5 + 65536) << 32 | 1]
    block = buckets.pack(postings, 4)
    assert block[0] >> 4 == 3
    assert block[1] == 0
    assert buckets.files_of(block, 5, 4) == list(range(300))
    # the other way round, the many are the last bucket: two low bytes, two buckets
    postings = [5 << 32 | 1] + [(5 + 65536) << 32 | file for file in range(300)]
    block = buckets.pack(postings, 4)
    assert block[0] >> 4 == 2
    assert block[1] == 1
    assert buckets.files_of(block, 5 + 65536, 4) == list(range(300))


#: A sound block: two postings of 4-byte keys 1 and 257, in two buckets of one low byte
#: each (its width byte, buckets less one, three high bytes, a count, keys, files).
SOUND = bytes([0x11, 1, 0, 0, 0, 1, 1, 1, 1, 2])


def test_a_block_of_one_byte_counts_no_posting():
    # damaged (misshapen: the checks report it), it is counted, not read past its end
    assert buckets.misshapen(b"\x21", 4)
    assert buckets.count(1, b"\x21", 4) == 0


def test_a_sound_block_of_two_buckets_is_read_as_made():
    assert buckets.pack([1 << 32 | 1, 257 << 32 | 2], 4) == SOUND
    assert not buckets.misshapen(SOUND, 4)
    assert buckets.count(len(SOUND), SOUND[:2], 4) == 2
    assert buckets.files_of(SOUND, 257, 4) == [2]


@pytest.mark.parametrize(
    "data",
    [
        SOUND[:1],  # a head cut short
        bytes([0x01]) + SOUND[1:],  # a key width of 0
        bytes([0x15]) + SOUND[1:],  # a file width of 5
        SOUND[:-1],  # postings of no whole length
        SOUND[:5] + bytes([2]) + SOUND[6:],  # every posting counted: no last bucket
        SOUND[:5] + bytes([0]) + SOUND[6:],  # an empty first bucket
        bytes([0x41, 1, 1]) + bytes(8) + bytes([1, 2]),  # a bucket past 4-byte keys
        bytes([0x31, 1, 0xFF, 1]) + bytes(6) + bytes([1, 2]),  # the same, one high byte
    ],
)
def test_misshapen_blocks_are_refused(data):
    assert buckets.misshapen(data, 4)


def test_buckets_few_and_many_are_counted_as_brute_force_counts_them():
    # two to 256 buckets of one low byte a key: the counts brute force gives, and the
    # block reads back
    import random

    for count in (2, 5, 40, 150, 256):
        rng = random.Random(count)
        highs = [0, count - 1, *(rng.randrange(count) for _ in range(598))]
        keys = sorted({(1000 + high) << 8 | rng.randrange(256) for high in highs})
        postings = [key << 32 | rng.randrange(1, 300) for key in keys]
        block = buckets.pack(postings, 4)
        assert len(block) == brute_bytes(postings, 4)
        width, more = block[0] >> 4, block[1]
        assert width == 1
        assert more == count - 1
        counted = Counter(key >> 8 for key in keys)
        assert list(block[5 : 5 + more]) == [counted[1000 + b] for b in range(more)]
        assert buckets.unpack(block, 4)[0].tolist() == postings
