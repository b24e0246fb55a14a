"""Private: whether the array kernels run on numpy (the ``samecode[fast]`` extra) or in
pure Python.

The stages that are array work (a text's k-gram hashes, winnowing, the k-grams sorted by
hash and their sieves, the seeds of two texts' exact matches, the offsets and ids of
words) have two implementations with the same output: the pure one, always there, and
one on numpy (:mod:`samecode._numpy_kernels`), used when numpy can be imported, the
input is long enough for numpy's fixed cost per call to pay, and the environment variable
``SAMECODE_PURE`` is not set (or is ``0``). The variable is read at each call, so
that worker processes, which inherit the environment, choose as their parent does; numpy
is imported the first time it is used, or before a pool forks its workers
(:func:`preload`), never when the variable is set or numpy is absent.

>>> use_numpy(MIN_LENGTH - 1)  # too short to pay, whatever the environment
False
"""

from __future__ import annotations

import functools
import importlib
import os
import sys

__all__ = ["IMPORT_PAYS", "MIN_LENGTH", "PURE", "import_pays", "preload", "use_numpy"]

#: The environment variable that, set to anything but ``""`` or ``"0"``, keeps every
#: kernel in pure Python.
PURE = "SAMECODE_PURE"
#: The fewest items (token ids, k-gram hashes) worth numpy's fixed cost per call; below
#: it, the pure kernels are faster.
MIN_LENGTH = 128
#: The fewest items worth numpy's import (some 0.1 s, as long as Python takes over two
#: million of them) in a process that has not imported it.
IMPORT_PAYS = 1 << 21


def use_numpy(length: int, calls: int = 1) -> bool:
    """Whether a kernel over ``length`` items runs on numpy: numpy can be imported,
    ``length`` is at least ``calls`` times :data:`MIN_LENGTH`, and ``SAMECODE_PURE`` does
    not ask for pure Python.

    :param calls: for a kernel that makes many calls of numpy for one of a plain kernel
        (each with its fixed cost), how many more items it needs to pay.
    """
    return length >= MIN_LENGTH * calls and os.environ.get(PURE, "") in ("", "0") and _importable()


@functools.cache
def _importable() -> bool:
    """Whether numpy (and so :mod:`samecode._numpy_kernels`) can be imported: asked once
    a process, the first time a kernel could use it."""
    try:
        importlib.import_module("samecode._numpy_kernels")
    except ImportError:
        return False
    return True


def import_pays(items: int) -> bool:
    """Whether numpy is worth using for ``items`` items in all in this process: it is
    imported already (the reading stages import it), or ``items`` is at least
    :data:`IMPORT_PAYS`. For a stage of the main process that the workers' own stages
    may leave without numpy."""
    return "numpy" in sys.modules or items >= IMPORT_PAYS


def preload() -> bool:
    """Import the numpy kernels now, where the kernels would use them (numpy installed,
    ``SAMECODE_PURE`` not set), and say whether they are loaded: for a process about to
    fork workers, which inherit them instead of each importing them at its first task
    (and this process after them, for its own share of the job).

    >>> saved = os.environ.get(PURE)
    >>> os.environ[PURE] = "1"
    >>> preload()  # not with SAMECODE_PURE, whether numpy is there or not
    False
    >>> _ = os.environ.pop(PURE) if saved is None else os.environ.update({PURE: saved})
    """
    return use_numpy(MIN_LENGTH)
