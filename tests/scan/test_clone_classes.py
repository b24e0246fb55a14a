"""Clone classes, against brute force: linked groups, the weakest link of the strongest
paths, and star classes whose every member pairs with its representative."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from samecode.reports.pairs import Report
from samecode.scan.classes import clone_classes
from samecode.scan.model import Pair

# Pairs among a few files, with sizes of their own and shared counts that give several
# Jaccard values (ties included).
files = [f"f{i}" for i in range(7)]
size_of = {name: 10 + 3 * (i % 3) for i, name in enumerate(files)}
pair_lists = st.lists(
    st.tuples(st.sampled_from(files), st.sampled_from(files), st.integers(6, 10)),
    max_size=14,
).map(
    lambda raw: sorted(
        {
            (min(a, b), max(a, b)): Pair(
                min(a, b), max(a, b), min(s, size_of[a], size_of[b]),
                size_of[min(a, b)], size_of[max(a, b)],
            )
            for a, b, s in raw
            if a != b
        }.values(),
        key=lambda p: (p.a, p.b),
    )
)  # fmt: skip


def connected(members, pairs):
    """Whether the pairs link every member (brute force: grow from the first)."""
    reached = {members[0]}
    while True:
        more = {p.b for p in pairs if p.a in reached} | {p.a for p in pairs if p.b in reached}
        if more <= reached:
            return reached >= set(members)
        reached |= more


@given(pair_lists)
def test_linked_classes_are_the_groups_with_their_weakest_strongest_link(pairs):
    classes = clone_classes([], pairs)
    in_pairs = {p.a for p in pairs} | {p.b for p in pairs}
    assert sorted(m for c in classes for m in c.members) == sorted(in_pairs)
    for clone in classes:
        inside = [p for p in pairs if p.a in clone.members]
        assert all(p.b in clone.members for p in inside)
        assert connected(list(clone.members), inside)
        values = sorted({p.jaccard for p in inside}, reverse=True)
        # the largest value whose pairs at or above it still link every member
        link = next(
            v
            for v in values
            if connected(list(clone.members), [p for p in inside if p.jaccard >= v])
        )
        assert clone.link_jaccard == link
        assert clone.min_jaccard == min(values)
        assert clone.max_jaccard == max(values)
        assert clone.representative == min(clone.members, key=lambda m: (-size_of[m], m))


@given(pair_lists)
def test_star_classes_pair_every_member_with_the_representative(pairs):
    classes = clone_classes([], pairs, "star")
    members = [m for c in classes for m in c.members]
    assert len(members) == len(set(members))  # a file is in one class at most
    partners = {f: set() for f in files}
    for p in pairs:
        partners[p.a].add(p.b)
        partners[p.b].add(p.a)
    for clone in classes:
        others = set(clone.members) - {clone.representative}
        assert others <= partners[clone.representative]
        assert clone.representative == min(clone.members, key=lambda m: (-size_of[m], m))
    # a file in pairs but in no class: every partner was taken by a class before its turn
    alone = ({p.a for p in pairs} | {p.b for p in pairs}) - set(members)
    assert all(partners[f] <= set(members) for f in alone)
    # every class is one the greedy rule makes: its representative is the largest file
    # not in an earlier-chosen class (the classes, taken largest representative first)
    taken: set[str] = set()
    for clone in sorted(classes, key=lambda c: (-size_of[c.representative], c.representative)):
        rep = clone.representative
        assert set(clone.members) == {rep} | (partners[rep] - taken)
        taken |= set(clone.members)
    within = sum(1 for p in pairs if any(p.a in c.members and p.b in c.members for c in classes))
    report = Report({}, pairs, classes, [], len(files))
    assert report.summary()["pairs_between_classes"] == len(pairs) - within
    assert Report({}, pairs, clone_classes([], pairs), [], 7).pairs_between_classes() == 0


def test_a_chain_is_one_linked_class_and_several_stars():
    # f0 - f1 - f2 - f3: each file a little edit of the one before
    chain = [Pair(f"f{i}", f"f{i + 1}", 9, 10, 10) for i in range(3)]
    (linked,) = clone_classes([], chain)
    assert linked.members == ("f0", "f1", "f2", "f3")
    assert [c.members for c in clone_classes([], chain, "star")] == [("f0", "f1"), ("f2", "f3")]
    with pytest.raises(ValueError, match="chaining must be one of linked, star; got 'ring'"):
        clone_classes([], chain, "ring")


def test_identical_files_link_at_one():
    same = [Pair(a, b, 10, 10, 10) for a, b in itertools.combinations("abc", 2)]
    (clone,) = clone_classes([], same)
    assert (clone.min_jaccard, clone.max_jaccard, clone.link_jaccard) == (1.0, 1.0, 1.0)
