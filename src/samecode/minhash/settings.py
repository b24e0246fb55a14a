"""The settings of an LSH index, to store with it: how signatures are made from 64-bit
shingle hashes, and how they are cut into bands and buckets.

>>> settings = LSHSettings(threshold=0.8)
>>> settings.bands * settings.rows <= settings.num_perm
True
"""

from __future__ import annotations

import hashlib
import sys
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from samecode._validation import check_int, describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.minhash._values import agreement, value_bytes, value_code
from samecode.minhash.lsh import MinHashLSH, Signature
from samecode.minhash.minhash import SCHEMES, MinHash
from samecode.minhash.oph import OnePermutationMinHash

__all__ = ["SKETCHES", "SKETCH_VERSION", "LSHSettings"]


#: The sketches :class:`LSHSettings` makes: samecode's one-permutation scheme and
#: datasketch's three.
SKETCHES = (OnePermutationMinHash.scheme, *SCHEMES)
#: The version of how :class:`LSHSettings` makes signatures (from 64-bit hashes) and
#: buckets; stored settings of another version are refused, never silently misread.
SKETCH_VERSION = 1


@dataclass(frozen=True)
class LSHSettings:
    """Everything that fixes an LSH index's answers, to store with it: the sketch's
    scheme, seed and size, the threshold it was tuned for, and its bands and rows.

    A store (such as :class:`~samecode.corpus.store.Corpus`) keeps these and refuses a signature
    made otherwise. Signatures are made from 64-bit shingle hashes: ``update_hashes`` for
    the one-permutation scheme, and for datasketch's schemes ``update_batch`` of each hash
    as 8 little-endian bytes (so datasketch makes the same signature from the same hashes).

    :param scheme: one of :data:`SKETCHES` (``"one-permutation"`` by default).
    :param num_perm: the signature's size.
    :param seed: the sketch's seed.
    :param threshold: the Jaccard similarity the bands are tuned for.
    :param bands: ``b``; with ``rows``, instead of datasketch's choice for ``threshold``.
    :param rows: ``r``.
    :raises TypeError, ValueError: for a parameter of the wrong type or out of range.

    >>> settings = LSHSettings(threshold=0.6)
    >>> settings.bands, settings.rows
    (18, 7)
    >>> a = settings.signature(range(1000, 1300))
    >>> b = settings.signature(range(1010, 1300))
    >>> settings.estimate(settings.values(a), settings.values(b)) > 0.8
    True
    >>> settings.width == len(settings.values(a)) == 4 * 128
    True
    >>> LSHSettings.from_dict(settings.to_dict()) == settings
    True
    """

    scheme: str = OnePermutationMinHash.scheme
    num_perm: int = 128
    seed: int = 1
    threshold: float = 0.6
    bands: int = 0
    rows: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.scheme, str) or self.scheme not in SKETCHES:
            raise SamecodeValueError(
                f"scheme must be one of {', '.join(SKETCHES)}; got {self.scheme!r}"
            )
        index = MinHashLSH(
            self.threshold,
            self.num_perm,
            params=(self.bands, self.rows) if self.bands or self.rows else None,
        )
        self.sketch()  # checks the seed for the scheme
        object.__setattr__(self, "threshold", index.threshold)
        object.__setattr__(self, "bands", index.b)
        object.__setattr__(self, "rows", index.r)

    def sketch(self) -> Signature:
        """An empty signature of this scheme, seed and size."""
        if self.scheme == OnePermutationMinHash.scheme:
            return OnePermutationMinHash(self.num_perm, self.seed)
        return MinHash(self.num_perm, self.seed, scheme=self.scheme)

    def signature(self, hashes: Iterable[int]) -> Signature:
        """The signature of a set of 64-bit hashes (see the class).

        Runtime complexity: that of the scheme's update over ``n`` hashes.

        :raises TypeError: for something that is not an iterable of ints.
        :raises ValueError: for an int outside ``[0, 2**64)``.
        """
        values = _hash_array(hashes)
        sketch = self.sketch()
        if isinstance(sketch, OnePermutationMinHash):
            sketch.update_hashes(values)
        else:
            if sys.byteorder != "little":
                values.byteswap()  # pragma: no cover - big-endian machines
            blob = values.tobytes()
            sketch.update_batch([blob[i : i + 8] for i in range(0, len(blob), 8)])
        return sketch

    def index(self) -> MinHashLSH:
        """An empty in-memory index with these bands and rows."""
        return MinHashLSH(self.threshold, self.num_perm, params=(self.bands, self.rows))

    def values(self, signature: Signature) -> bytes:
        """A signature's values, little-endian (4 bytes each; 8 for ``"affine64"``).

        :raises TypeError, ValueError: for a signature of another scheme, seed or size.
        """
        if not isinstance(signature, (MinHash, OnePermutationMinHash)):
            raise SamecodeTypeError(
                f"expected a MinHash or OnePermutationMinHash; got {describe(signature)}"
            )
        made = (signature.scheme, signature.seed, len(signature))
        if made != (self.scheme, self.seed, self.num_perm):
            raise SamecodeValueError(
                f"these LSH settings take signatures of scheme {self.scheme!r}, seed "
                f"{self.seed} and num_perm {self.num_perm}; got scheme {made[0]!r}, seed "
                f"{made[1]} and num_perm {made[2]}"
            )
        return value_bytes(signature)

    @property
    def width(self) -> int:
        """The length of a signature's :meth:`values`, in bytes."""
        return self.num_perm * array(value_code(self.scheme)).itemsize

    def buckets(self, values: bytes) -> list[int]:
        """The ``b`` buckets of a signature's :meth:`values`, as unsigned 64-bit ints
        (BLAKE2b of the band's number and bytes), for a store's index of bands.

        Two signatures share bucket ``i`` when they agree on band ``i`` (and, with
        probability about ``2**-64`` per band, by chance: a store verifies candidates).
        """
        step = self.rows * len(values) // self.num_perm
        return [
            int.from_bytes(
                hashlib.blake2b(
                    values[band * step : (band + 1) * step],
                    digest_size=8,
                    salt=band.to_bytes(16, "little"),
                ).digest(),
                "little",
            )
            for band in range(self.bands)
        ]

    def estimate(self, first: bytes, second: bytes) -> float:
        """The share of equal values of two signatures' :meth:`values`."""
        return agreement(first, second, value_code(self.scheme), self.num_perm)

    def to_dict(self) -> dict[str, Any]:
        """These settings as a JSON-ready dict (:meth:`from_dict` reads it), with the
        version of the sketches' definition (:data:`SKETCH_VERSION`)."""
        return {
            "version": SKETCH_VERSION,
            "scheme": self.scheme,
            "num_perm": self.num_perm,
            "seed": self.seed,
            "threshold": self.threshold,
            "bands": self.bands,
            "rows": self.rows,
        }

    @classmethod
    def from_dict(cls, data: object) -> LSHSettings:
        """Read :meth:`to_dict`'s output.

        :raises TypeError, ValueError: for anything else, or settings of sketches defined
            otherwise (another :data:`SKETCH_VERSION`).
        """
        names = ("version", "scheme", "num_perm", "seed", "threshold", "bands", "rows")
        if not isinstance(data, dict) or set(data) != set(names):
            raise SamecodeValueError(
                f"LSH settings must be a dict of {', '.join(names)}; got {data!r}"
            )
        if data["version"] != SKETCH_VERSION:
            raise SamecodeValueError(
                f"LSH settings for sketches of definition version {data['version']!r}; this "
                f"samecode makes version {SKETCH_VERSION}"
            )
        settings = cls(**{name: data[name] for name in names[1:]})
        if (settings.bands, settings.rows) != (data["bands"], data["rows"]):
            raise SamecodeValueError(f"LSH settings refused: {data!r}")  # pragma: no cover
        return settings


def _hash_array(hashes: object) -> array[int]:
    """64-bit hashes as an ``array("Q")``, checked."""
    if isinstance(hashes, array) and hashes.typecode == "Q":
        return hashes
    if isinstance(hashes, (str, bytes, bytearray, memoryview)) or not isinstance(hashes, Iterable):
        raise SamecodeTypeError(f"hashes must be an iterable of ints; got {describe(hashes)}")
    values = list(hashes)
    if not set(map(type, values)) <= {int}:
        for value in values:
            check_int(value, "a hash")
    try:
        return array("Q", values)
    except OverflowError:
        raise SamecodeValueError("a hash must be an int from 0 to 2**64 - 1") from None
