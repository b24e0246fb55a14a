"""The package's layout: old import paths still name the same objects, every module
declares ``__all__``, and every error the package raises on purpose is a SamecodeError."""

from __future__ import annotations

import importlib
import inspect
import pickle
import pkgutil
from fractions import Fraction

import pytest

import samecode
from samecode.errors import SamecodeError

MOVED = {
    "samecode.fingerprint": "samecode.fingerprints.fingerprint",
    "samecode.simhash": "samecode.fingerprints.simhash",
    "samecode.tokens": "samecode.text.tokens",
    "samecode.plan": "samecode.hamming.plan",
    "samecode.index": "samecode.hamming.index",
    "samecode.sqlite": "samecode.hamming.sqlite",
    "samecode.oph": "samecode.minhash.oph",
    "samecode.lsh": "samecode.minhash.lsh",
    "samecode.sqlitelsh": "samecode.minhash.sqlitelsh",
    "samecode.files": "samecode.scan.files",
    "samecode.shingling": "samecode.scan.shingling",
    "samecode.join": "samecode.scan.join",
    "samecode.methods": "samecode.scan.candidates",
    "samecode.corpus": "samecode.scan.corpus",
    "samecode.report": "samecode.scan.report",
}


def _modules() -> list[str]:
    found = pkgutil.walk_packages(samecode.__path__, "samecode.")
    return sorted(info.name for info in found if info.name != "samecode.__main__")


@pytest.mark.parametrize(("old", "new"), sorted(MOVED.items()))
def test_an_old_path_names_the_same_objects(old: str, new: str) -> None:
    before, now = importlib.import_module(old), importlib.import_module(new)
    assert before.__all__, old
    for name in before.__all__:
        assert getattr(before, name) is getattr(now, name), (old, name)


def test_the_minhash_and_scan_paths_kept_their_names() -> None:
    from samecode.minhash import LeanMinHash, MinHash
    from samecode.minhash.minhash import LeanMinHash as Lean
    from samecode.minhash.minhash import MinHash as Sketch
    from samecode.scan import Document, Pair, ScanOptions, scan

    assert (MinHash, LeanMinHash) == (Sketch, Lean)
    assert callable(scan)
    assert ScanOptions().threshold == Fraction(4, 5)
    assert Document.__module__ == "samecode.scan.model"
    assert Pair.__module__ == Document.__module__


def test_pickles_made_under_an_old_path_still_load() -> None:
    # A pickle names the class by module and name; the old module still has it.
    from samecode.minhash.lsh import LSHSettings

    settings = LSHSettings(num_perm=16, threshold=0.5)
    blob = pickle.dumps(settings, protocol=0).replace(b"samecode.minhash.lsh", b"samecode.lsh")
    assert b"samecode.lsh" in blob
    assert pickle.loads(blob) == settings


@pytest.mark.parametrize("name", _modules())
def test_every_module_declares_all(name: str) -> None:
    module = importlib.import_module(name)
    assert isinstance(getattr(module, "__all__", None), list), name
    for exported in module.__all__:
        assert hasattr(module, exported), (name, exported)


def test_every_error_class_of_the_package_is_a_samecode_error() -> None:
    found = []
    for name in _modules():
        for _, value in inspect.getmembers(importlib.import_module(name), inspect.isclass):
            if issubclass(value, BaseException) and value.__module__.startswith("samecode"):
                found.append(value)
                assert issubclass(value, SamecodeError), value
    assert len(found) >= 8


def test_refusals_are_samecode_errors_with_their_standard_bases() -> None:
    from samecode.halohash import BitAverageHaloHash
    from samecode.minhash import MinHash
    from samecode.scan import ScanOptions

    with pytest.raises(SamecodeError) as caught:
        BitAverageHaloHash(size_in_bits=7)
    assert isinstance(caught.value, ValueError)
    with pytest.raises(SamecodeError) as caught:
        MinHash(num_perm="8")  # type: ignore[arg-type]
    assert isinstance(caught.value, TypeError)
    with pytest.raises(SamecodeError):
        ScanOptions(jobs=0)
