"""The array kernels' two paths, for tests that run a stage both ways: pure Python's, and
numpy's (``samecode[fast]``) whatever the input's length."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from samecode import _kernels

#: ``@BOTH`` runs a test with ``pure`` True and, where numpy is installed, False.
BOTH = pytest.mark.parametrize(
    "pure",
    [
        True,
        pytest.param(
            False,
            marks=pytest.mark.skipif(
                importlib.util.find_spec("numpy") is None, reason="numpy is not installed"
            ),
        ),
    ],
)


@contextmanager
def kernels(pure: bool) -> Iterator[None]:
    """Run the kernels in pure Python, or on numpy whatever the input's length."""
    saved = os.environ.get(_kernels.PURE), _kernels.MIN_LENGTH
    os.environ[_kernels.PURE] = "1" if pure else "0"
    _kernels.MIN_LENGTH = 0
    try:
        yield
    finally:
        if saved[0] is None:
            del os.environ[_kernels.PURE]
        else:
            os.environ[_kernels.PURE] = saved[0]
        _kernels.MIN_LENGTH = saved[1]
