"""The scan pipeline: the documented similarity, the exact join against brute force, trees
of awkward files, determinism across processes, and the corpus store."""

from __future__ import annotations

import hashlib
import itertools
import os
import random
import re
import sys
from array import array
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from samecode.corpus.store import Corpus
from samecode.engine import RunOptions
from samecode.hamming.sqlite import IndexCorruptError, IndexFileError
from samecode.minhash.lsh import MinHashLSH
from samecode.minhash.oph import OnePermutationMinHash
from samecode.scan import Document, ScanOptions, compare, read_documents, scan
from samecode.scan import join as join_module
from samecode.scan.candidates import loose_distance, method, method_names
from samecode.scan.join import distinct_sets, prefix_candidates, reaches, verify
from samecode.sources.reading import read_text
from samecode.sources.skipped import Skipped, SkipReason
from samecode.sources.walk import WalkOptions, find_files
from samecode.text import shingling as shingling_module
from samecode.text.shingling import Shingling, shingle_hash, token_id
from storefiles import run_sql

from reference import naive_corpus_matches

# -- the documented similarity, from its definition ---------------------------------------

WORD = re.compile(r"\w+|[^\w\s]")


def naive_shingles(text: str, k: int = 5) -> set[tuple[str, ...]]:
    tokens = WORD.findall(text)
    if not tokens:
        return set()
    if len(tokens) < k:
        return {tuple(tokens)}
    return {tuple(tokens[i : i + k]) for i in range(len(tokens) - k + 1)}


def naive_jaccard(a: set, b: set) -> Fraction:
    return Fraction(len(a & b), len(a | b))


texts = st.lists(st.sampled_from([*"ab c_1(.)é\n\t漢", "if", "x = ", "foo"]), max_size=40).map(
    "".join
)


@given(texts, texts, st.integers(1, 6))
@settings(max_examples=150, deadline=None)
def test_shingles_follow_the_documented_definition(a, b, k):
    rules = Shingling(size=k)
    ha, hb = rules.shingles(a), rules.shingles(b)
    na, nb = naive_shingles(a, k), naive_shingles(b, k)
    assert len(ha) == len(na)
    assert len(hb) == len(nb)
    assert len(set(ha) & set(hb)) == len(na & nb)


def test_short_and_empty_texts():
    rules = Shingling()
    assert rules.measure("") == (0, array("Q"))
    assert rules.measure("  \n ")[0] == 0
    tokens, shingles = rules.measure("a b")
    assert tokens == 2
    assert len(shingles) == 1  # fewer tokens than K: one shingle of all of them
    assert rules.shingles("a b") != rules.shingles("a b c d e f")


def test_the_portable_tuple_hash_is_cpythons():
    rng = random.Random(5)
    for size in range(8):
        for _ in range(200):
            ids = [rng.getrandbits(64) for _ in range(size)]
            assert shingle_hash(ids) == hash(tuple(ids)) & (2**64 - 1)


def test_token_ids_are_blake2b():
    for token in ["", "def", "漢字", "\udcff"]:
        data = token.encode("utf-8", "surrogatepass")
        assert token_id(token) == int.from_bytes(
            hashlib.blake2b(data, digest_size=8).digest(), "little"
        )


def test_ascii_and_unicode_texts_tokenize_alike():
    text = "value = compute(x_1, 'ä') + 2"
    assert Shingling().token_list(text) == WORD.findall(text)
    assert Shingling().token_list(text.replace("ä", "a")) == WORD.findall(text.replace("ä", "a"))


def test_code_tokens_drop_the_comments_of_the_language():
    rules = Shingling(tokens="code")
    assert rules.token_list("x = 1  # note\ny = 2", "a.py") == ["x", "=", "1", "y", "=", "2"]
    assert rules.token_list("x = 1; // note", "a.c") == ["x", "=", "1", ";"]
    assert "#" in rules.token_list("x = 1; # define", "a.c")  # not a comment in C


def test_normalize_makes_renamed_copies_equal():
    rules = Shingling(tokens="code", normalize=True, size=3)
    a = "def area(width, height):\n    return width * height * 0.5"
    b = "def surface(w, h):\n    return w * h * 2.0"
    assert set(rules.shingles(a, "x.py")) == set(rules.shingles(b, "x.py"))
    assert Shingling(tokens="code", size=3).shingles(a, "x.py") != Shingling(
        tokens="code", size=3
    ).shingles(b, "x.py")
    words = Shingling(normalize=True, size=2)
    assert words.token_list("for i in range(10)", "x.py")[:3] == ["for", "\x00id", "in"]


def test_chars_are_seed_004s_shingles():
    rules = Shingling(tokens="chars", size=4)
    text = "ab  cd\tef"
    expected = {"ab c", "b cd", " cd ", "cd e", "d ef"}
    assert sorted(rules.shingles(text)) == sorted(token_id(s) for s in expected)
    assert len(rules.shingles("abc")) == 1  # shorter than K: the whole text


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"tokens": "lines"}, ValueError, "tokens must be one of"),
        ({"size": 0}, ValueError, "size must be from 1 to 1000"),
        ({"size": 2**70}, ValueError, "size must be from 1 to 1000"),
        ({"size": 2.0}, TypeError, "size must be an int"),
        ({"normalize": 1}, TypeError, "normalize must be a bool"),
        ({"tokens": "chars", "normalize": True}, ValueError, "not on chars"),
    ],
)
def test_shingling_refuses_bad_rules(kwargs, error, message):
    with pytest.raises(error, match=message):
        Shingling(**kwargs)


def test_the_token_memo_never_changes_an_id(monkeypatch):
    monkeypatch.setattr(shingling_module, "_MEMO_LIMIT", 3)
    monkeypatch.setattr(shingling_module, "_memo", shingling_module._Memo())
    rules = Shingling(size=2)
    for text in ["a b c d", "e f a b", "a a a a a g h i", "c d e f g"]:
        assert len(rules.shingles(text)) == len(naive_shingles(text, 2))
        assert sorted(rules.shingles(text)) == sorted(
            {shingle_hash([token_id(a), token_id(b)]) for a, b in naive_shingles(text, 2)}
        )
        assert len(shingling_module._memo) <= 3


# -- the exact join against brute force -------------------------------------------------


def brute(sets, threshold, measure):
    out = []
    for i, j in itertools.combinations(range(len(sets)), 2):
        a, b = set(sets[i]), set(sets[j])
        shared = len(a & b)
        if a and b and reaches(shared, len(a), len(b), threshold, measure):
            out.append((i, j, shared))
    return out


set_lists = st.lists(
    st.lists(st.integers(0, 40), max_size=30).map(lambda xs: array("Q", sorted(set(xs)))),
    max_size=25,
)
thresholds = st.fractions(min_value=Fraction(1, 20), max_value=1, max_denominator=20).filter(
    lambda t: t > 0
)


@given(set_lists, thresholds, st.sampled_from(["jaccard", "containment"]), st.booleans())
@settings(max_examples=300, deadline=None)
def test_prefix_join_matches_brute_force(sets, threshold, measure, crowded):
    sets = [s for s in sets if s]
    if crowded:  # every hash in a handful of buckets: rarity is all guesswork
        sets = [array("Q", [(v * 0x9E3779B97F4A7C15) % 2**64 for v in s]) for s in sets]
    got = verify(sets, prefix_candidates(sets, threshold, measure), threshold, measure)
    assert got == brute(sets, threshold, measure)


@given(set_lists, thresholds)
@settings(max_examples=100, deadline=None)
def test_prefix_join_with_tiny_bitmaps_and_levels(sets, threshold):
    sets = [s for s in sets if s]
    saved = join_module._LEVELS
    join_module._LEVELS = 2
    try:
        got = verify(sets, prefix_candidates(sets, threshold), threshold)
    finally:
        join_module._LEVELS = saved
    assert got == brute(sets, threshold, "jaccard")


def test_long_prefixes_take_the_smallest_hashes():
    rng = random.Random(2)
    values = [rng.getrandbits(64) for _ in range(5000)]
    for count in (1, 10, 300, 4999):
        chosen = join_module._smallest(values, count)
        assert len(chosen) >= count
        assert set(sorted(values)[:count]) <= set(chosen)
        rest = sorted(values)[len(chosen) :]
        assert not rest or max(chosen) < rest[0]  # a true prefix, not a sample


def test_reaches_is_exact_at_the_boundary():
    assert reaches(4, 5, 5, Fraction(2, 3), "jaccard")  # 4/6 == 2/3
    assert not reaches(4, 5, 5, Fraction(2, 3) + Fraction(1, 10**9), "jaccard")
    assert reaches(8, 10, 100, Fraction(4, 5), "containment")
    assert not reaches(0, 0, 0, Fraction(1), "jaccard")


def test_every_method_finds_only_true_pairs():
    rng = random.Random(9)
    base = [rng.getrandbits(64) for _ in range(400)]
    sets = []
    for _ in range(30):
        keep = [v for v in base if rng.random() < 0.95] + [rng.getrandbits(64) for _ in range(10)]
        sets.append(array("Q", sorted(set(keep))))
    sets += [array("Q", sorted(rng.getrandbits(64) for _ in range(300))) for _ in range(30)]
    truth = brute(sets, Fraction(4, 5), "jaccard")
    documents = [Document(f"f{i:02}", 1, "x", len(s), s) for i, s in enumerate(sets)]
    for name in method_names():
        pairs = compare(documents, Fraction(4, 5), "jaccard", name)
        found = [(int(p.a[1:]), int(p.b[1:]), p.shared) for p in pairs]
        assert set(found) <= set(truth)
        if method(name).exact or method(name).reports_all:
            assert found == truth
    assert loose_distance(64, Fraction(1)) == 0


def test_identical_sets_are_grouped_and_expanded():
    one = array("Q", range(50))
    documents = [Document(f"f{i}", 1, "x", 50, one) for i in range(40)]
    documents.append(Document("g", 1, "x", 50, array("Q", range(5, 55))))
    pairs = compare(documents, Fraction(4, 5))
    assert len(pairs) == 40 * 39 // 2 + 40
    assert {p.jaccard for p in pairs} == {1.0, 45 / 55}
    representatives, groups = distinct_sets([d.shingles for d in documents])
    assert len(representatives) == 2
    assert sorted(map(len, groups)) == [1, 40]


def test_options_are_checked():
    with pytest.raises(ValueError, match="threshold must be above 0"):
        ScanOptions(threshold=0)
    with pytest.raises(ValueError, match="method must be one of"):
        ScanOptions(method="magic")
    with pytest.raises(ValueError, match="proposes pairs for jaccard only"):
        ScanOptions(method="simhash", measure="containment")
    with pytest.raises(ValueError, match="jobs must be from 1 to 1024"):
        ScanOptions(run=RunOptions(jobs=0))
    with pytest.raises(TypeError, match="include must be a tuple"):
        ScanOptions(walk=WalkOptions(include="*.py"))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="roots must be a list"):
        scan("src")  # type: ignore[arg-type]
    assert ScanOptions(threshold="0.85").exact_threshold == Fraction(17, 20)
    with pytest.raises(ValueError, match="num_perm must be from 2 to 65536"):
        ScanOptions(num_perm=1)
    with pytest.raises(ValueError, match="lsh_threshold must be above 0"):
        ScanOptions(lsh_threshold=0)
    with pytest.raises(TypeError, match="lsh_threshold must be a number"):
        ScanOptions(lsh_threshold="0.5")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="too small \\(b < 2\\)"):
        ScanOptions(method="minhash", num_perm=16, lsh_threshold=0.95)
    assert ScanOptions(lsh_threshold=Fraction(1, 2)).lsh_threshold == 0.5


def test_the_minhash_method_reports_every_pair_with_what_lsh_saw():
    rng = random.Random(4)
    base = [rng.getrandbits(64) for _ in range(300)]
    documents = []
    for i in range(40):
        kept = [v for v in base if rng.random() < rng.choice([0.8, 0.9, 0.95])]
        shingles = array("Q", sorted(set(kept + [rng.getrandbits(64) for _ in range(5)])))
        documents.append(Document(f"f{i:02}", 1, "x", len(shingles), shingles))
    documents.append(Document("copy", 1, "x", 1, documents[0].shingles))
    threshold = Fraction(4, 5)
    exact = compare(documents, threshold)
    settings = {"num_perm": 64, "lsh_threshold": 0.85}  # high: LSH misses some pairs
    found = compare(documents, threshold, method_name="minhash", settings=settings)
    assert [(p.a, p.b, p.shared) for p in found] == [(p.a, p.b, p.shared) for p in exact]
    # What LSH saw, recomputed from the library's sketches and index:
    sketches = {}
    index = MinHashLSH(threshold=0.85, num_perm=64)
    for document in documents:
        sketch = OnePermutationMinHash(64)
        sketch.update_hashes(document.shingles)
        sketches[document.path] = sketch
        index.insert(document.path, sketch)
    proposed = {frozenset(pair) for pair in index.candidate_pairs()}
    said = [dict(pair.notes)["lsh_candidate"] for pair in found]
    assert len(found) >= 30
    assert True in said
    assert False in said
    for pair in found:
        notes = dict(pair.notes)
        assert notes["signature_similarity"] == sketches[pair.a].jaccard(sketches[pair.b])
        assert notes["lsh_candidate"] == (frozenset((pair.a, pair.b)) in proposed)


# -- trees of real and awkward files ------------------------------------------------------

CODE = "\n".join(f"def handler_{i}(request):\n    return respond(request, {i})" for i in range(40))


def make_tree(root):
    files = {
        "app/main.py": CODE,
        "app/copy.py": CODE.replace("handler_7", "renamed_7"),
        "app/other.py": "\n".join(f"x{i} = y{i} ** {i}" for i in range(60)),
        "app/empty.py": "",
        "app/tiny.py": "pass",
        "app/blob.bin": b"\x00\x01\x02" * 100,
        "app/latin1.txt": ("caf\xe9 " * 50).encode("latin-1"),
        "app/big.txt": "word " * 5000,
        "node_modules/lib/main.py": CODE,
        "build/out.py": CODE,
        "notes.log": CODE,
        "keep.log": CODE,
    }
    for name, body in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(body, bytes):
            path.write_bytes(body)
        else:
            path.write_text(body)
    (root / ".gitignore").write_text("*.log\n!keep.log\nbuild/\n")
    return files


def names(result, root):
    return [(os.path.relpath(p.a, root), os.path.relpath(p.b, root)) for p in result.pairs]


def test_a_tree_with_awkward_files(tmp_path):
    make_tree(tmp_path)
    result = scan([str(tmp_path)], ScanOptions(walk=WalkOptions(max_size=20_000)))
    assert names(result, tmp_path) == [
        ("app/copy.py", "app/main.py"),
        ("app/copy.py", "keep.log"),
        ("app/main.py", "keep.log"),
    ]
    reasons = {os.path.relpath(s.path, tmp_path): s.reason for s in result.skipped}
    assert reasons == {
        ".gitignore": "too few tokens",
        "app/blob.bin": "binary",
        "app/empty.py": "empty",
        "app/tiny.py": "too few tokens",
        "app/big.txt": "too large",
        "node_modules": "excluded folder: node_modules",
    }
    compared = {os.path.relpath(d.path, tmp_path) for d in result.documents}
    assert "app/latin1.txt" in compared  # undecodable bytes: compared, not refused
    assert not any(p.startswith(("node_modules", "build")) or p == "notes.log" for p in compared)
    assert [len(c.members) for c in result.classes] == [3]


def test_walk_options(tmp_path):
    make_tree(tmp_path)
    every = ScanOptions(walk=WalkOptions(gitignore=False, default_excludes=False, max_size=None))
    found = {
        os.path.relpath(p, tmp_path)
        for p in find_files([tmp_path], gitignore=False, default_excludes=False)
    }
    assert {"build/out.py", "notes.log", "node_modules/lib/main.py"} <= found
    result = scan([str(tmp_path)], every)
    assert (
        len(result.pairs) == 15
    )  # six copies of the code: main, copy, keep, notes, build, node_modules
    only = scan(
        [str(tmp_path)], ScanOptions(walk=WalkOptions(include=("*.py",), exclude=("copy.py",)))
    )
    assert names(only, tmp_path) == []
    assert {os.path.relpath(d.path, tmp_path) for d in only.documents} == {
        "app/main.py",
        "app/other.py",
    }


def test_nested_gitignore_files_follow_git(tmp_path):
    for name in ["a/x.py", "a/b/x.py", "a/b/y.py", "c/x.py", "a/b/keep/x.py"]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x")
    (tmp_path / ".gitignore").write_text("x.py\n")
    (tmp_path / "a" / "b" / ".gitignore").write_text("!x.py\ny.py\n")
    (tmp_path / ".git" / "info").mkdir(parents=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("keep/\n")
    found = sorted(
        os.path.relpath(p, tmp_path) for p in find_files([tmp_path]) if isinstance(p, str)
    )
    assert found == [".gitignore", "a/b/.gitignore", "a/b/x.py"]


def test_special_files_links_and_loops(tmp_path):
    (tmp_path / "real.py").write_text(CODE)
    (tmp_path / "link.py").symlink_to(tmp_path / "real.py")
    (tmp_path / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "up").symlink_to(tmp_path)
    os.mkfifo(tmp_path / "pipe")
    result = scan([str(tmp_path)], ScanOptions(walk=WalkOptions(follow_symlinks=True)))
    reasons = {os.path.relpath(s.path, tmp_path): s.reason for s in result.skipped}
    assert reasons["pipe"] == "not a regular file"
    assert reasons["dangling.py"] == "missing"
    assert reasons["loop"] == "symlink loop"
    assert reasons["sub/up"] == "symlink loop"
    # a link to a file and the file are one file, read once by its first spelling
    assert names(result, tmp_path) == []
    assert [os.path.relpath(d.path, tmp_path) for d in result.documents] == ["link.py"]


def test_file_names_that_are_not_utf8(tmp_path):
    folder = os.fsencode(tmp_path)
    for raw in (b"caf\xe9.py", b"caf\xc3\xa9.py"):
        with open(os.path.join(folder, raw), "w") as file:
            file.write(CODE)
    result = scan([str(tmp_path)])
    assert len(result.pairs) == 1
    assert {os.fsencode(p) for p in (result.pairs[0].a, result.pairs[0].b)} == {
        os.path.join(folder, b"caf\xe9.py"),
        os.path.join(folder, b"caf\xc3\xa9.py"),
    }


def test_a_file_that_vanishes_or_cannot_be_read(tmp_path, monkeypatch):
    path = tmp_path / "gone.py"
    assert read_text(str(path)) == Skipped(str(path), SkipReason.VANISHED)
    (tmp_path / "folder.py").mkdir()
    assert read_text(str(tmp_path / "folder.py")).reason == "not a regular file"

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    (tmp_path / "locked.py").write_text(CODE)
    monkeypatch.setattr("os.open", refuse)
    assert read_text(str(tmp_path / "locked.py")).reason == "unreadable: Permission denied"


def test_the_answer_does_not_depend_on_jobs(tmp_path):
    rng = random.Random(3)
    words = [f"w{i}" for i in range(300)]
    for i in range(70):
        body = " ".join(rng.choice(words) for _ in range(400))
        (tmp_path / f"f{i:02}.txt").write_text(body)
        (tmp_path / f"g{i:02}.txt").write_text(body.replace(words[i], "edited", 3))
    one = scan([str(tmp_path)], ScanOptions(run=RunOptions(jobs=1)))
    two = scan([str(tmp_path)], ScanOptions(run=RunOptions(jobs=3)))
    assert one.pairs == two.pairs
    assert one.classes == two.classes
    assert [d.path for d in one.documents] == [d.path for d in two.documents]
    assert len(one.pairs) >= 70


def test_real_files_match_brute_force_exactly():
    library = os.path.dirname(os.__file__)
    paths = sorted(
        os.path.join(library, name)
        for name in os.listdir(library)
        if name.endswith(".py") and not name.startswith("_")
    )[:120]
    documents = [d for d in read_documents(paths, Shingling(), None, 10) if isinstance(d, Document)]
    texts = {d.path: naive_shingles(read_text(d.path).text) for d in documents}
    for threshold in (Fraction(1, 5), Fraction(1, 2)):
        got = {(p.a, p.b): p.exact_jaccard for p in compare(documents, threshold)}
        want = {}
        for a, b in itertools.combinations(sorted(texts), 2):
            value = naive_jaccard(texts[a], texts[b])
            if value >= threshold:
                want[(a, b)] = value
        assert got == want


# -- the corpus ------------------------------------------------------------------------


def documents_of(tmp_path, bodies):
    paths = []
    for name, body in bodies.items():
        (tmp_path / name).write_text(body)
        paths.append(str(tmp_path / name))
    return [d for d in read_documents(paths, Shingling(), None, 1) if isinstance(d, Document)]


def test_corpus_matches_exactly_like_a_scan(tmp_path):
    rng = random.Random(4)
    words = [f"w{i}" for i in range(200)]
    bodies = {}
    for i in range(40):
        body = [rng.choice(words) for _ in range(300)]
        bodies[f"known{i}.txt"] = " ".join(body)
        for _ in range(i % 4):
            body[rng.randrange(300)] = "x"
        bodies[f"query{i}.txt"] = " ".join(body)
    documents = documents_of(tmp_path, bodies)
    known = [d for d in documents if "known" in d.path]
    queries = [d for d in documents if "query" in d.path]
    with Corpus.create(tmp_path / "c.db", min_threshold=0.5) as corpus:
        assert corpus.add(known) == 40
        for threshold in (Fraction(1, 2), Fraction(9, 10)):
            got = {(p.a, p.b, p.shared) for p in corpus.match(queries, threshold)}
            assert got == naive_corpus_matches(queries, known, threshold)
        with pytest.raises(ValueError, match=r"at least 0\.5"):
            corpus.match(queries, 0.4)
        assert corpus.check() == []


def test_corpus_replaces_and_refuses(tmp_path):
    first = documents_of(tmp_path, {"a.txt": "one two three four five six seven"})
    path = tmp_path / "c.db"
    with Corpus.create(path, Shingling(size=3)) as corpus:
        corpus.add(first)
        corpus.add(first)  # the same path again replaces it
        assert len(corpus) == 1
        assert corpus.stored(first[0].path).sha256 == first[0].sha256
        assert corpus.remove([first[0].path, "nothing"]) == 1
        corpus.add(first)
    with Corpus.open(path, readonly=True) as corpus:
        assert corpus.shingling == Shingling(size=3)
        with pytest.raises(PermissionError):
            corpus.add(first)
    run_sql(path, "UPDATE files SET size = size + 1")
    with Corpus.open(path) as corpus:
        assert any("checksum" in p for p in corpus.check())
        with pytest.raises(IndexCorruptError):
            corpus.match(first)
    other = tmp_path / "other.db"
    run_sql(other, "CREATE TABLE t (x)")
    before = other.read_bytes()
    with pytest.raises(IndexFileError, match="is not a samecode corpus"):
        Corpus.open(other)
    assert other.read_bytes() == before
    with pytest.raises(FileExistsError):
        Corpus.create(path)


def test_an_interrupted_add_keeps_what_was_committed(tmp_path):
    documents = documents_of(tmp_path, {f"f{i}.txt": f"text number {i} " * 20 for i in range(250)})

    def interrupted():
        yield from documents[:230]
        raise KeyboardInterrupt

    path = tmp_path / "c.db"
    with Corpus.create(path) as corpus, pytest.raises(KeyboardInterrupt):
        corpus.add(interrupted())
    with Corpus.open(path) as corpus:
        assert len(corpus) == 200  # two batches of 100 committed, the third rolled back
        assert corpus.check() == []


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_index_file_errors_name_the_path(tmp_path):
    with pytest.raises(IndexFileError, match="cannot create it"):
        Corpus.create(tmp_path / "missing" / "c.db")


def test_the_scan_runs_with_collection_paused(tmp_path):
    # the collector's runs walked the scan's objects again and again: some 5 % of a scan
    import gc

    for n in range(3):
        (tmp_path / f"f{n}.py").write_text(" ".join(f"word{i}" for i in range(60)))
    said: list[tuple[str, bool]] = []
    result = scan([str(tmp_path)], progress=lambda stage, *_: said.append((stage, gc.isenabled())))
    assert len(result.pairs) == 3
    assert {stage for stage, _ in said} >= {"read", "verify", "classes"}
    assert not any(enabled for _, enabled in said)
    assert gc.isenabled()
