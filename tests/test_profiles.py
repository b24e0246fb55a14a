"""Profiles: the defaults of each job, with what is given over them."""

from __future__ import annotations

import pytest

from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.options import FragmentOptions
from samecode.profiles import PROFILES, Profile, UnknownProfileError, profile
from samecode.sources.walk import WalkOptions
from samecode.text.shingling import Shingling


def test_duplicates_is_the_librarys_defaults():
    chosen = profile("duplicates")
    assert chosen.settings() == {}
    assert chosen.fragment_options() == FragmentOptions()
    assert chosen.walk_options() == WalkOptions()
    assert chosen.shingling_rules() == Shingling()


def test_provenance_walks_vendored_folders_and_keeps_small_files_and_boilerplate():
    chosen = profile("provenance")
    walk = chosen.walk_options(WalkOptions(gitignore=False))
    assert (walk.default_excludes, walk.min_tokens, walk.gitignore) == (False, 1, False)
    options = chosen.fragment_options()
    assert (options.keep_licenses, options.keep_imports) == (True, True)


def test_plagiarism_tokenizes_fragments_as_its_shingling():
    chosen = profile("plagiarism")
    options = chosen.fragment_options()
    rules = chosen.shingling_rules()
    assert (options.tokens, options.normalize) == (rules.tokens, rules.normalize) == ("code", True)
    assert (options.k, options.window, options.min_tokens, options.gap) == (5, 4, 10, 5)
    assert options.all_pairs  # every two submissions, whatever a third holds
    assert rules.size == 3


def test_what_is_given_wins():
    chosen = profile("plagiarism")
    assert chosen.fragment_options(k=7, min_tokens=30).k == 7
    assert chosen.fragment_options(normalize=False).normalize is False
    assert chosen.shingling_rules(size=4).size == 4
    assert profile("provenance").walk_options(min_tokens=5).min_tokens == 5


def test_every_profile_is_named_by_its_key_and_makes_valid_options():
    for name, chosen in PROFILES.items():
        assert chosen.name == name
        chosen.fragment_options()
        chosen.walk_options()
        chosen.shingling_rules()


def test_bad_names_and_settings_are_refused():
    with pytest.raises(UnknownProfileError, match="no profile 'homework'; the profiles are"):
        profile("homework")
    with pytest.raises(SamecodeTypeError, match="must be a str"):
        profile(None)  # type: ignore[arg-type]
    with pytest.raises(SamecodeValueError, match="FragmentOptions has no setting 'kay'"):
        Profile("x", "a job", fragments={"kay": 3})
    with pytest.raises(SamecodeTypeError, match="base must be WalkOptions"):
        profile("provenance").walk_options("nope")  # type: ignore[arg-type]


def test_a_profiles_settings_cannot_be_changed_in_place():
    with pytest.raises(TypeError):
        profile("plagiarism").fragments["k"] = 99  # type: ignore[index]
