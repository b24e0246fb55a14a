"""The array kernels both ways: numpy's (``samecode[fast]``) and pure Python's give the
same output on the same inputs, exactly (lists of ints, arrays of the same type, pickles
byte for byte); ``SAMECODE_PURE=1`` keeps numpy out of a process, as does its absence."""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import subprocess
import sys
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from kernelpaths import kernels
from samecode import _kernels
from samecode.fragments.kgrams import Kgrams
from samecode.fragments.tokens import TokenSpans
from samecode.fragments.winnowing import winnow
from samecode.text.shingling import Shingling, kgram_array, kgram_hashes, token_ids

np = pytest.importorskip("numpy")

from samecode import _numpy_kernels  # noqa: E402 - only with numpy

SRC = str(Path(__file__).resolve().parents[2] / "src")
ALL_ONES = 2**64 - 1


def _both(work: Callable[..., Any], *args: Any) -> tuple[Any, Any]:
    with kernels(pure=True):
        pure = work(*args)
    with kernels(pure=False):
        fast = work(*args)
    return pure, fast


# ids: a tiny alphabet (runs repeat, hashes tie), the top of the range, and any
IDS = st.lists(
    st.one_of(
        st.integers(0, 3),
        st.integers(ALL_ONES - 3, ALL_ONES),
        st.integers(2**61 - 3, 2**61 + 1),
        st.integers(0, ALL_ONES),
    ),
    max_size=80,
)
# hashes: a tiny alphabet for ties, the masked k-grams' hash, and values alike in their
# highest 32 bits (the look-up arrays' tops)
HASHES = st.lists(
    st.one_of(
        st.integers(0, 3),
        st.just(ALL_ONES),
        st.builds(lambda top, low: top << 32 | low, st.integers(0, 2), st.integers(0, 3)),
        st.integers(0, ALL_ONES),
    ),
    max_size=80,
)


@given(IDS)
def test_a_sum_modulo_two_to_the_64_is_the_same_both_ways(values: list[int]) -> None:
    words = array("Q", values)
    assert _numpy_kernels.total(words) == sum(values) % 2**64


@given(IDS)
def test_values_in_ascending_order_are_the_same_both_ways(values: list[int]) -> None:
    ordered = _numpy_kernels.ascending(array("Q", values))
    assert ordered == array("Q", sorted(values))  # the pure way (a corpus's documents)


@given(IDS, st.integers(1, 20))
def test_kgram_hashes_are_the_same_both_ways(ids: list[int], k: int) -> None:
    pure, fast = _both(kgram_hashes, ids, k)
    assert fast == pure
    assert all(type(value) is int for value in fast)
    pure_array, fast_array = _both(kgram_array, array("Q", ids), k)
    assert pickle.dumps(fast_array) == pickle.dumps(pure_array)
    assert fast_array.tolist() == pure
    if len(ids) >= k:  # the kernel itself, not a fall-back
        words = np.array(ids, dtype=np.uint64)
        assert _numpy_kernels.kgram_hashes(words, k).tolist() == pure


def test_a_run_whose_hash_is_minus_one_is_hashed_as_cpython_hashes_it() -> None:
    # Solve CPython's tuple hash backwards for a run of two ids whose sum is 2**64 - 1
    # (C's -1, which CPython replaces by 1546275796): the rotation and the odd primes
    # are invertible modulo 2**64.
    p1, p2, p5, modulus = (
        11400714785074694791,
        14029467366897019727,
        2870177450012600261,
        2**61 - 1,
    )

    def step(acc: int, value: int) -> int:
        acc = (acc + (value % modulus) * p2) & ALL_ONES
        acc = ((acc << 31) | (acc >> 33)) & ALL_ONES
        return (acc * p1) & ALL_ONES

    for first in range(100):
        target = (ALL_ONES - (2 ^ (p5 ^ 3527539))) & ALL_ONES
        acc = (target * pow(p1, -1, 2**64)) & ALL_ONES
        acc = ((acc >> 31) | (acc << 33)) & ALL_ONES
        second = ((acc - step(p5, first)) * pow(p2, -1, 2**64)) & ALL_ONES
        if second < modulus:
            break
    ids = [first, second]
    assert hash(tuple(ids)) == 1546275796
    pure, fast = _both(kgram_hashes, ids * 3, 2)
    assert fast == pure
    assert pure[0] == pure[2] == 1546275796


@given(HASHES, st.integers(1, 20))
def test_winnow_is_the_same_both_ways(hashes: list[int], window: int) -> None:
    pure, fast = _both(winnow, hashes, window)
    assert fast == pure
    assert all(type(value) is int for value in fast)
    words = np.array(hashes, dtype=np.uint64)
    assert _numpy_kernels.winnow(words, window) == pure


@given(st.lists(st.integers(0, 2), max_size=200), st.integers(1, 20))
def test_winnow_is_the_same_both_ways_on_long_ties(hashes: list[int], window: int) -> None:
    pure, fast = _both(winnow, hashes, window)
    assert fast == pure


@given(st.lists(st.integers(0, 3), max_size=200), st.integers(1, 20), st.integers(0, 3))
def test_winnow_skips_the_same_both_ways(hashes: list[int], window: int, skip: int) -> None:
    pure, fast = _both(lambda *args: winnow(*args, skip=skip), hashes, window)
    unskipped, _ = _both(winnow, hashes, window)
    assert fast == pure == [at for at in unskipped if hashes[at] != skip]


@given(
    # white space that Python and re.ASCII disagree on, Unicode's (no-break, ideographic,
    # line separator), its digits and letters, a lone surrogate, marks alone
    st.text(
        alphabet=st.sampled_from("ab_1 \t\n\x1c\x1f\x85\xa0\u3000\u00e9\u0663\u2028\ud800+(."),
        max_size=200,
    )
    | st.text(max_size=100),
    st.sampled_from([Shingling(), Shingling(normalize=True), Shingling(tokens="code")]),
    st.sampled_from("iq"),
)
def test_token_offsets_are_the_same_both_ways(text: str, rules: Shingling, code: str) -> None:
    pure, fast = _both(rules.token_offsets, text, "a.py", code)
    tokens, starts, ends = rules.token_spans(text, "a.py")
    assert pure == fast == (tokens, array(code, starts), array(code, ends))


# words either side of 7 bytes of UTF-8 (the numpy kernel's packed keys) and longer:
# alike in their first 7 or 8 bytes, of 2-, 3- and 4-byte characters, a NUL alone, a lone
# surrogate
WORDS = st.lists(
    st.sampled_from(
        [
            "aaaaaaaab",
            "aaaaaaaac",
            "aaaaaaaaaaaaaab",
            "aaaaaaaaaaaaaaa",
            "aaaaaaaaaaaaaaaa",
            "aaaaaaaa\u00e9",
            "\u00e9" * 7,
            "\u00e9" * 8,
            "aaaaaaa",
            "aaaaaaaa",
            "aaaaaaai",
            "aaaaaab",
            "aaaaaaab",
            "\u00e9\u00e9\u00e9a",
            "\u00e9" * 4,
            "\u0663\u0663a",
            "\U0001d7d8x",
            "\U0001d7d8" * 2,
            "_" * 15,
            "\x00",
            "\ud800",
            "(",
            "a",
        ]
    ),
    max_size=40,
).map(" ".join)


@given(
    WORDS
    | st.text(alphabet=st.sampled_from("ab_1 \x00\t\n\x1c\u00e9\u0663\u3000\ud800+("))
    | st.text(max_size=100),
    st.sampled_from("iq"),
    st.sampled_from([Shingling(), Shingling(normalize=True), Shingling(tokens="code")]),
)
@example(  # words alike but in their last byte, of 8 to 16 bytes
    "aaaaaaab aaaaaaac aaaaaaaab aaaaaaaac aaaaaaaaaaaaaab aaaaaaaaaaaaaac aaaaaaaaaaaaaaab "
    "aaaaaaaaaaaaaaac \u00e9\u00e9\u00e9\u00e9a \u00e9\u00e9\u00e9\u00e9b aaaaaaab",
    "q",
    Shingling(),
)
def test_token_ids_are_the_same_both_ways(text: str, code: str, rules: Shingling) -> None:
    pure, fast = _both(rules.id_offsets, text, "a.py", code)
    tokens, starts, ends = rules.token_spans(text, "a.py")
    assert pure == fast == (array("Q", token_ids(tokens)), array(code, starts), array(code, ends))
    count, shingles = rules.measure_ids(pure[0])
    for measured in _both(rules.measure, text, "a.py"):  # a set: in no particular order
        assert (measured[0], sorted(measured[1])) == (count, sorted(shingles))


@given(st.text(alphabet=st.sampled_from("a \n\r\x85\u2028\u00e9\ud800"), max_size=60))
def test_token_spans_are_the_same_both_ways(text: str) -> None:
    pure, fast = _both(TokenSpans.of, text, Shingling())
    assert pickle.dumps(fast) == pickle.dumps(pure)
    assert list(pure.line_starts) == [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]


@given(
    st.text(alphabet=st.sampled_from("ab \n"), max_size=60),
    st.lists(
        st.builds(lambda start, more: (start, start + more), st.integers(1, 14), st.integers(0, 4)),
        max_size=12,
    ),
    st.sampled_from([None, (0, 3), (5, 4), (1.5, 2)]),  # a bad run, refused the same way
)
def test_the_tokens_runs_of_lines_hold_are_the_same_both_ways(text, runs, bad) -> None:
    spans = TokenSpans.of(text, Shingling())
    runs = sorted(runs) + ([] if bad is None else [bad])

    def held(runs: list[tuple[int, int]]) -> Any:
        try:
            return spans.held_by(runs)
        except (TypeError, ValueError) as error:  # the first bad run, named the same way
            return repr(error)

    pure, fast = _both(held, runs)
    assert pure == fast
    if isinstance(pure, list):  # each run's tokens, brute force: those starting on its lines
        lines = [spans.line_of(start) for start in spans.starts]
        expected = []
        for start, end in runs:
            inside = [n for n, line in enumerate(lines) if start <= line <= end]
            if inside:
                first, stop = inside[0], inside[-1] + 1
                expected.append((*spans.lines(first, stop), first, stop))
        assert pure == expected


@pytest.mark.parametrize("pure", [True, False])
def test_token_offsets_refuse_another_typecode(pure: bool) -> None:
    with kernels(pure):
        for offsets in (Shingling().token_offsets, Shingling().id_offsets):
            with pytest.raises(ValueError, match="typecode must be 'i' or 'q'; got 'Q'"):
                offsets("a b", "a.py", "Q")
            with pytest.raises(TypeError, match="text must be a str"):
                offsets(b"a b", "a.py", "i")  # type: ignore[arg-type]


class _Long(str):
    """A short text that says it is ``size`` characters long (no test holds 2 GB)."""

    size = 0

    def __len__(self) -> int:
        return self.size


@pytest.mark.parametrize("pure", [True, False])
def test_offsets_of_type_i_are_refused_for_a_text_they_cannot_hold(pure: bool) -> None:
    text = _Long("a b")
    with kernels(pure):
        for offsets in (Shingling().token_offsets, Shingling().id_offsets):
            text.size = 2**31
            with pytest.raises(ValueError, match="the text has 2147483648 characters: use 'q'"):
                offsets(text, "a.py", "i")
            text.size = 2**31 - 1  # its last offset still fits
            assert list(offsets(text, "a.py", "i")[1]) == [0, 2]


@given(HASHES, st.data())
def test_the_look_up_arrays_are_the_same_both_ways(hashes: list[int], data: Any) -> None:
    selected = sorted(data.draw(st.sets(st.integers(0, max(0, len(hashes) - 1)))))
    if not hashes:
        selected = []
    pure, fast = _both(Kgrams.selecting, array("Q", hashes), array("q", selected))
    assert pickle.dumps(fast) == pickle.dumps(pure)


@given(
    st.lists(st.integers(0, 4), max_size=120),
    st.integers(1, 8),
    st.integers(1, 8),
    st.lists(st.tuples(st.integers(0, 120), st.integers(0, 30)), max_size=3),
)
def test_kgrams_are_the_same_both_ways(
    ids: list[int], k: int, window: int, ranges: list[tuple[int, int]]
) -> None:
    masked = [(min(first, len(ids)), min(first + span, len(ids))) for first, span in ranges]
    pure, fast = _both(Kgrams.of, array("Q", ids), k, window, masked)
    assert pickle.dumps(fast) == pickle.dumps(pure)


@given(
    st.lists(st.sampled_from(["a", "b", "c", "(", ")", "x1", "+", "\n"]), max_size=150),
    st.sampled_from(["words", "code"]),
    st.integers(1, 6),
    st.booleans(),
)
def test_distinct_shingles_are_the_same_set_both_ways(
    pieces: list[str], tokens: str, size: int, normalize: bool
) -> None:
    shingling = Shingling(tokens=tokens, size=size, normalize=normalize)
    pure, fast = _both(shingling.measure, " ".join(pieces), "a.py")
    assert fast[0] == pure[0]
    assert sorted(fast[1]) == sorted(pure[1])
    assert len(fast[1]) == len(set(fast[1]))  # distinct, as the pure set is
    assert fast[1].typecode == pure[1].typecode == "Q"


def test_ids_numpy_cannot_hold_are_hashed_the_pure_way() -> None:
    ids = [-1, 2**64, 5, 7]
    with kernels(pure=False):
        assert kgram_hashes(ids, 2) == [hash(tuple(ids[i : i + 2])) & ALL_ONES for i in range(3)]
        assert winnow([-5, 2**70, -5], 2) == [0, 2]


def test_a_real_file_is_the_same_both_ways() -> None:
    text = Path(_kernels.__file__).with_name("engine.py").read_text(encoding="utf-8")
    ids = array("Q", token_ids(Shingling().token_list(text)))
    pure, fast = _both(Kgrams.of, ids, 12, 16, [(0, 40)])
    assert len(ids) > 1000
    assert pickle.dumps(fast) == pickle.dumps(pure)


def _environment(**variables: str) -> dict[str, str]:
    """This environment without ``SAMECODE_PURE``, samecode's sources on the path, and
    ``variables``: for a fresh process."""
    env = {key: value for key, value in os.environ.items() if key != _kernels.PURE}
    return {**env, "PYTHONPATH": SRC, **variables}


def _scan(
    tmp_path: Path, options: tuple[str, ...] = ("--fragments",), **variables: str
) -> tuple[str, list[str]]:
    """``scan`` with ``options`` (``--fragments``) of a small tree in a fresh process with
    the environment ``variables``: its JSONL output, and the modules of numpy the
    process imported."""
    tree = tmp_path / "tree"
    tree.mkdir(exist_ok=True)
    body = "\n".join(f"def f{i}(x):\n    return x * {i} + total[{i}]" for i in range(60))
    (tree / "a.py").write_text(body, encoding="utf-8")
    (tree / "b.py").write_text(body.replace("f30(", "g30(").replace("+ total[45]", "- t"))
    script = (
        "import sys\n"
        "from samecode.cli import main\n"
        f"status = main(['scan', *{list(options)!r}, '--format', 'jsonl', {str(tree)!r}])\n"
        "print(sorted(name for name in sys.modules if name.split('.')[0] == 'numpy'),"
        " file=sys.stderr)\n"
        "raise SystemExit(status)\n"
    )
    env = _environment(**variables)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert ('"type": "region"' if "--fragments" in options else '"type": "pair"') in done.stdout
    modules = json.loads(done.stderr.strip().splitlines()[-1].replace("'", '"'))
    return done.stdout, modules


def test_samecode_pure_keeps_numpy_out_of_the_process(tmp_path: Path) -> None:
    fast, imported = _scan(tmp_path)
    assert "numpy" in imported  # the files are long enough for numpy's kernels
    pure, imported = _scan(tmp_path, SAMECODE_PURE="1")
    assert imported == []
    assert pure == fast


def test_a_scan_of_shingles_is_the_same_both_ways(tmp_path: Path) -> None:
    options = ("--threshold", "0.5")
    fast, imported = _scan(tmp_path, options)
    assert "numpy" in imported
    pure, imported = _scan(tmp_path, options, SAMECODE_PURE="1")
    assert imported == []
    assert pure == fast


def test_without_numpy_the_scan_runs_the_pure_way(tmp_path: Path) -> None:
    # numpy made unimportable (None in sys.modules) by a sitecustomize on the path
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text("import sys\nsys.modules['numpy'] = None\n")
    fast, _ = _scan(tmp_path)
    pure, imported = _scan(tmp_path, PYTHONPATH=f"{blocker}{os.pathsep}{SRC}")
    assert imported == ["numpy"]  # the blocker's None, nothing of numpy's own
    assert pure == fast


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(),
    reason="workers inherit modules only where they are forked",
)
@pytest.mark.parametrize(("pure", "loaded"), [("", True), ("1", False)])
def test_a_pool_loads_numpy_before_its_workers_fork(pure: str, loaded: bool) -> None:
    # Each worker sees numpy before its first task (inherited), unless SAMECODE_PURE
    # keeps it out of every process.
    script = (
        "import multiprocessing, sys\n"
        "multiprocessing.set_start_method('fork')\n"
        "from samecode.engine import ProcessPool\n"
        "def seen(name):\n"
        "    return name in sys.modules\n"
        "with ProcessPool(2) as pool:\n"
        "    print(list(pool.map(seen, [('numpy',), ('numpy',)])), 'numpy' in sys.modules)\n"
    )
    env = _environment(**{_kernels.PURE: pure})
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [f"[{loaded},", f"{loaded}]", str(loaded)]
