"""Planted fragments: how many ``scan --fragments`` finds, and at which lines, beside jscpd.

Fragments of 10 to 200 lines are cut from the standard library of one Python installed
here (3.12 by default, code no one here wrote) and planted into two files of another
one's standard library (3.9 by default), chosen from packages the fragments do not come
from. The second copy is edited at random: a line inserted between statements, a
one-line statement deleted, two runs of statements swapped (each then a plant of its
own), or (for the ``--normalize`` run) its identifiers renamed. The hosts are written to
a temporary folder and scanned by :func:`samecode.fragments.scan_fragments` (and, with
``--jscpd``, by jscpd 5 in a virtual environment of its own).

The exact truth: hosts and fragments share no run of 16 tokens by Python's own tokenizer
(a host or fragment that would is left out), so every region between two hosts that is
not planted text is false; each plant is widened to the whole run of equal tokens it is
part of (the text around a copy may happen to be the same in both hosts). A fragment has
at least twice the tokens a region needs (``--tokens code``): 80. A plant is *found* when
a region between its two hosts starts and ends within one line of it in both files;
*touched* when a region overlaps it in both. A region between two files is *true* when it
overlaps one plant in both. A host's regions with itself are not counted.

    python benchmarks/bench_fragments_quality.py --plants 100 --hosts 80 \
        --seed 1 2 3 4 5 6 7 8 9 10 --jscpd

Not part of CI: a benchmark; the figures go in the docs with the command.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import keyword
import random
import re
import subprocess
import tempfile
import time
import tokenize
from dataclasses import dataclass
from pathlib import Path

from samecode.fragments import FragmentOptions, scan_fragments
from samecode.fragments.tokens import TokenSpans
from samecode.sources.walk import WalkOptions
from samecode.text.shingling import Shingling

from _refenv import peer_python

PYENV = Path.home() / ".pyenv" / "versions"
CODE = Shingling(tokens="code")
MIN_TOKENS = FragmentOptions().min_tokens
NAME = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
KEYWORDS = set(keyword.kwlist) | {"self"}
EDITS = ("none", "insert", "delete", "reorder", "rename")
JSCPD = "jscpd==5.4.2"


def stdlib(version: str) -> Path:
    """The standard library of the newest installed Python ``version`` (``3.12``)."""
    found = sorted(PYENV.glob(f"{version}.*"), key=lambda p: [int(x) for x in p.name.split(".")])
    if not found:
        raise SystemExit(f"no Python {version} under {PYENV}")
    return found[-1] / "lib" / f"python{version}"


def modules(root: Path) -> dict[str, Path]:
    """Top-level package (or module) name -> a source file, for files of 80 lines or more
    outside tests."""
    out: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        if any(p in ("test", "tests", "idle_test", "site-packages") for p in parts):
            continue
        try:
            lines = path.read_text(encoding="utf-8").count("\n")
        except (UnicodeDecodeError, OSError):
            continue
        if lines >= 80:
            out.setdefault(parts[0].removesuffix(".py") + "/" + path.stem, path)
    return out


@dataclass
class Found:
    """A region as a tool reports it: two files and their lines (from 1, inclusive)."""

    a: str
    a_start: int
    a_end: int
    b: str
    b_start: int
    b_end: int


@dataclass
class Plant(Found):
    """A fragment planted in ``a`` and (edited) in ``b``: where, and how it was edited."""

    edit: str
    fragment: int


def renamed(lines: list[str], rng: random.Random) -> list[str]:
    names = sorted({n for line in lines for n in NAME.findall(line)} - KEYWORDS)
    new = {n: f"{n}_{rng.randrange(10**6)}" for n in names if rng.random() < 0.5}
    return [NAME.sub(lambda m: new.get(m.group(), m.group()), line) for line in lines]


def bodies(tree: ast.Module) -> list[list[ast.stmt]]:
    """The module's body and every class's: runs of statements a fragment is cut from."""
    found = [tree.body]
    found += [node.body for node in ast.walk(tree) if isinstance(node, ast.ClassDef)]
    return found


def first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def fragment(path: Path, rng: random.Random) -> tuple[list[str], list[tuple[int, int]]] | None:
    """A run of whole statements of 10 to 200 lines from ``path``, and the lines (from 0,
    in the fragment) where its statements start and end: cut there, an edit never splits
    a string."""
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    try:
        tree = ast.parse(text)
    except SyntaxError:  # syntax newer than the Python running this
        return None
    for _ in range(20):
        body = rng.choice(bodies(tree))
        start = rng.randrange(len(body))
        for stop in range(start + 1, len(body) + 1):
            first, last = first_line(body[start]), body[stop - 1].end_lineno or 0
            if 10 <= last - first + 1 <= 200:
                statements = [
                    (first_line(node) - first, (node.end_lineno or 0) - first)
                    for node in body[start:stop]
                ]
                return lines[first - 1 : last], statements
            if last - first + 1 > 200:
                break
    return None


def insertion_points(text: list[str]) -> list[int]:
    """Lines (from 0) where a host's top-level statements start, and its end."""
    try:
        tree = ast.parse("\n".join(text))
    except SyntaxError:
        return [len(text)]
    return [first_line(node) - 1 for node in tree.body] + [len(text)]


def edited(piece: list[str], statements: list[tuple[int, int]], edit: str,
           rng: random.Random) -> tuple[list[str], list[tuple[int, int, int]]]:  # fmt: skip
    """The copy of ``piece`` with ``edit`` made, and where its parts went: ``(start, stop,
    offset)`` for each part, lines ``start`` to ``stop`` (from 0, stop excluded) of the
    piece being lines ``start + offset`` onwards of the copy."""
    copy = list(piece)
    whole = [(0, len(piece), 0)]
    if edit == "insert" and len(statements) > 1:  # between statements, never at an edge
        start, _ = rng.choice(statements[1:])
        indent = copy[start][: len(copy[start]) - len(copy[start].lstrip())]
        copy.insert(start, indent + "planted_edit = 'an inserted line'")
    elif edit == "delete":
        single = [s for s, e in statements if s == e and 0 < s < len(copy) - 1]
        if single:
            del copy[rng.choice(single)]
    elif edit == "rename":
        copy = renamed(copy, rng)
    elif edit == "reorder":
        # two runs of whole statements swapped, each long enough to be found alone
        cuts = [
            s
            for s, _ in statements[1:]
            if min(tokens(piece[:s]), tokens(piece[s:])) >= 2 * MIN_TOKENS
        ]
        if cuts:
            cut = rng.choice(cuts)
            copy = piece[cut:] + piece[:cut]
            return copy, [(0, cut, len(piece) - cut), (cut, len(piece), -cut)]
    return copy, whole


def with_imports(
    piece: list[str], statements: list[tuple[int, int]], number: int, rng: random.Random
) -> tuple[list[str], list[tuple[int, int]]]:
    """``piece`` with an import block of 2 to 4 lines between two of its statements (or
    first), its modules named after the plant (no two plants share them): a copy that
    holds imports, which are masked as boilerplate by default."""
    at = rng.choice([s for s, _ in statements])
    indent = piece[at][: len(piece[at]) - len(piece[at].lstrip())]
    block = [f"{indent}import planted_{number}_{i}" for i in range(rng.randint(1, 3))]
    block.append(f"{indent}from planted_{number}_x import name_{number}")
    moved = [(s + len(block) if s >= at else s, e + len(block) if s >= at else e)
             for s, e in statements]  # fmt: skip
    return piece[:at] + block + piece[at:], [(at, at + len(block) - 1), *moved]


def tokens(lines: list[str]) -> int:
    return len(CODE.token_list("\n".join(lines), "f.py"))


def python_tokens(text: str) -> list[str]:
    """The tokens Python's own tokenizer finds, comments and layout left out: to choose
    texts that share nothing, independently of the tool measured."""
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
            tokenize.DEDENT, tokenize.ENCODING, tokenize.ENDMARKER}  # fmt: skip
    try:
        return [
            t.string
            for t in tokenize.generate_tokens(io.StringIO(text).readline)
            if t.type not in skip
        ]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return text.split()


def runs(text: str, size: int = 16) -> set[int]:
    """Hashes of the text's runs of ``size`` tokens."""
    found = python_tokens(text)
    return {hash(tuple(found[i : i + size])) for i in range(len(found) - size + 1)}


def plant(args: argparse.Namespace, folder: Path, rng: random.Random) -> list[Plant]:
    donors = modules(stdlib(args.source))
    hosts_all = modules(stdlib(args.host))
    donor_names = rng.sample(sorted(donors), args.plants)
    used = {name.split("/")[0] for name in donor_names}
    # Hosts that share no run of 16 tokens with each other (by Python's tokenizer): any
    # region between two of them is planted text.
    seen: set[int] = set()
    host_names: list[str] = []
    candidates = sorted(name for name in hosts_all if name.split("/")[0] not in used)
    for name in rng.sample(candidates, len(candidates)):
        mine = runs(hosts_all[name].read_text(encoding="utf-8"))
        if not mine & seen:
            seen |= mine
            host_names.append(name)
        if len(host_names) == args.hosts:
            break
    texts = {n: hosts_all[n].read_text(encoding="utf-8").split("\n") for n in host_names}
    plants: list[Plant] = []
    for number, donor in enumerate(donor_names):
        cut = fragment(donors[donor], rng)
        if cut is None:
            continue
        piece, statements = cut
        if args.imports:
            piece, statements = with_imports(piece, statements, number, rng)
        if tokens(piece) < 2 * MIN_TOKENS:
            continue  # a fragment of mostly comments and docstrings: too few tokens
        mine = runs("\n".join(piece))
        if mine & seen:
            continue  # shares text with a host or another fragment
        seen |= mine
        first, second = rng.sample(host_names, 2)
        edits = EDITS if args.normalize else EDITS[:-1]
        edit = rng.choice(edits)
        copy, parts = edited(piece, statements, edit, rng)
        spots = []
        for host, text in ((first, piece), (second, copy)):
            inside = [  # an earlier plant in this host is never split
                (getattr(p, f"{side}_start"), getattr(p, f"{side}_end"))
                for p in plants
                for side in ("a", "b")
                if getattr(p, side) == host
            ]
            where = rng.choice(
                [w for w in insertion_points(texts[host]) if not any(s <= w < e for s, e in inside)]
            )
            for p in plants:  # earlier plants below this one move down
                for side in ("a", "b"):
                    if getattr(p, side) == host and getattr(p, f"{side}_start") > where:
                        setattr(p, f"{side}_start", getattr(p, f"{side}_start") + len(text))
                        setattr(p, f"{side}_end", getattr(p, f"{side}_end") + len(text))
            texts[host][where:where] = text
            spots.append(where)
        a_at, b_at = spots
        for start, stop, offset in parts:
            if edit in ("insert", "delete"):  # the copy is a line longer, or shorter
                a_end, b_end = a_at + stop, b_at + len(copy)
            else:
                a_end, b_end = a_at + stop, b_at + stop + offset
            plants.append(
                Plant(
                    first,
                    a_at + start + 1,
                    a_end,
                    second,
                    b_at + start + offset + 1,
                    b_end,
                    edit,
                    number,
                )
            )
    for name, text in texts.items():
        (folder / (name.replace("/", "__") + ".py")).write_text("\n".join(text))
    for p in plants:
        p.a = str(folder / (p.a.replace("/", "__") + ".py"))
        p.b = str(folder / (p.b.replace("/", "__") + ".py"))
    return plants


def exact_truth(plants: list[Plant], options: FragmentOptions) -> None:
    """Widen each plant to the whole run of equal tokens it is part of: where the text
    around a planted copy happens to be the same in both hosts (a ``]`` or a blank
    ``return`` before it, say), a region rightly holds it. The tokens are the scan's own
    (brute force over the two token lists, independent of the matching measured); a
    first or last line counts when the run holds at least half its tokens, the line rule
    of the regions."""
    spans: dict[str, TokenSpans] = {}

    def of(path: str) -> TokenSpans:
        if path not in spans:
            spans[path] = TokenSpans.of(Path(path).read_text(), options.shingling, path)
        return spans[path]

    def token_range(t: TokenSpans, start: int, end: int) -> tuple[int, int]:
        inside = [i for i in range(len(t.ids)) if start <= t.line_of(t.starts[i]) <= end]
        return inside[0], inside[-1] + 1

    def line_range(t: TokenSpans, first: int, stop: int) -> tuple[int, int]:
        lines = [t.line_of(t.starts[i]) for i in range(len(t.ids))]
        start, end = lines[first], lines[stop - 1]
        held = lines[first:stop]
        if start < end and 2 * held.count(start) < lines.count(start):
            start = next(x for x in held if x != start)
        if start < end and 2 * held.count(end) < lines.count(end):
            end = next(x for x in reversed(held) if x != end)
        return start, end

    for p in plants:
        a, b = of(p.a), of(p.b)
        a_first, a_stop = token_range(a, p.a_start, p.a_end)
        b_first, b_stop = token_range(b, p.b_start, p.b_end)
        while a_first and b_first and a.ids[a_first - 1] == b.ids[b_first - 1]:
            a_first, b_first = a_first - 1, b_first - 1
        while a_stop < len(a.ids) and b_stop < len(b.ids) and a.ids[a_stop] == b.ids[b_stop]:
            a_stop, b_stop = a_stop + 1, b_stop + 1
        p.a_start, p.a_end = line_range(a, a_first, a_stop)
        p.b_start, p.b_end = line_range(b, b_first, b_stop)


def evaluate(plants: list[Plant], regions: list[Found]) -> dict[str, float]:
    def overlaps(s1: int, e1: int, s2: int, e2: int) -> bool:
        return s1 <= e2 and s2 <= e1

    found = touched = 0
    for p in plants:
        near = overlapped = False
        for r in regions:
            if {r.a, r.b} != {p.a, p.b}:
                continue
            sides = {r.a: (r.a_start, r.a_end), r.b: (r.b_start, r.b_end)}
            (a_start, a_end), (b_start, b_end) = sides[p.a], sides[p.b]
            if overlaps(a_start, a_end, p.a_start, p.a_end) and overlaps(
                b_start, b_end, p.b_start, p.b_end
            ):
                overlapped = True
                ends = (a_start - p.a_start, a_end - p.a_end, b_start - p.b_start, b_end - p.b_end)
                near = near or max(map(abs, ends)) <= 1
        found += near
        touched += overlapped
    between = [r for r in regions if r.a != r.b]  # a host repeating itself is no plant

    def planted(r: Found) -> bool:  # the hosts share nothing else (see plant())
        for p in plants:
            if {r.a, r.b} == {p.a, p.b}:
                sides = {r.a: (r.a_start, r.a_end), r.b: (r.b_start, r.b_end)}
                if overlaps(*sides[p.a], p.a_start, p.a_end) and overlaps(
                    *sides[p.b], p.b_start, p.b_end
                ):
                    return True
        return False

    true = sum(planted(r) for r in between)
    return {
        "plants": len(plants),
        "found": found / max(1, len(plants)),
        "touched": touched / max(1, len(plants)),
        "regions": len(between),
        "precision": true / max(1, len(between)),
    }


def ours(folder: str, options: FragmentOptions) -> tuple[list[Found], float]:
    started = time.perf_counter()
    result = scan_fragments([folder], options, WalkOptions(gitignore=False))
    seconds = time.perf_counter() - started
    return [
        Found(r.a, r.a_start, r.a_end, r.b, r.b_start, r.b_end) for r in result.regions
    ], seconds


def jscpd(folder: str, options: FragmentOptions) -> tuple[list[Found], float]:
    """jscpd 5 (its PyPI wheel, in a virtual environment of its own) on the same files: as
    many tokens at least as our regions, clones across one or two unmatched lines merged
    (``--max-gap-lines 2``, its Type-3 near-miss clones, as our ``gap``)."""
    program = peer_python("jscpd", JSCPD).parent / "jscpd"
    with tempfile.TemporaryDirectory() as out:
        command = [str(program), ".", "-k", str(options.min_tokens), "--max-gap-lines", "2",
                   "-f", "python", "-r", "json", "-o", out]  # fmt: skip
        started = time.perf_counter()
        subprocess.run(command, cwd=folder, check=True, capture_output=True)
        seconds = time.perf_counter() - started
        report = json.loads((Path(out) / "jscpd-report.json").read_text())
    found = []
    for clone in report["duplicates"]:
        one, two = clone["firstFile"], clone["secondFile"]
        found.append(Found(str(Path(folder) / one["name"]), one["start"], one["end"],
                           str(Path(folder) / two["name"]), two["start"], two["end"]))  # fmt: skip
    return found, seconds


def run(args: argparse.Namespace, seed: int) -> dict[str, dict[str, float]]:
    rng = random.Random(seed)
    tools = {"samecode": ours} | ({"jscpd": jscpd} if args.jscpd else {})
    scores = {}
    with tempfile.TemporaryDirectory() as folder:
        plants = plant(args, Path(folder), rng)
        keep = not args.ignore_boilerplate  # plants are whole statements, imports too
        options = FragmentOptions(tokens="code", normalize=args.normalize, gap=args.gap,
                                  keep_licenses=keep, keep_imports=keep)  # fmt: skip
        exact_truth(plants, options)
        edits = {e: sum(p.edit == e for p in plants) for e in EDITS}
        print(f"seed {seed}: edits {edits}")
        for name, tool in tools.items():
            found, seconds = tool(folder, options)
            scores[name] = evaluate(plants, found)
            print(f"  {name}: plants {scores[name]['plants']}, "
                  f"found within one line {scores[name]['found']:.3f}, "
                  f"overlapped {scores[name]['touched']:.3f}; "
                  f"regions {scores[name]['regions']}, "
                  f"precision {scores[name]['precision']:.3f}; {seconds:.2f} s")  # fmt: skip
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default="3.12", help="Python whose library gives fragments")
    parser.add_argument("--host", default="3.9", help="Python whose library hosts them")
    parser.add_argument("--plants", type=int, default=40)
    parser.add_argument("--hosts", type=int, default=60)
    parser.add_argument("--seed", type=int, nargs="+", default=[18], help="one run per seed")
    parser.add_argument("--gap", type=int, default=FragmentOptions().gap)
    parser.add_argument("--normalize", action="store_true", help="rename too; scan normalized")
    parser.add_argument("--jscpd", action="store_true", help=f"run {JSCPD} beside us")
    parser.add_argument(
        "--ignore-boilerplate",
        action="store_true",
        help="ignore licence headers and import blocks, as scan --fragments does by default "
        "(the truth still holds planted imports)",
    )
    parser.add_argument(
        "--imports",
        action="store_true",
        help="plant an import block of 2 to 4 lines inside every fragment (with "
        "--ignore-boilerplate: masked, and a region must grow through it)",
    )
    args = parser.parse_args()
    print(f"{args.plants} fragments from Python {args.source} into up to {args.hosts} files "
          f"of {args.host}; normalize={args.normalize}, gap={args.gap}, "
          f"ignore_boilerplate={args.ignore_boilerplate}, imports={args.imports}")  # fmt: skip
    runs = [run(args, seed) for seed in args.seed]
    for name in runs[0]:
        mine = [r[name] for r in runs]
        plants = sum(r["plants"] for r in mine)
        regions = sum(r["regions"] for r in mine)
        found = sum(r["found"] * r["plants"] for r in mine)
        touched = sum(r["touched"] * r["plants"] for r in mine)
        true = sum(r["precision"] * r["regions"] for r in mine)
        print(f"{name}, all {len(runs)} seeds: plants {plants}, "
              f"found within one line {found / plants:.3f}, overlapped {touched / plants:.3f}; "
              f"regions {regions}, precision {true / max(1, regions):.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
