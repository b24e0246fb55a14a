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


@given(LINKS, st.randoms())
def test_classes_are_the_linked_unions_of_overlapping_places(links, random):
    regions = [region(a, (i, i + n), b, (j, j + n)) for a, i, b, j, n in links]
    classes, numbers = region_classes(regions)
    shuffled = regions[:]
    random.shuffle(shuffled)
    assert fragment_classes(shuffled) == classes
    # brute force: ranges linked by regions or by overlapping in one file
    ranges = [(r.a, r.a_first, r.a_stop) for r in regions]
    ranges += [(r.b, r.b_first, r.b_stop) for r in regions]
    group = list(range(len(ranges)))

    def root(x):
        while group[x] != x:
            x = group[x]
        return x

    def join(x, y):
        group[root(x)] = root(y)

    for n in range(len(regions)):
        join(n, n + len(regions))
    for x, (p, s, e) in enumerate(ranges):
        for y, (q, t, f) in enumerate(ranges):
            if p == q and s < f and t < e:
                join(x, y)
    for n, number in enumerate(numbers):
        for m, other in enumerate(numbers):
            if number is not None and number == other:
                assert root(n) == root(m)
    for clone in classes:
        assert len(clone.occurrences) >= 2
        keys = [(o.path, o.first) for o in clone.occurrences]
        assert keys == sorted(keys)
    sizes = [len(c.occurrences) for c in classes]
    assert sizes == sorted(sizes, reverse=True)


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
