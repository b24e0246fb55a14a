"""Guards for the run under ``python -O`` (tox env ``optimized``)."""

import subprocess
import sys

import pytest


def test_asserts_in_tests_are_checked_even_under_dash_o() -> None:
    # pytest rewrites test modules' asserts into explicit raises, so the suite still
    # checks something under -O; if that ever stopped, this test would fail there.
    with pytest.raises(AssertionError):
        assert sys.flags.optimize < 0


def test_library_errors_do_not_depend_on_asserts() -> None:
    code = (
        "from samecode.halohash import slices, SliceLengthError, BitAverageHaloHash\n"
        "try:\n    slices([1, 2, 3], 2)\nexcept SliceLengthError:\n    pass\n"
        "else:\n    raise SystemExit('slices accepted a bad length')\n"
        "try:\n    BitAverageHaloHash(['text'])\nexcept TypeError:\n    pass\n"
        "else:\n    raise SystemExit('a str feature was accepted')\n"
    )
    result = subprocess.run([sys.executable, "-O", "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
