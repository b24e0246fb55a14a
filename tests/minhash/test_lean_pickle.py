"""LeanMinHash round-trips (issue 20, item 17 in part): pickle, copy and deepcopy give an
equal LeanMinHash with the same byte form, as datasketch's does."""

from __future__ import annotations

import copy
import pickle
from concurrent.futures import ProcessPoolExecutor

import pytest

from samecode.minhash.minhash import LeanMinHash, MinHash


def lean(scheme):
    made = MinHash(num_perm=16, seed=7, scheme=scheme)
    made.update_batch([b"alpha", b"beta", b"gamma"])
    return LeanMinHash(made)


def byte_form(minhash):
    buffer = bytearray(minhash.bytesize())
    minhash.serialize(buffer)
    return bytes(buffer)


@pytest.mark.parametrize("scheme", ["affine32", "affine64", "legacy"])
def test_a_lean_minhash_round_trips(scheme):
    original = lean(scheme)
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(original, protocol))
        assert type(back) is LeanMinHash
        assert back == original
        assert byte_form(back) == byte_form(original)
    for clone in (copy.copy(original), copy.deepcopy(original), original.copy()):
        assert type(clone) is LeanMinHash
        assert clone == original
        assert byte_form(clone) == byte_form(original)
        assert clone.jaccard(original) == 1.0
    with pytest.raises(TypeError):
        copy.copy(original).update(b"x")


def byte_form_of_pickled(data):
    return byte_form(pickle.loads(data))


def test_a_lean_minhash_crosses_a_process_boundary():
    original = lean("affine32")
    with ProcessPoolExecutor(1) as pool:
        assert pool.submit(byte_form_of_pickled, pickle.dumps(original)).result() == byte_form(
            original
        )
        assert pool.submit(copy.copy, original).result() == original
