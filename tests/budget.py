"""Deterministic cost checks for tests: no clocks.

``line_budget(n)`` fails a block that runs more than ``n`` lines of samecode's own Python
(a quadratic loop over a few thousand items runs millions of them and is stopped at once,
where a timed test would wait for it); ``peak_memory()`` measures the largest extra memory
a block allocates, with :mod:`tracemalloc`.
"""

from __future__ import annotations

import os
import sys
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import samecode

__all__ = ["BudgetExceeded", "line_budget", "peak_memory"]

_PACKAGE = os.path.dirname(os.path.abspath(samecode.__file__))


class BudgetExceeded(AssertionError):
    """A block ran more lines of samecode than its budget."""


@contextmanager
def line_budget(limit: int) -> Iterator[list[int]]:
    """Fail (at once) if the block runs more than ``limit`` lines of samecode code.

    Yields a one-item list holding the count so far.
    """
    count = [0]

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            count[0] += 1
            if count[0] > limit:
                raise BudgetExceeded(f"more than {limit} lines of samecode ran")
        return local

    def outer(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "call" and frame.f_code.co_filename.startswith(_PACKAGE):
            return local
        return None

    previous = sys.gettrace()
    sys.settrace(outer)
    try:
        yield count
    finally:
        sys.settrace(previous)


@contextmanager
def peak_memory() -> Iterator[list[int]]:
    """Measure the peak of memory allocated in the block, in bytes (``result[0]``)."""
    result = [0]
    tracemalloc.start()
    try:
        yield result
    finally:
        _, result[0] = tracemalloc.get_traced_memory()
        tracemalloc.stop()
