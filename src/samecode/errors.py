"""The errors of the package: every exception samecode raises on purpose is a
:class:`SamecodeError`.

Each also keeps the standard base its kind of failure always had (a wrong type is a
:class:`TypeError`, a bad value a :class:`ValueError`, a file that cannot be used an
:class:`OSError`), so ``except ValueError`` still works, and ``except SamecodeError``
catches everything the package refuses without catching a bug's ``KeyError``:

>>> from samecode.halohash import BitAverageHaloHash
>>> try:
...     BitAverageHaloHash(size_in_bits=7)
... except SamecodeError as error:
...     print(type(error).__name__, isinstance(error, ValueError))
SamecodeValueError True
"""

from __future__ import annotations

__all__ = ["SamecodeError", "SamecodeTypeError", "SamecodeValueError"]


class SamecodeError(Exception):
    """The base of every error samecode raises on purpose."""


class SamecodeTypeError(SamecodeError, TypeError):
    """An argument of the wrong type (the message names it and what it got)."""


class SamecodeValueError(SamecodeError, ValueError):
    """An argument of the right type but a value that breaks a rule (the message states
    the rule and the offending value)."""
