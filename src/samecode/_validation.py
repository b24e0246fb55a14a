"""Checks and conversions shared by the whole package (internal: not part of the API).

Each raises the package's errors (:mod:`samecode.errors`) with the rule and the offending
value in the message.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import islice
from typing import Any, Protocol, TypeVar, runtime_checkable

from bitarray import bitarray
from bitarray.util import count_xor

from samecode.errors import SamecodeTypeError, SamecodeValueError

__all__ = [
    "b64_bytes",
    "batches",
    "bit_distance",
    "bits_of",
    "check_bool",
    "check_bytes_features",
    "check_int",
    "check_state",
    "check_weight_count",
    "describe",
    "feature_error",
    "token_bytes",
    "token_list",
    "unhex",
    "weighted_batches",
]

_T = TypeVar("_T")
_BYTES_LIKE = (bytes, bytearray, memoryview)


@runtime_checkable
class _HasHash(Protocol):
    def hash(self) -> bitarray: ...


def describe(value: object) -> str:
    """Return ``"type repr"`` for an error message, the repr cut to 60 characters."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{type(value).__name__} {text}"


def check_int(value: object, name: str) -> int:
    """Return ``value`` if it is an int (and not a bool), else raise a ``TypeError``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise SamecodeTypeError(f"{name} must be an int; got {describe(value)}")
    return value


def check_bool(value: object, name: str) -> bool:
    """Return ``value`` if it is a bool, else raise a ``TypeError`` (a string such as
    ``"no"`` is true, the opposite of what it says, so it is refused)."""
    if not isinstance(value, bool):
        raise SamecodeTypeError(f"{name} must be True or False; got {describe(value)}")
    return value


def check_state(state: object, cls: type, version: int) -> dict[str, Any]:
    """Return a pickled state if it is a dict of the expected version, else raise."""
    if not isinstance(state, dict) or state.get("version") != version:
        raise SamecodeValueError(f"unsupported saved state for {cls.__name__}: {state!r}")
    return state


def batches(items: Iterable[_T], size: int) -> Iterator[Sequence[_T]]:
    """Yield ``items`` in batches of ``size`` (slices of a list or tuple, else lists)."""
    if isinstance(items, (list, tuple)):
        for start in range(0, len(items), size):
            yield items[start : start + size]
        return
    iterator = iter(items)
    while batch := list(islice(iterator, size)):
        yield batch


# -- the family's rule for features ---------------------------------------------------
#
# A token is bytes, bytearray or a memoryview (its bytes, in order, whatever its shape),
# and, for the kinds that take text, a str (its UTF-8 bytes). Nothing else is a token:
# not an int, not None, not a numpy array or scalar (whose raw bytes would be an accident
# of its dtype). An update takes one token, an iterable of tokens, or a mapping of token
# to weight (a Counter, say); ``None`` changes nothing.

_PLAIN_BYTES = frozenset({bytes, bytearray})
_PLAIN_TEXT = frozenset({bytes, bytearray, str})


def feature_error(token: object, text: bool) -> TypeError:
    """The ``TypeError`` for something that is not a token of a kind (see above)."""
    kinds = "bytes, bytearray, memoryview or str" if text else "bytes, bytearray or memoryview"
    hint = ""
    if isinstance(token, str) and not text:
        hint = " (encode text first, e.g. text.encode('utf-8'))"
    elif isinstance(token, (tuple, list)) and len(token) == 2:
        hint = " (give weights as a mapping of token to weight)"
    return SamecodeTypeError(f"a feature must be {kinds}{hint}; got {describe(token)}")


def check_bytes_features(items: Iterable[object]) -> None:
    """Raise :func:`feature_error` for the first item that is not bytes-like, if any."""
    for item in items:
        if not isinstance(item, _BYTES_LIKE):
            raise feature_error(item, False) from None


def token_bytes(token: object, text: bool) -> bytes | bytearray:
    """Return a token's bytes by the family's rule, or raise :func:`feature_error`."""
    if isinstance(token, (bytes, bytearray)):
        return token
    if isinstance(token, memoryview):
        return token.tobytes()
    if text and isinstance(token, str):
        return token.encode("utf-8", "surrogatepass")
    raise feature_error(token, text)


def token_list(batch: Sequence[Any], text: bool) -> list[Any]:
    """The non-empty tokens of a batch as bytes (``str`` as UTF-8 where ``text``).

    Batches of plain ``bytes``, ``bytearray`` (and ``str``) take a fast path in C.

    :raises TypeError: for an item that is not a token (:func:`feature_error`).
    """
    kinds = set(map(type, batch))
    if kinds <= _PLAIN_BYTES:
        tokens: list[Any] = batch if isinstance(batch, list) else list(batch)
    elif text and kinds <= _PLAIN_TEXT:
        if kinds == {str}:
            try:
                tokens = list(map(str.encode, batch))
            except UnicodeEncodeError:
                tokens = [token_bytes(t, text) for t in batch]
        else:
            tokens = [token_bytes(t, text) for t in batch]
    else:
        tokens = [token_bytes(t, text) for t in batch]
    if b"" in tokens:
        return [t for t in tokens if t]
    return tokens


def check_weight_count(weight: object) -> int:
    """Return a halo hash's weight (a count: an int >= 0), else raise."""
    if isinstance(weight, bool) or not isinstance(weight, int):
        raise SamecodeTypeError(
            f"a halo hash counts features, so a weight must be an int >= 0; got {describe(weight)}"
        )
    if weight < 0:
        raise SamecodeValueError(
            f"a halo hash counts features, so a weight must be >= 0; got {weight}"
        )
    return weight


def weighted_batches(msg: Any, size: int, text: bool) -> Iterator[tuple[int, list[Any]]]:
    """Read an ``update()`` argument of a halo hash into ``(weight, tokens)`` batches.

    ``msg`` is ``None`` (nothing), one token, an iterable of tokens (each of weight 1) or a
    mapping of token to count. Tokens come as non-empty bytes (:func:`token_list`), at most
    ``size`` per batch. A lone ``str`` is refused where ``text`` is false.

    :raises TypeError: for ``msg`` or an item that is not as above, or a count that is
        not an int (when reached).
    :raises ValueError: for a negative count (when reached).
    """
    if msg is None:
        return iter(())
    if isinstance(msg, (bytes, bytearray, memoryview)) or (text and isinstance(msg, str)):
        return iter([(1, token_list([msg], text))])
    if isinstance(msg, Mapping):
        return _counted_batches(msg, size, text)
    if isinstance(msg, str) or not isinstance(msg, Iterable):
        raise feature_error(msg, text)
    return ((1, token_list(batch, text)) for batch in batches(msg, size))


def _counted_batches(
    counts: Mapping[Any, Any], size: int, text: bool
) -> Iterator[tuple[int, list[Any]]]:
    by_count: dict[int, list[Any]] = {}
    for token, weight in counts.items():
        weight = check_weight_count(weight)
        if weight:
            by_count.setdefault(weight, []).append(token)
    for weight, tokens in by_count.items():
        for batch in batches(tokens, size):
            yield weight, token_list(batch, text)


def unhex(text: object, name: str) -> bytes:
    """Decode hex text (``str`` or ``bytes``), with errors that name the argument."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise SamecodeTypeError(f"{name} must be hexadecimal str or bytes; got {describe(text)}")
    try:
        return binascii.unhexlify(text)
    except (binascii.Error, ValueError) as error:
        raise SamecodeValueError(
            f"{name} must be an even number of hex digits; got {text!r}"
        ) from error


def b64_bytes(text: object, name: str) -> bytes:
    """Decode base64 text, URL-safe or standard alphabet, padding required."""
    if isinstance(text, str):
        try:
            data = text.encode("ascii")
        except UnicodeEncodeError as error:
            raise SamecodeValueError(f"{name} must be base64 text; got {text!r}") from error
    elif isinstance(text, (bytes, bytearray)):
        data = bytes(text)
    else:
        raise SamecodeTypeError(f"{name} must be str or bytes; got {describe(text)}")
    try:
        return base64.b64decode(data.translate(_URLSAFE_TO_STANDARD), validate=True)
    except binascii.Error as error:
        raise SamecodeValueError(f"{name} must be valid base64 text; got {text!r}") from error


_URLSAFE_TO_STANDARD = bytes.maketrans(b"-_", b"+/")


def bits_of(value: object, name: str) -> bitarray:
    """Return a bitarray as is, or the ``hash()`` of an object that has one."""
    if isinstance(value, bitarray):
        return value
    if isinstance(value, _HasHash):
        return value.hash()
    raise SamecodeTypeError(
        f"{name} must be a bitarray or a hash with a hash() method; got {describe(value)}"
    )


def bit_distance(bits1: bitarray, bits2: bitarray) -> int:
    """Return the Hamming distance of two bitarrays of equal length."""
    if len(bits1) != len(bits2):
        raise SamecodeValueError(
            f"bit vectors must have the same length; got {len(bits1)} and {len(bits2)}"
        )
    if bits1.endian != bits2.endian:
        bits2 = bitarray(bits2, endian=bits1.endian)
    return int(count_xor(bits1, bits2))
