"""Clone classes: N places of one text are one class of N occurrences, in a fixed order."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from samecode.fragments.classes import fragment_classes, region_classes
from samecode.fragments.index import FingerprintIndex
from samecode.fragments.options import FragmentOptions
from samecode.fragments.regions import Region, find_regions
from samecode.fragments.tokens import TokenSpans
from samecode.text.shingling import Shingling

BLOCK = "\n".join(f"result_{i} = transform(source_{i}, factor={i})" for i in range(10))


def all_regions(texts, options):
    spans = {name: TokenSpans.of(text, Shingling()) for name, text in texts.items()}
    names = sorted(spans)
    found = []
    for i, a in enumerate(names):
        for b in names[i:]:
            found += find_regions(spans[a], spans[b], options, paths=(a, b))[0]
    return found


def test_n_copies_are_one_class_of_n_occurrences_whatever_the_order():
    texts = {f"f{n}.py": f"header_{n} = {n}\n" * n + BLOCK + f"\ntail_{n}()" for n in range(6)}
    options = FragmentOptions(k=6, window=6)
    regions = all_regions(texts, options)
    assert len(regions) == 15  # every pair of six files
    (clone,) = fragment_classes(regions)
    assert [o.path for o in clone.occurrences] == sorted(texts)
    assert [(o.start, o.end) for o in clone.occurrences] == [(n + 1, n + 10) for n in range(6)]
    assert clone.regions == 15
    assert fragment_classes(reversed(regions)) == [clone]


def test_a_text_repeated_within_a_file_is_a_class_of_its_places():
    text = BLOCK + "\nmiddle = other_things(1, 2, 3)\n" + BLOCK
    (clone,) = fragment_classes(all_regions({"one.py": text}, FragmentOptions()))
    assert [(o.path, o.start, o.end) for o in clone.occurrences] == [
        ("one.py", 1, 10),
        ("one.py", 12, 21),
    ]


def region(a, a_range, b, b_range):
    return Region(a, b, a_range[0] + 1, a_range[1], b_range[0] + 1, b_range[1], 5, 0.1, 0.1,
                  *a_range, *b_range, ())  # fmt: skip


LINKS = st.lists(
    st.tuples(
        st.sampled_from("abcd"),
        st.integers(0, 30),
        st.sampled_from("abcd"),
        st.integers(0, 30),
        st.integers(1, 10),
    ),
    max_size=12,
)


def brute_force_classes(regions, gap):
    """Classes by the definition, pair by pair: alike ends (one file, firsts and stops at
    most gap apart) are one occurrence; regions link occurrences."""
    ends = sorted({(r.a, r.a_first, r.a_stop) for r in regions} |
                  {(r.b, r.b_first, r.b_stop) for r in regions})  # fmt: skip
    group = {end: end for end in ends}

    def root(x):
        while group[x] != x:
            x = group[x]
        return x

    for x in ends:
        for y in ends:
            if x[0] == y[0] and abs(x[1] - y[1]) <= gap and abs(x[2] - y[2]) <= gap:
                group[root(x)] = root(y)
    occurrence = {end: root(end) for end in ends}
    members = {}
    for end in ends:
        members.setdefault(occurrence[end], []).append(end)
    span = {key: (key[0], min(e[1] for e in found), max(e[2] for e in found))
            for key, found in members.items()}  # fmt: skip
    links = {key: key for key in members}

    def top(x):
        while links[x] != x:
            x = links[x]
        return x

    for r in regions:
        links[top(occurrence[(r.a, r.a_first, r.a_stop)])] = top(
            occurrence[(r.b, r.b_first, r.b_stop)]
        )
    classes = {}
    for key in members:
        classes.setdefault(top(key), set()).add(span[key])
    found = sorted(sorted(c) for c in classes.values() if len(c) > 1)
    return found, occurrence, top


@given(LINKS, st.integers(0, 6), st.randoms())
def test_classes_are_those_of_the_definition(links, gap, random):
    regions = [region(a, (i, i + n), b, (j, j + n)) for a, i, b, j, n in links]
    classes, numbers = region_classes(regions, gap)
    shuffled = regions[:]
    random.shuffle(shuffled)
    assert fragment_classes(shuffled, gap) == classes
    expected, occurrence, top = brute_force_classes(regions, gap)
    assert sorted(sorted((o.path, o.first, o.stop) for o in c.occurrences) for c in classes) == (
        expected
    )
    for r, number in zip(regions, numbers):
        a, b = occurrence[(r.a, r.a_first, r.a_stop)], occurrence[(r.b, r.b_first, r.b_stop)]
        if a == b:  # within one occurrence
            assert number is None
        else:
            clone = classes[number - 1]
            places = {(o.path, o.first) for o in clone.occurrences}
            assert {(r.a, a[1]), (r.b, b[1])} <= places or top(a) == top(b)
    for clone in classes:
        assert len(clone.occurrences) >= 2
        keys = [(o.path, o.first) for o in clone.occurrences]
        assert keys == sorted(keys)
        assert clone.regions == sum(1 for n in numbers if n == classes.index(clone) + 1)
    sizes = [len(c.occurrences) for c in classes]
    assert sizes == sorted(sizes, reverse=True)


def test_a_large_place_does_not_chain_the_small_texts_it_overlaps():
    # big.py shares all of itself with its copy, and a few lines with each of three
    # unrelated files: four classes, not one
    regions = [region("big.py", (0, 3000), "copy.py", (0, 3000))]
    regions += [region("big.py", (500 * n, 500 * n + 60), f"s{n}.py", (10, 70)) for n in (1, 2, 3)]
    classes = fragment_classes(regions)
    assert sorted(sorted((o.path, o.stop - o.first) for o in c.occurrences) for c in classes) == [
        [("big.py", 60), ("s1.py", 60)],
        [("big.py", 60), ("s2.py", 60)],
        [("big.py", 60), ("s3.py", 60)],
        [("big.py", 3000), ("copy.py", 3000)],
    ]


def test_ends_a_gap_apart_are_one_occurrence():
    # one text copied three times, the regions' ends a few tokens apart (an edit near an end)
    regions = [
        region("x.py", (0, 100), "y.py", (0, 100)),
        region("x.py", (3, 100), "z.py", (0, 97)),
        region("y.py", (3, 100), "z.py", (0, 97)),
    ]
    (clone,) = fragment_classes(regions, gap=5)
    assert [(o.path, o.first, o.stop) for o in clone.occurrences] == [
        ("x.py", 0, 100),
        ("y.py", 0, 100),
        ("z.py", 0, 97),
    ]
    assert len(fragment_classes(regions, gap=2)) == 2  # not within 2 tokens: two texts


def test_the_index_ignores_boilerplate_and_pairs_the_rest():
    index = FingerprintIndex()
    for file in range(5):
        index.add(file, [1, 2, 100 + file])  # 1 and 2 in every file
    index.add(5, [2, 100, 7, 7])  # shares 100 with file 0, repeats 7
    ignored = index.boilerplate(3)
    assert ignored == {1, 2}
    assert index.occurrences(ignored) == 5 + 6
    assert index.candidate_pairs(ignored) == [(0, 5), (5, 5)]
    assert len(index.candidate_pairs()) == 16  # the 15 pairs of six files (2), and (5, 5)
