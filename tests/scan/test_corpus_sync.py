"""Corpus.sync: what an incremental ``index add`` changes, one entry per file whatever
its spelling, names that are not UTF-8, and entries whose files became unusable."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from samecode.corpus.entries import identity
from samecode.corpus.store import Corpus
from samecode.corpus.sync import SyncReport
from samecode.engine import RunOptions
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.scan.pipeline import ScanOptions, read_documents
from samecode.sources.walk import WalkOptions
from samecode.text.shingling import Shingling
from storefiles import corpus_content

CODE = "\n".join(f"def handler_{i}(request):\n    return respond(request, {i})" for i in range(40))
OPTIONS = WalkOptions(gitignore=False)


@pytest.fixture
def corpus(tmp_path: Path):
    with Corpus.create(tmp_path / "corpus.db") as opened:
        yield opened


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_sync_says_what_changed(tmp_path, corpus):
    tree = tmp_path / "tree"
    a = write(tree / "a.py", CODE)
    b = write(tree / "b.py", CODE.replace("request", "req"))
    write(tree / "tiny.py", "x = 1")
    first = corpus.sync([str(tree)], OPTIONS)
    assert isinstance(first, SyncReport)
    assert sorted(first.added) == [identity(str(a)), identity(str(b))]
    assert (first.updated, first.unchanged, first.removed) == ((), (), ())
    assert [(Path(s.path).name, s.reason) for s in first.skipped] == [("tiny.py", "too few tokens")]
    assert first.held == 2

    os.utime(a, ns=(1, 1))  # touched, same bytes: unchanged
    write(b, CODE.replace("request", "r"))
    second = corpus.sync([str(tree)], OPTIONS)
    assert second.added == ()
    assert second.updated == (identity(str(b)),)
    assert sorted(second.unchanged) == [identity(str(a))]
    assert corpus.stored(identity(str(a))).mtime_ns == 1

    b.unlink()
    assert corpus.sync([str(tree)], OPTIONS).removed == ()  # no prune: kept
    pruned = corpus.sync([str(tree)], OPTIONS, prune=True)
    assert [(s.path, s.reason) for s in pruned.removed] == [(identity(str(b)), "missing")]
    assert pruned.held == 1


def test_a_file_is_one_entry_whatever_its_spelling(tmp_path, corpus, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "known", CODE)
    for spelling in ("known", "./known", str(tmp_path / "known"), str(tmp_path / "." / "known")):
        report = corpus.sync([spelling], OPTIONS)
        assert report.held == 1
    assert [f.path for f in corpus.files()] == [identity("known")]
    (tmp_path / "link").symlink_to(tmp_path / "known")
    assert corpus.sync(["link"], OPTIONS).unchanged == (identity("known"),)
    # the query is not reported as matching its own entry, by any spelling
    for spelling in ("known", "./known", "link"):
        query = read_documents([spelling], corpus.shingling, None, 1)
        assert corpus.match(query) == []
    assert corpus.remove(["./known"]) == 1
    assert len(corpus) == 0


def test_remove_by_any_spelling_and_under_folders(tmp_path, corpus, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pkg" / "a.py", CODE)
    write(tmp_path / "pkg" / "b.py", CODE.replace("request", "req"))
    write(tmp_path / "pkgs.py", CODE.replace("request", "r"))
    corpus.sync(["."], OPTIONS)
    assert corpus.remove(["pkg"]) == 0  # a folder is not a file
    assert corpus.remove([str(tmp_path / "pkg") + "/"], recursive=True) == 2
    assert [Path(f.path).name for f in corpus.files()] == ["pkgs.py"]  # not under pkg/
    assert corpus.remove([str(tmp_path / "pkgs.py")]) == 1


def test_an_older_spelling_is_replaced_by_the_identity(tmp_path, corpus, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "known", CODE)
    corpus.add(read_documents(["known"], corpus.shingling, None, 1))  # stored as given
    assert [f.path for f in corpus.files()] == ["known"]
    report = corpus.sync(["known"], OPTIONS)
    assert report.updated == (identity("known"),)
    assert [f.path for f in corpus.files()] == [identity("known")]


def test_a_name_that_is_not_utf8_is_stored(tmp_path, corpus):
    folder = os.fsencode(tmp_path / "tree")
    os.mkdir(folder)
    odd = os.path.join(folder, b"caf\xff.py")
    with open(odd, "wb") as file:
        file.write(CODE.encode())
    write(tmp_path / "tree" / "plain.py", CODE.replace("request", "req"))
    report = corpus.sync([str(tmp_path / "tree")], OPTIONS)
    name = identity(os.fsdecode(odd))
    assert sorted(report.added) == sorted([name, identity(str(tmp_path / "tree" / "plain.py"))])
    assert name in corpus
    assert corpus.stored(name).path == name
    assert os.fsencode(name) == os.path.realpath(odd)
    assert corpus.check() == []
    query = write(tmp_path / "query.py", CODE.replace("handler_7", "h7"))
    (pair,) = corpus.match(read_documents([str(query)], corpus.shingling, None, 1))
    assert pair.b == name
    assert corpus.sync([str(tmp_path / "tree")], OPTIONS).unchanged != ()
    os.remove(odd)
    assert [s.path for s in corpus.sync([str(tmp_path / "tree")], OPTIONS, prune=True).removed] == [
        name
    ]


@pytest.mark.parametrize(
    ("content", "reason"),
    [(b"x = 1", "too few tokens"), (b"", "empty"), (b"\x00\x01\x02" * 10, "binary")],
)
def test_an_entry_rewritten_into_something_skipped_is_removed(tmp_path, corpus, content, reason):
    path = write(tmp_path / "tree" / "a.py", CODE)
    write(tmp_path / "tree" / "b.py", CODE.replace("request", "req"))
    assert corpus.sync([str(tmp_path / "tree")], OPTIONS).held == 2
    path.write_bytes(content)
    report = corpus.sync([str(tmp_path / "tree")], OPTIONS)
    assert [(s.path, s.reason) for s in report.removed] == [(identity(str(path)), reason)]
    assert report.skipped == ()
    assert report.held == 1
    assert identity(str(path)) not in corpus


def test_sync_refuses_bad_arguments(tmp_path, corpus):
    with pytest.raises(SamecodeTypeError, match="list of paths"):
        corpus.sync(str(tmp_path))  # type: ignore[arg-type]
    with pytest.raises(SamecodeTypeError, match="WalkOptions"):
        corpus.sync([str(tmp_path)], {"gitignore": False})  # type: ignore[arg-type]
    with pytest.raises(SamecodeTypeError, match="WalkOptions"):
        corpus.sync([str(tmp_path)], ScanOptions(shingling=Shingling(size=3)))  # type: ignore[arg-type]
    with pytest.raises(SamecodeTypeError, match="RunOptions"):
        corpus.sync([str(tmp_path)], OPTIONS, run=2)  # type: ignore[arg-type]
    Corpus.create(tmp_path / "other.db").close()
    with (
        Corpus.open(tmp_path / "other.db", readonly=True) as readonly,
        pytest.raises(PermissionError),
    ):
        readonly.sync([str(tmp_path)], OPTIONS)


def test_match_reports_its_progress(tmp_path):
    from samecode.corpus.store import Corpus
    from samecode.scan import ScanOptions
    from samecode.scan.pipeline import read_all
    from samecode.sources.walk import discover

    for i in range(5):
        (tmp_path / f"f{i}.txt").write_text(" ".join(f"w{j}" for j in range(i, i + 50)))
    options = ScanOptions(walk=WalkOptions(gitignore=False))
    documents, _ = read_all(discover([str(tmp_path)], options.walk)[0], options)
    seen = []
    with Corpus.create(tmp_path / "c.db") as corpus:
        corpus.add(documents)
        corpus.match(documents, progress=lambda *a: seen.append(a))
    assert seen[0] == ("probe", 0, 5)
    assert seen[-1] == ("probe", 5, 5)


@pytest.mark.parametrize("fragments", [False, True])
def test_sync_on_a_process_pool_writes_the_same_corpus(tmp_path, fragments):
    import sqlite3
    from contextlib import closing

    from samecode.engine import ProcessPool
    from samecode.fragments.options import FragmentOptions

    tree = tmp_path / "tree"
    for i in range(9):
        write(tree / f"m{i}.py", CODE.replace("request", f"request_{i}"))
    write(tree / "tiny.py", "x = 1")
    stored = FragmentOptions() if fragments else None
    walk, run = WalkOptions(gitignore=False), RunOptions(batch_size=2)
    dumps, reports = [], []
    for name in ("serial", "pool"):
        db = tmp_path / f"{name}.db"
        with Corpus.create(db, fragments=stored) as made:
            if name == "pool":
                with ProcessPool(2) as engine:
                    reports.append(made.sync([str(tree)], walk, run=run, engine=engine))
            else:
                reports.append(made.sync([str(tree)], walk, run=run))
        with closing(sqlite3.connect(db)) as connection:  # a with alone leaves it open
            dumps.append(list(connection.iterdump()))
    assert reports[0] == reports[1]
    assert len(reports[0].added) == 9
    assert dumps[0] == dumps[1]


@pytest.mark.parametrize(("fragments", "stage"), [(False, "read_stored"), (True, "read_stored")])
def test_sync_reads_on_the_engine_it_is_given(tmp_path, fragments, stage):
    from samecode.engine import Serial
    from samecode.fragments.options import FragmentOptions

    class Recording(Serial):
        def map(self, function, tasks):
            called.append((function.__name__, len(tasks)))
            yield from super().map(function, tasks)

    called: list[tuple[str, int]] = []
    for i in range(5):
        write(tmp_path / "tree" / f"m{i}.py", CODE.replace("request", f"r{i}"))
    stored = FragmentOptions() if fragments else None
    with Corpus.create(tmp_path / "c.db", fragments=stored) as made:
        made.sync(
            [str(tmp_path / "tree")],
            WalkOptions(gitignore=False),
            run=RunOptions(batch_size=2),
            engine=Recording(),
        )
    assert called == [(stage, 3)]


def test_sync_with_nothing_to_read_says_so(tmp_path, corpus):
    seen: list[tuple[str, int, int]] = []
    (tmp_path / "empty").mkdir()
    corpus.sync([str(tmp_path / "empty")], OPTIONS, progress=lambda *a: seen.append(a))
    assert seen == [("read", 0, 0)]


def test_sync_stores_a_part_at_a_time_what_add_stores_at_once(tmp_path):
    # More files than sync reads at a time (4,096): the corpus is the one add() makes of
    # the same documents in one call, and progress runs once from 0 to the whole.
    from samecode.corpus.records import read_stored
    from samecode.sources.walk import discover
    from samecode.text.shingling import Shingling

    tree = Path(os.path.realpath(tmp_path)) / "tree"
    for i in range(4_200):
        write(tree / f"d{i // 100:02}" / f"f{i}.txt", f"alpha beta {i} gamma delta {i + 1} epsilon")
    from samecode.engine import Serial

    class Recording(Serial):
        def map(self, function, tasks):
            called.append(sum(len(task[0]) for task in tasks))
            yield from super().map(function, tasks)

    called: list[int] = []
    options = WalkOptions(gitignore=False, min_tokens=1)
    seen: list[tuple[str, int, int]] = []
    with Corpus.create(tmp_path / "synced.db") as synced:
        report = synced.sync(
            [str(tree)], options, progress=lambda *a: seen.append(a), engine=Recording()
        )
    assert len(report.added) == 4_200
    assert called == [4_096, 104]  # read in two parts
    paths, _ = discover([str(tree)], options)
    with Corpus.create(tmp_path / "added.db") as added:
        # the dictionary sync made of a sample of the files: the same, made of the same
        dictionary = added.text_dictionary(paths)
        items = read_stored(paths, Shingling(), options.max_size, options.min_tokens, None,
                            text=True, dictionary=dictionary)  # fmt: skip
        added.add([item.document for item in items], texts={i.document.path: i.text for i in items})
    # the same rows (the dictionary's too), and the same postings in blocks cut otherwise
    synced, added = (corpus_content(tmp_path / name) for name in ("synced.db", "added.db"))
    assert synced == added
    assert len(synced[1]["prefix_blocks"]) >= 4_200
    reads = [done for stage, done, total in seen if stage == "read"]
    assert {total for _, _, total in seen} == {4_200}
    assert reads[0] == 0
    assert reads[-1] == 4_200
    assert reads == sorted(reads)
    assert 4_096 in reads  # the first part's end, counted in the whole


def test_create_or_open_opens_a_corpus_another_process_made_meanwhile(tmp_path, monkeypatch):
    from samecode.fragments.options import FragmentOptions
    from samecode.store import file as store_file

    path = tmp_path / "c.db"
    fragments = FragmentOptions(k=12)
    real_connect = store_file.connect
    made = []

    def connect(where, *args, **kwargs):
        if not made:  # the other process publishes the same corpus first
            made.append(True)
            with Corpus.create(path, fragments=fragments) as other:
                other.sync([str(write(tmp_path / "theirs" / "a.py", CODE))], OPTIONS)
        return real_connect(where, *args, **kwargs)

    monkeypatch.setattr(store_file, "connect", connect)
    with Corpus.create(path, fragments=fragments, exist_ok=True) as corpus:
        monkeypatch.undo()
        report = corpus.sync([str(write(tmp_path / "ours" / "b.py", CODE + "\n# b"))], OPTIONS)
        assert len(report.added) == 1
        assert len(corpus) == 2  # theirs and ours
        assert corpus.fragments == fragments
    assert sorted(os.listdir(tmp_path)) == ["c.db", "ours", "theirs"]


def test_create_or_open_refuses_a_corpus_made_otherwise(tmp_path):
    from samecode.fragments.options import FragmentOptions
    from samecode.minhash.settings import LSHSettings

    path = tmp_path / "c.db"
    Corpus.create(path, Shingling(size=4), fragments=FragmentOptions(k=12)).close()
    before = path.read_bytes()
    with Corpus.create(
        path, Shingling(size=4), fragments=FragmentOptions(k=12), exist_ok=True
    ) as corpus:
        assert len(corpus) == 0
    asked = {
        "shingling": Shingling(size=4, tokens="code"),
        "min_threshold": 0.5,
        "lsh": LSHSettings(threshold=0.5),
        "fragments": FragmentOptions(k=12, tokens="code", keep_imports=True),
    }
    with pytest.raises(SamecodeValueError) as caught:
        Corpus.create(path, exist_ok=True, **asked)
    message = str(caught.value)
    assert message.startswith(f"{path} exists with other settings: ")
    for expected in (
        "shingling tokens is 'words' there, 'code' here",
        "min_threshold is 4/5 there, 1/2 here",
        "lsh is none there, bands=",
        "fragments keep_imports is False there, True here",
        "fragments tokens is 'words' there, 'code' here",
    ):
        assert expected in message
    assert "size" not in message  # the same in both
    assert path.read_bytes() == before
    with pytest.raises(FileExistsError):
        Corpus.create(path)
    with pytest.raises(SamecodeTypeError):
        Corpus.create(path, lsh="minhash", exist_ok=True)  # type: ignore[arg-type]


def test_check_given_refuses_the_first_setting_made_otherwise(tmp_path):
    from samecode.corpus.settings import CorpusSettingsError
    from samecode.fragments.options import FragmentOptions
    from samecode.minhash.settings import LSHSettings

    with Corpus.create(tmp_path / "plain.db") as plain:
        plain.settings.check_given(min_threshold=0.8, candidates="prefix")  # as it was made
        for given, setting in [
            ({"fragments": True}, "fragments"),
            ({"window": 4}, "fragments"),
            ({"min_threshold": 0.5}, "min_threshold"),
            ({"candidates": "lsh"}, "candidates"),
            ({"num_perm": 64}, "lsh"),
            ({"fragments": True, "min_threshold": 0.5}, "fragments"),  # in that order
            ({"profile": "plagiarism", "fragments": True}, "profile"),  # first of all
        ]:
            with pytest.raises(CorpusSettingsError) as caught:
                plain.settings.check_given(**given)
            assert caught.value.setting == setting, given
        with pytest.raises(SamecodeTypeError, match="gap"):
            plain.settings.check_given(gap=3)
        plain.settings.check_given(profile="duplicates")  # none named: the defaults
    made = {"fragments": FragmentOptions(window=6), "lsh": LSHSettings(threshold=0.6)}
    with Corpus.create(tmp_path / "both.db", min_threshold=0.8, **made) as both:
        both.settings.check_given(window=6, k=FragmentOptions().k, num_perm=128, lsh_threshold=0.6)
        for given, refused in [
            ({"window": 7}, ("window", 6, 7)),
            ({"keep_imports": True}, ("keep_imports", False, True)),
            ({"keep_msgid_copies": True}, ("keep_msgid_copies", False, True)),
            ({"num_perm": 64}, ("num_perm", 128, 64)),
            ({"lsh_threshold": 0.5}, ("lsh_threshold", 0.6, 0.5)),
            ({"candidates": "prefix"}, ("candidates", "lsh", "prefix")),
        ]:
            with pytest.raises(CorpusSettingsError) as caught:
                both.settings.check_given(**given)
            error = caught.value
            assert (error.setting, error.stored, error.given) == refused
            assert isinstance(error, ValueError)


def test_a_corpus_records_its_profile(tmp_path):
    from samecode.corpus.settings import CorpusSettingsError
    from samecode.profiles import UnknownProfileError

    with Corpus.create(tmp_path / "c.db", profile="provenance") as made:
        assert made.settings.profile == "provenance"
    with Corpus.open(tmp_path / "c.db", readonly=True) as opened:
        assert opened.settings.profile == "provenance"
        opened.settings.check_given(profile="provenance")
        with pytest.raises(CorpusSettingsError) as caught:
            opened.settings.check_given(profile="duplicates")
        assert (caught.value.stored, caught.value.given) == ("provenance", "duplicates")
    with pytest.raises(SamecodeValueError, match="profile is provenance there, none here"):
        Corpus.create(tmp_path / "c.db", exist_ok=True)
    with pytest.raises(UnknownProfileError):
        Corpus.create(tmp_path / "d.db", profile="homework")
    assert not (tmp_path / "d.db").exists()


@pytest.mark.parametrize("fragments", [False, True])
def test_sync_makes_each_document_ready_as_its_batch_comes(tmp_path, fragments, monkeypatch):
    # Each document is made ready to store (its record, its row) as it comes, before the
    # engine gives the next batch, not all at once when the reading is done (then the
    # workers would wait for that too); the corpus is the same.
    from samecode.engine import Serial
    from samecode.fragments import FragmentOptions

    tree = Path(os.path.realpath(tmp_path)) / "tree"
    for i in range(12):
        write(tree / f"f{i:02}.txt", " ".join(f"w{i}_{n}" for n in range(60)))
    events: list[str] = []

    class Recording(Serial):
        def map(self, function, tasks):
            for result in super().map(function, tasks):
                events.append("batch")
                yield result

    ready = Corpus._ready  # each document made ready to store

    def recorded(self, document, *args):
        events.append(os.path.basename(document.path))
        return ready(self, document, *args)

    monkeypatch.setattr(Corpus, "_ready", recorded)
    options = FragmentOptions() if fragments else None
    with Corpus.create(tmp_path / "c.db", fragments=options) as corpus:
        corpus.sync(
            [str(tree)],
            WalkOptions(gitignore=False, min_tokens=1),
            run=RunOptions(batch_size=3),
            engine=Recording(),
        )
        assert len(corpus) == 12
    assert events == [
        event
        for n in range(4)
        for event in ["batch", *(f"f{i:02}.txt" for i in range(3 * n, 3 * n + 3))]
    ]


@pytest.mark.parametrize("pure", ["1", "0"])
@pytest.mark.parametrize("fragments", [False, True])
def test_read_stored_gives_each_documents_shingles_ascending(
    tmp_path, monkeypatch, pure, fragments
):
    # as a sync gives them to the corpus, which stores them without sorting them again:
    # in C (numpy) or in Python, the set measure() makes, in order
    from samecode.corpus.records import read_stored
    from samecode.fragments.options import FragmentOptions

    monkeypatch.setenv("SAMECODE_PURE", pure)
    paths = [str(write(tmp_path / f"m{i}.py", CODE.replace("request", f"r{i}") * (i + 1)))
             for i in range(3)]  # fmt: skip
    options = FragmentOptions() if fragments else None
    for item, path in zip(read_stored(paths, Shingling(), None, 1, options, text=True), paths):
        shingles = item.document.shingles
        assert shingles.typecode == "Q"
        assert len(shingles) > 200  # long enough for numpy, where it is asked for
        assert list(shingles) == sorted(Shingling().shingles(Path(path).read_text(), path))


def test_add_refuses_a_text_that_is_not_its_documents_bytes(tmp_path):
    # a text given by a caller is checked against the document's SHA-256 (a sync's own
    # are not checked again); nothing of the batch is stored
    from samecode.corpus.records import read_stored

    paths = [str(write(tmp_path / f"m{i}.py", CODE.replace("request", f"r{i}"))) for i in range(2)]
    items = read_stored(paths, Shingling(), None, 1, None, text=True)
    texts = {item.document.path: item.text for item in items}
    texts[paths[1]] = texts[paths[0]]
    with Corpus.create(tmp_path / "c.db") as corpus:
        with pytest.raises(SamecodeValueError, match="not the bytes its document was read from"):
            corpus.add([item.document for item in items], texts=texts)
        with pytest.raises(SamecodeTypeError, match="trusted"):
            corpus.add([item.document for item in items], texts=texts, trusted="yes")
        assert len(corpus) == 0


def test_add_sorts_the_shingles_a_caller_gives_in_any_order(tmp_path):
    # only a sync's own documents are taken as ascending already
    from array import array

    from samecode.scan.model import Document

    shingles = Shingling().shingles(CODE)
    contents = []
    for name, order in (("up", sorted(shingles)), ("down", sorted(shingles, reverse=True))):
        document = Document("a.py", len(CODE), "0" * 64, 200, array("Q", order))
        with Corpus.create(tmp_path / f"{name}.db") as corpus:
            corpus.add([document], mtimes={"a.py": 1})
        contents.append(corpus_content(tmp_path / f"{name}.db"))
    assert contents[0] == contents[1]


@pytest.mark.parametrize("keywords", [False, True])
def test_sync_gives_trusted_only_to_a_target_whose_add_takes_it(tmp_path, keywords):
    # a SyncTarget written before add took trusted still syncs (given none); one that
    # takes any keyword is given it, for read_stored's documents
    from samecode.corpus.sync import sync_files
    from samecode.fragments.options import FragmentOptions

    given: list[dict[str, object]] = []

    class Before:  # add as the protocol stood before trusted
        def __init__(self, corpus: Corpus) -> None:
            self.corpus = corpus
            self.shingling, self.fragments = corpus.shingling, corpus.fragments
            self.keeps_text = corpus.keeps_text

        def __len__(self) -> int:
            return len(self.corpus)

        def files(self):
            return self.corpus.files()

        def touch(self, path, mtime_ns):
            self.corpus.touch(path, mtime_ns)

        def discard(self, paths):
            return self.corpus.discard(paths)

        def add(self, documents, mtimes=None, *, fragments=None, fingerprints=None,
                replacing=None, per_transaction=100, texts=None):  # fmt: skip
            given.append({})
            return self.corpus.add(documents, mtimes, fragments=fragments,
                                   fingerprints=fingerprints, replacing=replacing,
                                   per_transaction=per_transaction, texts=texts)  # fmt: skip

    class Any(Before):
        def add(self, documents, mtimes=None, **options):
            given.append({key: options[key] for key in options if key == "trusted"})
            return self.corpus.add(documents, mtimes, **options)

    tree = tmp_path / "tree"
    for i in range(3):
        write(tree / f"m{i}.py", CODE.replace("request", f"r{i}"))
    with Corpus.create(tmp_path / "c.db", fragments=FragmentOptions()) as corpus:
        report = sync_files((Any if keywords else Before)(corpus), [str(tree)], OPTIONS)
        assert len(report.added) == 3
        assert len(corpus) == 3
    assert given == [{"trusted": True} if keywords else {}]
