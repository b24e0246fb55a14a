"""The package's layout: each public name at its one home, every module declares
``__all__``, and every error the package raises on purpose is a SamecodeError."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from fractions import Fraction

import pytest

import samecode
from samecode.engine import RunOptions
from samecode.errors import SamecodeError


def _modules() -> list[str]:
    found = pkgutil.walk_packages(samecode.__path__, "samecode.")
    return sorted(info.name for info in found if info.name != "samecode.__main__")


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
        ScanOptions(run=RunOptions(jobs=0))
