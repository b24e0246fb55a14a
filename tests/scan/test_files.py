"""Walking trees and reading files (issue 20): excluded folders told, git's tolerance and
costs for ignore rules, the rules above the walked folder, links walked once, no read
that blocks, trees of any depth, unreadable roots."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from budget import line_budget
from samecode.sources.reading import read_text
from samecode.sources.skipped import Skipped, SkipReason
from samecode.sources.walk import find_files


def make(root, *names, text="x = 1\n"):
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def walk(root, **options):
    """Files (relative) and skipped paths (relative, with their reason) of a walk."""
    files, skipped = [], {}
    for found in find_files([root], **options):
        if isinstance(found, Skipped):
            skipped[os.path.relpath(found.path, root)] = found.reason
        else:
            files.append(os.path.relpath(found, root))
    return files, skipped


# -- 8: every folder the default rules leave out is told, and why -------------------------


def test_folders_left_out_by_default_are_reported_with_their_rule(tmp_path):
    make(tmp_path, "a.py", "vendor/v.py", "node_modules/m.js", "lib/site-packages/s.py")
    files, skipped = walk(tmp_path)
    assert files == ["a.py"]
    assert skipped == {
        "vendor": "excluded folder: vendor",
        "node_modules": "excluded folder: node_modules",
        "lib/site-packages": "excluded folder: site-packages",
    }
    files, skipped = walk(tmp_path, default_excludes=False)
    assert len(files) == 4
    assert skipped == {}


def test_a_virtual_environment_is_known_by_pyvenv_cfg_not_by_name(tmp_path):
    # CPython's own Lib/venv package is code, not an environment.
    make(tmp_path, "Lib/venv/__init__.py", ".venv/x.py", "env/lib/y.py", "env/pyvenv.cfg")
    files, skipped = walk(tmp_path)
    assert files == [".venv/x.py", "Lib/venv/__init__.py"]
    assert skipped == {"env": "excluded folder: virtual environment (pyvenv.cfg)"}


# -- 9: ignore lines git tolerates, at git's cost; the rules above the root ----------------


def test_gitignore_lines_git_cannot_use_match_nothing(tmp_path):
    make(tmp_path, "a.txt", "b.txt", "c.log", "foo", "keep.py")
    (tmp_path / ".gitignore").write_text("[z-a]\nfoo\\\n*.log\n[z-ab].txt\n[!z-a]x\n")
    files, skipped = walk(tmp_path)
    # [z-a] matches no character: [z-ab] is [b]; foo\ is invalid; [!z-a]x is ?x
    assert files == [".gitignore", "a.txt", "foo", "keep.py"]
    assert skipped == {}
    files, _ = walk(tmp_path, gitignore=False, exclude=["[z-a]*", "k*\\"])
    assert "keep.py" in files


def test_a_pattern_of_many_stars_answers_at_once(tmp_path):
    # git answers at once; a backtracking regular expression takes O(n ** stars) steps,
    # for stars within a name and for ** across folders.
    make(tmp_path, "a" * 250, "ab.py", "a" * 249 + "b")
    (tmp_path / ".gitignore").write_text("*a" * 12 + "*b\n" + "*x*x*x*x*x*x*x*x*y\n")
    script = textwrap.dedent(
        f"""
        import json, os
        from samecode.sources._gitignore import spec as _spec
        from samecode.sources.walk import find_files
        found = [os.path.basename(p) for p in find_files([{str(tmp_path)!r}])]
        spec = _spec(["*a" * 15 + "*b", "**/*a*a*a*a*a*a*a*a*a*a*b/**"])
        long = "a" * 10_000
        hits = [spec.match_file(n) for n in (long, long + "b", "d/" + long + "c/e")]
        deep = "a/" * 5_000
        spec = _spec(["a" + "/**/a" * 8 + "/**/b", "**/a*" + "/**/a*" * 8 + "/**/b"])
        hits += [spec.match_file(n) for n in (deep + "c", deep + "b")]
        print(json.dumps([sorted(found), [bool(hit) for hit in hits]]))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [
        [".gitignore", "a" * 250, "ab.py"],
        [False, True, False, False, True],
    ]


@pytest.mark.parametrize(
    ("pattern", "name", "ignored"),
    [
        ("*a*b*c", "xaybzc", True),
        ("*a*b*c", "xaybzcq", False),
        ("*a*b*c", "cba", False),
        ("a*b*c", "abbc", True),
        ("a*?b*c", "abc", False),
        ("a*?b*c", "axbc", True),
        ("*[xy]z*q", "yzq", True),
        ("d/*a*a*", "d/aa", True),
        ("d/*a*a*", "e/aa", False),
        ("*a**a*", "aa", True),
        ("x*a*a/y", "xaa/y", True),
        ("x*a*a/y", "xa/aa/y", False),
    ],
)
def test_stars_match_as_before(pattern, name, ignored):
    from pathspec import GitIgnoreSpec

    from samecode.sources._gitignore import spec as _spec

    assert bool(GitIgnoreSpec.from_lines([pattern]).match_file(name)) == ignored
    assert bool(_spec([pattern]).match_file(name)) == ignored


def test_gitignore_files_above_the_root_and_info_exclude_are_read(tmp_path):
    repo = tmp_path / "repo"
    make(repo, "sub/a.py", "sub/b.log", "sub/c.tmp", "sub/skip/d.py", "sub/deeper/e.log")
    (repo / ".git" / "info").mkdir(parents=True)
    (repo / ".git" / "info" / "exclude").write_text("*.tmp\n")
    (repo / ".gitignore").write_text("*.log\n/sub/skip/\n")
    (repo / "sub" / ".gitignore").write_text("!deeper/e.log\n")
    files, _ = walk(repo / "sub")
    assert files == [".gitignore", "a.py", "deeper/e.log"]
    # outside a repository, only the root's own rules and those below it
    (repo / ".git" / "info" / "exclude").unlink()
    (repo / ".git" / "info").rmdir()
    (repo / ".git").rmdir()
    files, _ = walk(repo / "sub")
    assert files == [".gitignore", "a.py", "b.log", "c.tmp", "deeper/e.log", "skip/d.py"]


# -- 10: a folder reached again through links is walked once ------------------------------


def test_folders_that_link_twice_to_the_next_are_walked_once(tmp_path):
    depth = 18
    for level in range(depth):
        make(tmp_path, f"d{level}/f.py")
    for level in range(depth - 1):
        for link in ("l1", "l2"):
            (tmp_path / f"d{level}" / link).symlink_to(tmp_path / f"d{level + 1}")
    with line_budget(200_000):
        found = list(find_files([tmp_path / "d0"], follow_symlinks=True))
    files = [f for f in found if isinstance(f, str)]
    assert len(files) == depth
    assert {f.reason for f in found if isinstance(f, Skipped)} == {"already walked"}


# -- 11: no read waits on a FIFO -----------------------------------------------------------


def test_a_path_swapped_for_a_fifo_is_refused_not_waited_on(tmp_path):
    regular = tmp_path / "regular.py"
    regular.write_text("x = 1\n")
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    # The stat sees a regular file; the open finds the FIFO (it was swapped in between).
    script = textwrap.dedent(
        f"""
        import os
        from samecode.sources import reading
        real_stat = os.stat
        os.stat = lambda path, *a, **k: real_stat({str(regular)!r})
        print(reading.read_text({str(fifo)!r}).reason)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=20
    )
    assert result.stdout.strip() == "not a regular file"


def test_a_gitignore_that_is_a_fifo_is_not_waited_on(tmp_path):
    make(tmp_path, "a.py", "sub/b.py")
    os.mkfifo(tmp_path / "sub" / ".gitignore")
    script = (
        "from samecode.sources.walk import find_files; "
        f"print(len(list(find_files([{str(tmp_path)!r}]))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=20
    )
    assert result.stdout.split() == ["3"], result.stderr


# -- 17: trees of any depth; a root that cannot be read -----------------------------------


def test_a_tree_a_thousand_folders_deep_is_walked(tmp_path):
    deep = str(tmp_path)
    for _ in range(1100):
        deep = os.path.join(deep, "d")
        os.mkdir(deep)
    with open(os.path.join(deep, "x.py"), "w") as file:
        file.write("x")
    try:
        found = list(find_files([tmp_path]))
        assert found == [os.path.join(deep, "x.py")]
    finally:  # pytest's clean-up recurses
        os.remove(os.path.join(deep, "x.py"))
        while deep != str(tmp_path):
            os.rmdir(deep)
            deep = os.path.dirname(deep)


def test_a_root_that_cannot_be_read_is_reported_as_unreadable(tmp_path, monkeypatch):
    root = str(tmp_path / "locked")
    os.mkdir(root)
    real_stat, real_lstat = os.stat, os.lstat

    def refuse(real):
        def call(path, *args, **kwargs):
            if os.fspath(path) == root:
                raise PermissionError(13, "Permission denied", root)
            return real(path, *args, **kwargs)

        return call

    monkeypatch.setattr(os, "stat", refuse(real_stat))
    monkeypatch.setattr(os, "lstat", refuse(real_lstat))
    assert list(find_files([root])) == [Skipped(root, SkipReason.UNREADABLE, "Permission denied")]
    assert list(find_files([str(tmp_path / "nothing")])) == [
        Skipped(str(tmp_path / "nothing"), SkipReason.MISSING)
    ]


def test_a_root_that_cannot_be_listed_is_reported_as_unreadable(tmp_path, monkeypatch):
    def refuse(path="."):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(os, "scandir", refuse)
    assert list(find_files([tmp_path])) == [
        Skipped(str(tmp_path), SkipReason.UNREADABLE, "Permission denied")
    ]
    assert read_text(str(tmp_path)) == Skipped(str(tmp_path), SkipReason.NOT_REGULAR)


PATTERN_PARTS = st.sampled_from(
    ["a", "b", "*", "?", "**", "/", "[ab]", "[!a]", "[/a]", "!", "\\*", "**/", "/**/"]
)
PATH_PARTS = st.sampled_from(["a", "b", "ab", "ba", "aab", "*", "/"])


@given(
    st.lists(PATTERN_PARTS, min_size=1, max_size=9).map("".join),
    st.lists(PATH_PARTS, min_size=1, max_size=10).map("".join),
)
@settings(max_examples=1500, deadline=None)
def test_cheap_stars_match_exactly_as_pathspec(pattern, path):
    from pathspec import GitIgnoreSpec

    from samecode.sources._gitignore import spec as _spec

    path = "/".join(part for part in path.split("/") if part)
    if not path:
        return
    try:
        expected = GitIgnoreSpec.from_lines([pattern])
    except Exception:  # a line git cannot use: it matches nothing here
        assert not _spec([pattern]).match_file(path)
        return
    ours = _spec([pattern])
    for name in (path, path + "/"):
        assert ours.check_file(name).include == expected.check_file(name).include, name


def test_a_root_inside_a_folder_its_repository_ignores_is_walked(tmp_path):
    # pyenv keeps every Python under versions/, which its repository ignores: a scan of
    # one of their standard libraries (the README's main job) must still see its files.
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("/versions/\n*.log\n")
    library = tmp_path / "versions" / "3.11" / "lib"
    library.mkdir(parents=True)
    (library / "a.py").write_text("x = 1\n")
    (library / "b.log").write_text("kept: the rules above do not apply here\n")
    found = sorted(os.path.basename(p) for p in find_files([str(library)]) if isinstance(p, str))
    assert found == ["a.py", "b.log"]
