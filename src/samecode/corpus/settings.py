"""What a corpus is made with, and the one place that says whether other settings fit it.

A corpus's settings are fixed when it is made (:meth:`Corpus.create
<samecode.corpus.store.Corpus.create>`): its shingling, its ``min_threshold``, how it
finds candidates (prefixes, or LSH bands by :class:`~samecode.minhash.settings.LSHSettings`)
and, if it stores fragments, their recorded parameters. :class:`CorpusSettings` holds
them; :meth:`CorpusSettings.check_given` refuses a setting given for the corpus (as on a
command line: ``index add`` to an existing corpus) and :meth:`CorpusSettings.mismatches`
compares all of what a corpus would be made with.

>>> made = CorpusSettings(Shingling(), Fraction(4, 5))
>>> made.check_given(min_threshold=0.7)
Traceback (most recent call last):
...
samecode.corpus.settings.CorpusSettingsError: the corpus was made with min_threshold ...
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from samecode._validation import describe
from samecode.corpus.candidates import BandIndex, PrefixIndex, candidate_index
from samecode.corpus.records import LAYOUT
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.options import UNSTATED, FragmentOptions
from samecode.minhash.settings import LSHSettings
from samecode.scan.candidates import default_lsh_threshold
from samecode.similarity import exact_threshold
from samecode.text.shingling import Shingling

__all__ = [
    "BLOCKS_VERSION",
    "BUCKETS_VERSION",
    "DICTIONARY_VERSION",
    "DICTIONARY_VERSIONS",
    "FRAGMENTS_VERSION",
    "FRAGMENT_KEYS",
    "GIVEN_FRAGMENT_KEYS",
    "PACKED_VERSION",
    "TEXT_RULES",
    "TEXT_VERSION",
    "TEXT_VERSIONS",
    "CorpusSettings",
    "CorpusSettingsError",
    "corpus_lsh",
    "recorded_fragment_options",
    "recorded_fragments",
]

#: The format version of a corpus that stores fragments (its metadata then names its
#: ``candidates``, ``prefix`` or ``lsh``, and its ``fragments`` parameters); one made
#: without them is made as its candidate index's version (1 or 2), so an older samecode
#: reads it.
FRAGMENTS_VERSION = "3"
#: The format version of a corpus that keeps every file's text (compressed) instead of
#: its shingles and fragment record, and its prefixes as short keys (its metadata names
#: its ``candidates``, and its ``fragments`` parameters if it stores fragments).
TEXT_VERSION = "4"
#: The format version of a corpus that keeps its texts as :data:`TEXT_VERSION` does, its
#: key tables' postings packed in blocks (:mod:`samecode.corpus.key_blocks`).
BLOCKS_VERSION = "5"
#: The format version of a corpus as :data:`BLOCKS_VERSION`, its blocks packed (the high
#: bytes of a block's keys once, each key's low bytes and each file in the fewest whole
#: bytes).
PACKED_VERSION = "6"
#: The format version of a corpus as :data:`PACKED_VERSION`, its texts compressed against
#: a dictionary of its own (:mod:`samecode.corpus.text_dictionary`).
DICTIONARY_VERSION = "7"
#: The format version of a corpus as :data:`DICTIONARY_VERSION`, its blocks packed in
#: buckets (fewer low bytes of each key, counted by the bytes above them): what
#: :meth:`Corpus.create <samecode.corpus.store.Corpus.create>` makes.
BUCKETS_VERSION = "8"
#: The versions that keep every file's text (compressed).
TEXT_VERSIONS = (TEXT_VERSION, BLOCKS_VERSION, PACKED_VERSION, DICTIONARY_VERSION, BUCKETS_VERSION)
#: The versions whose texts are compressed against the corpus's dictionary.
DICTIONARY_VERSIONS = (DICTIONARY_VERSION, BUCKETS_VERSION)
#: The version of the rules a corpus of :data:`TEXT_VERSION` makes a kept text's
#: shingles and fragments by again (tokenizing, languages, what boilerplate is): a
#: samecode whose rules differ refuses the corpus, whose keys were made by the others.
#: A corpus that records none was made by version 1.
TEXT_RULES = "1"
#: The fragment parameters a corpus records (the others are the query's).
FRAGMENT_KEYS = (
    "k",
    "window",
    "tokens",
    "normalize",
    "keep_licenses",
    "keep_imports",
    "keep_msgids",
    "keep_msgid_copies",
)
#: Of those, the ones given on their own (the tokenization is the shingling's).
GIVEN_FRAGMENT_KEYS = (
    "k",
    "window",
    "keep_licenses",
    "keep_imports",
    "keep_msgids",
    "keep_msgid_copies",
)


class CorpusSettingsError(SamecodeValueError):
    """A setting given for a corpus that it was made otherwise (:meth:`CorpusSettings.check_given`):
    its name (``setting``), what the corpus holds (``stored``; ``None`` where the corpus has
    no such setting: no LSH, no fragments) and what was given (``given``)."""

    def __init__(self, setting: str, stored: object, given: object) -> None:
        held = "none" if stored is None else repr(stored)
        super().__init__(
            f"the corpus was made with {setting} {held}; got {given!r} (it is set when a "
            "corpus is made)"
        )
        self.setting, self.stored, self.given = setting, stored, given


@dataclass(frozen=True)
class CorpusSettings:
    """What a corpus was made with.

    :param shingling: its shingling rules.
    :param min_threshold: the lowest threshold it answers, exactly.
    :param lsh: its LSH settings, or ``None`` for a corpus that finds candidates by
        prefixes.
    :param fragments: its fragment options, or ``None`` for a corpus without fragments.
    :param profile: the :mod:`~samecode.profiles` profile it was made with, or ``None``
        (none named: the library's defaults, as a corpus made before profiles).
    """

    shingling: Shingling
    min_threshold: Fraction
    lsh: LSHSettings | None = None
    fragments: FragmentOptions | None = None
    profile: str | None = None

    @classmethod
    def from_meta(cls, meta: Mapping[str, str]) -> CorpusSettings:
        """The settings a corpus file's metadata records.

        :raises KeyError: for a setting the metadata lacks.
        :raises TypeError, ValueError: for a setting it records wrongly.
        """
        shingling = Shingling(**json.loads(meta["shingling"]))
        lowest = exact_threshold(meta["min_threshold"])
        version = meta["version"]
        kind = BandIndex.version if version == BandIndex.version else PrefixIndex.version
        fragments = None
        if version == FRAGMENTS_VERSION or version in TEXT_VERSIONS:
            kinds = {"prefix": PrefixIndex.version, "lsh": BandIndex.version}
            if meta["candidates"] not in kinds:
                raise SamecodeValueError(f"unknown candidates {meta['candidates']!r}")
            kind = kinds[meta["candidates"]]
            if version == FRAGMENTS_VERSION or "fragments" in meta:
                fragments = recorded_fragment_options(json.loads(meta["fragments"]), shingling)
        lsh = None
        if kind == BandIndex.version:
            lsh = LSHSettings.from_dict(json.loads(meta["lsh"]))
        elif "lsh" in meta:
            raise SamecodeValueError(
                f"a version {version} corpus has no LSH settings (it finds candidates by prefixes)"
            )
        return cls(shingling, lowest, lsh, fragments, meta.get("profile"))

    def meta(self) -> list[tuple[str, str]]:
        """What a corpus file's metadata records of these settings, its format version
        included.

        >>> dict(CorpusSettings(Shingling(), Fraction(4, 5)).meta())["version"]
        '8'
        """
        candidates = candidate_index(self.min_threshold, self.lsh)
        recorded = [("candidates", "lsh" if self.lsh is not None else "prefix")]
        if self.fragments is not None:
            fragments = recorded_fragments(self.fragments, self.shingling)
            recorded.append(("fragments", json.dumps(fragments, sort_keys=True)))
        return [
            ("version", BUCKETS_VERSION),
            ("shingling", json.dumps(self.shingling.to_dict(), sort_keys=True)),
            ("min_threshold", str(self.min_threshold)),
            *candidates.meta(),
            *recorded,
            *([] if self.profile is None else [("profile", self.profile)]),
            ("text_rules", TEXT_RULES),
        ]

    def check_given(
        self,
        *,
        min_threshold: Fraction | float | str | None = None,
        candidates: str | None = None,
        num_perm: int | None = None,
        lsh_threshold: float | None = None,
        fragments: bool = False,
        profile: str | None = None,
        **stored_fragments: object,
    ) -> None:
        """Refuse settings given for this corpus that it was made otherwise (``None``: not
        given; a corpus's settings are fixed when it is made). The checks run in this
        order, the first that fails raised: the ``profile`` (a corpus that names none
        was made with the library's defaults, ``duplicates``), fragments asked of a
        corpus that stores none (``fragments`` true, or any of ``k``, ``window``,
        ``keep_licenses``, ``keep_imports``, ``keep_msgids`` and ``keep_msgid_copies``
        given), each of those six,
        ``min_threshold``, ``candidates`` (``"prefix"`` or ``"lsh"``), ``num_perm`` and
        ``lsh_threshold``.

        :param stored_fragments: ``k``, ``window``, ``keep_licenses``, ``keep_imports``,
            ``keep_msgids``, ``keep_msgid_copies``.
        :raises CorpusSettingsError: naming the first setting that differs.
        :raises TypeError: for a name that is no setting a corpus stores.

        >>> made = CorpusSettings(Shingling(), Fraction(4, 5))
        >>> made.check_given(min_threshold="0.8", candidates="prefix")
        >>> made.check_given(num_perm=64)
        Traceback (most recent call last):
        ...
        samecode.corpus.settings.CorpusSettingsError: the corpus was made with lsh none; ...
        """
        made_with = self.profile or "duplicates"
        if profile is not None and profile != made_with:
            raise CorpusSettingsError("profile", made_with, profile)
        unknown = sorted(set(stored_fragments) - set(GIVEN_FRAGMENT_KEYS))
        if unknown:
            raise SamecodeTypeError(f"check_given got settings a corpus does not store: {unknown}")
        given = [(name, stored_fragments.get(name)) for name in GIVEN_FRAGMENT_KEYS]
        given = [(name, value) for name, value in given if value is not None]
        held = self.fragments
        if held is None:
            if fragments or given:
                raise CorpusSettingsError("fragments", None, True)
        else:
            for name, value in given:
                if value != getattr(held, name):
                    raise CorpusSettingsError(name, getattr(held, name), value)
        if min_threshold is not None and exact_threshold(min_threshold) != self.min_threshold:
            raise CorpusSettingsError("min_threshold", self.min_threshold, min_threshold)
        kind = "prefix" if self.lsh is None else "lsh"
        if candidates is not None and candidates != kind:
            raise CorpusSettingsError("candidates", kind, candidates)
        for name, value in (("num_perm", num_perm), ("lsh_threshold", lsh_threshold)):
            if value is None:
                continue
            if self.lsh is None:
                raise CorpusSettingsError("lsh", None, {name: value})
            stored = self.lsh.num_perm if name == "num_perm" else self.lsh.threshold
            if float(value) != stored:
                raise CorpusSettingsError(name, stored, value)

    def mismatches(
        self,
        shingling: Shingling | None = None,
        *,
        min_threshold: Fraction | float | str = Fraction(4, 5),
        lsh: LSHSettings | None = None,
        fragments: FragmentOptions | None = None,
        profile: str | None = None,
    ) -> list[str]:
        """How the settings ``Corpus.create`` would be given differ from this corpus's: one
        text per setting that differs (``"<setting> is <stored> there, <asked> here"``),
        none if it was made with these. Where :meth:`check_given` refuses one setting given
        on a command line, this compares the whole of what a corpus is made with.

        :param shingling: as for ``Corpus.create`` (``None``: the default rules).
        :param min_threshold: as for ``Corpus.create``.
        :param lsh: as for ``Corpus.create``.
        :param fragments: as for ``Corpus.create`` (its recorded fields are compared).
        :param profile: as for ``Corpus.create``.
        :raises TypeError, ValueError: for a setting ``Corpus.create`` would refuse.

        >>> made = CorpusSettings(Shingling(), Fraction(4, 5))
        >>> made.mismatches(), made.mismatches(Shingling(size=3))
        ([], ['shingling size is 5 there, 3 here'])
        """
        asked = shingling or Shingling()
        if not isinstance(asked, Shingling):
            raise SamecodeTypeError(f"shingling must be a Shingling; got {describe(asked)}")
        if lsh is not None and not isinstance(lsh, LSHSettings):
            raise SamecodeTypeError(f"lsh must be LSHSettings or None; got {describe(lsh)}")
        wanted = None if fragments is None else recorded_fragments(fragments, asked)
        held = self.fragments
        held_record = None if held is None else recorded_fragments(held, self.shingling)
        pairs = {
            "shingling": (self.shingling.to_dict(), asked.to_dict()),
            "min_threshold": (self.min_threshold, exact_threshold(min_threshold)),
            "lsh": (
                None if self.lsh is None else self.lsh.to_dict(),
                None if lsh is None else lsh.to_dict(),
            ),
            "fragments": (held_record, wanted),
            "profile": (self.profile, profile),
        }
        return [text for name, pair in pairs.items() for text in _differences(name, *pair)]


def recorded_fragments(fragments: object, shingling: Shingling) -> dict[str, Any]:
    """The fragment parameters a corpus records, checked to tokenize as ``shingling``."""

    if not isinstance(fragments, FragmentOptions):
        raise SamecodeTypeError(
            f"fragments must be FragmentOptions or None; got {describe(fragments)}"
        )
    if (fragments.tokens, fragments.normalize) != (shingling.tokens, shingling.normalize):
        raise SamecodeValueError(
            f"fragments must tokenize as the corpus's shingling (tokens={shingling.tokens!r}, "
            f"normalize={shingling.normalize}); got tokens={fragments.tokens!r}, "
            f"normalize={fragments.normalize}"
        )
    return {"layout": LAYOUT, **{key: getattr(fragments, key) for key in FRAGMENT_KEYS}}


def _differences(name: str, there: object, here: object) -> list[str]:
    """How setting ``name`` differs, as :meth:`CorpusSettings.mismatches` says it: for settings
    made of fields, one text per field that differs."""
    if isinstance(there, dict) and isinstance(here, dict):
        return [
            f"{name} {key} is {there.get(key)!r} there, {here.get(key)!r} here"
            for key in sorted(there.keys() | here.keys())
            if there.get(key) != here.get(key)
        ]

    def text(value: object) -> str:
        if isinstance(value, dict):
            return ", ".join(f"{key}={item!r}" for key, item in sorted(value.items()))
        return "none" if value is None else str(value)

    return [f"{name} is {text(there)} there, {text(here)} here"] if there != here else []


def recorded_fragment_options(recorded: Any, shingling: Shingling) -> FragmentOptions:
    """The :class:`~samecode.fragments.options.FragmentOptions` a corpus recorded."""

    if not isinstance(recorded, dict) or recorded.get("layout") != LAYOUT:
        raise SamecodeValueError(
            f"its fragments are stored in layout {describe(recorded)}; this samecode reads "
            f"layout {LAYOUT}"
        )
    chosen: dict[str, Any] = {key: recorded.get(key, UNSTATED.get(key)) for key in FRAGMENT_KEYS}
    missing = [key for key, value in chosen.items() if value is None]
    if missing:
        raise KeyError(missing[0])
    # a TypeError for a k that is not a number: the metadata is refused
    options = FragmentOptions(**chosen, min_tokens=max(FragmentOptions.min_tokens, chosen["k"]))
    if (options.tokens, options.normalize) != (shingling.tokens, shingling.normalize):
        raise SamecodeValueError("its fragments tokenize otherwise than its shingling")
    return options


def corpus_lsh(
    min_threshold: Fraction | float | str,
    *,
    num_perm: int | None = None,
    threshold: float | None = None,
) -> LSHSettings:
    """The LSH settings of a new corpus that finds candidates by MinHash signatures:
    ``num_perm`` values (128 by default), banded for ``threshold``, by default the one
    the ``minhash`` scan method uses for ``min_threshold``
    (:func:`~samecode.scan.candidates.default_lsh_threshold`: 0.2 lower), so that the
    bands propose nearly every pair that reaches it.

    :raises TypeError, ValueError: for a setting :class:`~samecode.minhash.settings.LSHSettings`
        refuses.

    >>> settings = corpus_lsh("0.8")
    >>> settings.num_perm, settings.threshold
    (128, 0.6)
    """
    lowest = exact_threshold(min_threshold)
    chosen = default_lsh_threshold(lowest) if threshold is None else threshold
    return LSHSettings(num_perm=128 if num_perm is None else num_perm, threshold=float(chosen))
