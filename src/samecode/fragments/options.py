"""What fragment matching finds, and what it ignores: :class:`FragmentOptions`.

>>> options = FragmentOptions()
>>> options.k, options.window, options.guaranteed
(12, 16, 27)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from samecode._validation import check_bool, check_int, describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.text.shingling import TOKEN_KINDS, Shingling

__all__ = ["UNSTATED", "FragmentOptions"]

#: The parameters that reports and corpora made before they existed do not state, with
#: the value they were made by (catalogues' message ids, and the translations' copies of
#: them, seeded matches then): how a saved baseline or a corpus's metadata without them
#: is read.
UNSTATED: Mapping[str, Any] = MappingProxyType({"keep_msgids": True, "keep_msgid_copies": True})


@dataclass(frozen=True)
class FragmentOptions:
    """The parameters of fragment matching (see :doc:`/fragments` for their costs).

    :param k: tokens per k-gram (a fingerprint), 1 to 1000.
    :param window: k-grams per winnowing window, 1 to 1000. Every shared run of at least
        ``window + k - 1`` tokens (:attr:`guaranteed`) is found.
    :param min_tokens: a region is reported when it holds at least this many matched
        tokens (``>= k``; by default 40, above the guaranteed length, so that every
        shared run of 40 tokens is reported).
    :param gap: exact matches follow each other in a region across at most this many
        unmatched tokens in each file (an edited or inserted line); 0 reports exact
        matches only.
    :param max_repeats: a fingerprint whose k-gram occurs more than this many times in
        the other file seeds no match there (it is *repetitive*; counted): the work per
        fingerprint is bounded, however repetitive the texts.
    :param boilerplate_share: in a tree, a fingerprint found in more than this share of
        the files (and more than ``boilerplate_files`` files) is boilerplate: ignored, and
        counted in the report (MOSS's ``-m``).
    :param boilerplate_files: the fewest files a fingerprint must be in to be boilerplate.
    :param tokens: ``"words"``, ``"code"`` or ``"chars"``, as for a scan.
    :param normalize: identifiers and literals become placeholders (words and code), so
        that a copy with renamed variables matches.
    :param keep_licenses: match licence headers too (by default their tokens are
        ignored: :mod:`~samecode.fragments.boilerplate`).
    :param keep_imports: match import blocks too (ignored by default).
    :param keep_msgids: match the message ids of gettext catalogues too (``.po`` and
        ``.pot`` files; ignored by default: every catalogue of a program holds them).
    :param keep_msgid_copies: where the message ids are ignored, let the tokens of each
        translation that its id holds too (placeholders, markup, links, words left
        untranslated) seed matches (by default they seed none, so that the catalogues of
        different languages do not match on what each copies from the ids; they are
        still compared, and not reported as ignored:
        :func:`~samecode.fragments.boilerplate.message_id_copies`).
    :param all_pairs: in a tree, compare every two files that share text; by default text
        copied into ``N`` files is compared between the first of them and each other copy
        (``N - 1`` pairs, not ``N * (N - 1) / 2``: see
        :meth:`~samecode.fragments.index.FingerprintIndex.candidate_pairs`), which gives
        the same clone classes.
    :raises TypeError, ValueError: for a bad parameter, at construction.
    """

    k: int = 12
    window: int = 16
    min_tokens: int = 40
    gap: int = 20
    max_repeats: int = 16
    boilerplate_share: float = 0.1
    boilerplate_files: int = 10
    tokens: str = "words"
    normalize: bool = False
    keep_licenses: bool = False
    keep_imports: bool = False
    keep_msgids: bool = False
    keep_msgid_copies: bool = False
    all_pairs: bool = False

    def __post_init__(self) -> None:
        for name, low, high in (
            ("k", 1, 1000),
            ("window", 1, 1000),
            ("min_tokens", 1, 10**9),
            ("gap", 0, 1000),
            ("max_repeats", 1, 10**9),
            ("boilerplate_files", 1, 10**9),
        ):
            value = check_int(getattr(self, name), name)
            if not low <= value <= high:
                raise SamecodeValueError(f"{name} must be from {low} to {high}; got {value}")
        if self.min_tokens < self.k:
            raise SamecodeValueError(
                f"min_tokens must be at least k ({self.k}): no match is shorter than k; "
                f"got {self.min_tokens}"
            )
        share = self.boilerplate_share
        if isinstance(share, bool) or not isinstance(share, (int, float)):
            raise SamecodeTypeError(f"boilerplate_share must be a number; got {describe(share)}")
        if not 0 < share <= 1:
            raise SamecodeValueError(
                f"boilerplate_share must be above 0 and at most 1; got {share!r}"
            )
        if not isinstance(self.tokens, str) or self.tokens not in TOKEN_KINDS:
            raise SamecodeValueError(
                f"tokens must be one of {', '.join(TOKEN_KINDS)}; got {describe(self.tokens)}"
            )
        check_bool(self.normalize, "normalize")
        check_bool(self.keep_licenses, "keep_licenses")
        check_bool(self.keep_imports, "keep_imports")
        check_bool(self.keep_msgids, "keep_msgids")
        check_bool(self.keep_msgid_copies, "keep_msgid_copies")
        check_bool(self.all_pairs, "all_pairs")
        Shingling(tokens=self.tokens, normalize=self.normalize)  # refuses chars normalized

    @property
    def shingling(self) -> Shingling:
        """The scan's rules for tokens (:class:`~samecode.text.shingling.Shingling`, its
        size ``k``)."""
        return Shingling(tokens=self.tokens, size=self.k, normalize=self.normalize)

    @property
    def masks_msgid_copies(self) -> bool:
        """Whether what a catalogue's translations copy from their ids seeds nothing: the
        ids masked (not ``keep_msgids``) and the copies not kept (not
        ``keep_msgid_copies``).

        >>> FragmentOptions().masks_msgid_copies
        True
        >>> FragmentOptions(keep_msgids=True).masks_msgid_copies
        False
        """
        return not (self.keep_msgids or self.keep_msgid_copies)

    @property
    def guaranteed(self) -> int:
        """``window + k - 1``: every shared run this long is found."""
        return self.window + self.k - 1

    def boilerplate_limit(self, files: int) -> int:
        """The most files a fingerprint may be in without being boilerplate, in a tree
        of ``files`` files.

        >>> FragmentOptions().boilerplate_limit(50), FragmentOptions().boilerplate_limit(1000)
        (10, 100)
        """
        return max(self.boilerplate_files, int(self.boilerplate_share * files))

    def to_dict(self) -> dict[str, Any]:
        """The parameters, as a report states them.

        >>> FragmentOptions(k=8).to_dict()["k"]
        8
        """
        return {
            "k": self.k,
            "window": self.window,
            "guaranteed": self.guaranteed,
            "min_tokens": self.min_tokens,
            "gap": self.gap,
            "max_repeats": self.max_repeats,
            "boilerplate_share": self.boilerplate_share,
            "boilerplate_files": self.boilerplate_files,
            "tokens": self.tokens,
            "normalize": self.normalize,
            "keep_licenses": self.keep_licenses,
            "keep_imports": self.keep_imports,
            "keep_msgids": self.keep_msgids,
            "keep_msgid_copies": self.keep_msgid_copies,
            "all_pairs": self.all_pairs,
        }
