"""The package's layout: each public name at its one home, every module declares
``__all__``, and every error the package raises on purpose is a SamecodeError."""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import subprocess
import sys
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


def test_importing_halohash_loads_none_of_the_layers_its_clients_never_use() -> None:
    # SameCode's clients import samecode.halohash and samecode.chunking; the package's
    # names are imported when asked for, not with the package
    code = (
        "import json, sys, samecode.halohash, samecode.chunking; "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('samecode'))))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(run.stdout)
    assert "samecode.halohash" in loaded
    layers = {m.split(".")[1] for m in loaded if "." in m}
    assert "fingerprints" in layers  # what halohash is made of
    assert not layers & {"hamming", "minhash", "fragments", "scan", "corpus"}


def test_the_packages_names_are_those_of_their_modules() -> None:
    namespace: dict[str, object] = {}
    exec("from samecode import *", namespace)  # the star import is the subject
    assert set(namespace) - {"__builtins__"} == set(samecode.__all__)
    from samecode.halohash import BitAverageHaloHash
    from samecode.minhash.sqlitelsh import SQLiteLSH

    assert (samecode.BitAverageHaloHash, samecode.SQLiteLSH) == (BitAverageHaloHash, SQLiteLSH)
    assert samecode.hamming.index.HammingIndex is samecode.HammingIndex  # a module, as before
    assert {"MinHash", "halohash"} <= set(dir(samecode))
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        samecode.nothing  # noqa: B018 - the look-up is the subject


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
