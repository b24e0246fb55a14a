"""Profiles: the defaults that fit each of the three jobs samecode does.

One set of defaults cannot serve every job. Finding copies inside one's own tree wants
vendored folders left out and boilerplate ignored; finding where code came from wants
the opposite; checking assignments wants short fingerprints and renames undone. A
:class:`Profile` names the settings that differ from the library's defaults for its job;
anything given explicitly still wins:

* ``duplicates``: copies within one's own tree, the library's defaults unchanged.
* ``provenance``: where code came from (licences, vendored copies). Vendored and
  third-party folders are walked (``default_excludes=False``), small files count
  (``min_tokens=1``), and licence headers and imports seed matches like any text
  (``keep_licenses``, ``keep_imports``). Identical files are reported whole under every
  profile.
* ``plagiarism``: assignments of 50 to 300 tokens, disguised. Code tokens with names and
  literals normalised (``tokens="code"``, ``normalize=True``: comments, layout and renames
  move nothing), short shingles (3) and short fingerprints (``k=5``, ``window=4``,
  regions of 10 tokens), and a gap of 5 tokens (a region does not walk across reordered
  code); every two submissions are compared (``all_pairs``: a pair is not left out
  because a third submission holds the same text), and pairs are ranked by similarity.
  On the benchmark of six levels of disguise
  (``benchmarks/bench_plagiarism.py``, docs/benchmarks.rst: five seeds of 80 programs
  in Python, Java and C), fragments with these settings score a ROC AUC of 0.995 over all
  levels (Dolos 3.5.1: 0.991), ahead of Dolos at levels 3 to 6 in every seed and level
  with it at 1 and 2; the library's defaults score 0.599 (most programs get no region of
  40 tokens).

>>> PROFILES["plagiarism"].fragment_options().k
5
>>> PROFILES["plagiarism"].fragment_options(k=8).k  # given explicitly: it wins
8
>>> PROFILES["provenance"].walk_options().default_excludes
False
>>> PROFILES["duplicates"].settings()
{}
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from types import MappingProxyType
from typing import Any

from samecode._validation import describe
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.options import FragmentOptions
from samecode.sources.walk import WalkOptions
from samecode.text.shingling import Shingling

__all__ = ["PROFILES", "Profile", "UnknownProfileError", "profile"]


class UnknownProfileError(SamecodeValueError):
    """A profile name that is none of :data:`PROFILES`."""


@dataclass(frozen=True)
class Profile:
    """The settings a job wants, by the fields of the options they set: ``shingling``
    (:class:`~samecode.text.shingling.Shingling`: ``tokens`` and ``normalize`` apply to
    fragments too), ``walk`` (:class:`~samecode.sources.walk.WalkOptions`) and
    ``fragments`` (:class:`~samecode.fragments.options.FragmentOptions`)."""

    name: str
    job: str
    shingling: Mapping[str, Any] = field(default_factory=dict)
    walk: Mapping[str, Any] = field(default_factory=dict)
    fragments: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for group, kind in (
            ("shingling", Shingling),
            ("walk", WalkOptions),
            ("fragments", FragmentOptions),
        ):
            values = getattr(self, group)
            unknown = sorted(set(values) - {item.name for item in fields(kind)})
            if unknown:
                raise SamecodeValueError(f"{kind.__name__} has no setting {unknown[0]!r}")
            object.__setattr__(self, group, MappingProxyType(dict(values)))  # read-only

    def settings(self) -> dict[str, dict[str, Any]]:
        """What the profile sets, by group (``shingling``, ``walk``, ``fragments``),
        leaving out the groups it leaves alone: what a report's parameters state."""
        groups = {"shingling": self.shingling, "walk": self.walk, "fragments": self.fragments}
        return {name: dict(values) for name, values in groups.items() if values}

    def shingling_rules(self, **given: Any) -> Shingling:
        """The :class:`~samecode.text.shingling.Shingling` of this profile, with the
        settings ``given`` over it.

        :raises TypeError, ValueError: as :class:`~samecode.text.shingling.Shingling` does.
        """
        return Shingling(**{**self.shingling, **given})

    def walk_options(self, base: WalkOptions | None = None, **given: Any) -> WalkOptions:
        """The :class:`~samecode.sources.walk.WalkOptions` of this profile (over ``base``,
        the library's defaults if ``None``), with the settings ``given`` over it."""
        base = WalkOptions() if base is None else base
        if not isinstance(base, WalkOptions):
            raise SamecodeTypeError(f"base must be WalkOptions or None; got {describe(base)}")
        return replace(base, **{**self.walk, **given})

    def fragment_options(self, **given: Any) -> FragmentOptions:
        """The :class:`~samecode.fragments.options.FragmentOptions` of this profile
        (tokenized as its shingling), with the settings ``given`` over it.

        :raises TypeError, ValueError: as :class:`~samecode.fragments.options.FragmentOptions`
            does.
        """
        tokenizing = {key: self.shingling[key] for key in ("tokens", "normalize")
                      if key in self.shingling}  # fmt: skip
        return FragmentOptions(**{**tokenizing, **self.fragments, **given})


#: The profiles, by name: ``duplicates`` (the library's defaults), ``provenance`` and
#: ``plagiarism`` (see the module's description).
PROFILES: Mapping[str, Profile] = MappingProxyType(
    {
        "duplicates": Profile("duplicates", "copies within one's own tree"),
        "provenance": Profile(
            "provenance",
            "where code came from: vendored copies, licences",
            walk={"default_excludes": False, "min_tokens": 1},
            fragments={
                "keep_licenses": True,
                "keep_imports": True,
                "keep_msgids": True,
                "keep_msgid_copies": True,
            },
        ),
        "plagiarism": Profile(
            "plagiarism",
            "assignments checked for copies, renamed and reordered",
            shingling={"tokens": "code", "normalize": True, "size": 3},
            fragments={"k": 5, "window": 4, "min_tokens": 10, "gap": 5, "all_pairs": True},
        ),
    }
)


def profile(name: str) -> Profile:
    """The profile called ``name`` (one of :data:`PROFILES`).

    :raises TypeError: if ``name`` is not a str.
    :raises UnknownProfileError: if there is no such profile.

    >>> profile("provenance").fragments["keep_imports"]
    True
    >>> profile("homework")
    Traceback (most recent call last):
    ...
    samecode.profiles.UnknownProfileError: no profile 'homework'; the profiles are ...
    """
    if not isinstance(name, str):
        raise SamecodeTypeError(f"a profile's name must be a str; got {describe(name)}")
    found = PROFILES.get(name)
    if found is None:
        raise UnknownProfileError(f"no profile {name!r}; the profiles are {', '.join(PROFILES)}")
    return found
