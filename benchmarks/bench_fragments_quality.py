"""Planted fragments: how many ``scan --fragments`` finds, and at which lines.

Fragments of 10 to 200 lines are cut from the standard library of one Python installed
here (3.12 by default, code no one here wrote) and planted into two files of another
one's standard library (3.9 by default), chosen from packages the fragments do not come
from. The second copy is edited at random: a line inserted, a line deleted, or (for the
``--normalize`` run) its identifiers renamed. The hosts are written to a temporary folder
and scanned by :func:`samecode.fragments.scan_fragments`.

A fragment has at least twice the tokens a region needs (``--tokens code``): 80. A plant
is *found* when a region between its two hosts starts and ends within one line
of the planted lines in both files; *touched* when a region overlaps them in both. A
region between two files is *true* when it overlaps planted text in both (two fragments
may share text, an ``if __name__ == "__main__":`` block say), *false* otherwise: the
hosts come from unrelated packages, one per package. A host's regions with itself are
its own repetitions, not counted.

    python benchmarks/bench_fragments_quality.py --plants 40 --hosts 60

Not part of CI: a benchmark; the figures go in the docs with the command.
"""

from __future__ import annotations

import argparse
import ast
import keyword
import random
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from samecode.fragments import FragmentOptions, Region, scan_fragments
from samecode.scan import ScanOptions
from samecode.scan.shingling import Shingling

PYENV = Path.home() / ".pyenv" / "versions"
CODE = Shingling(tokens="code")
MIN_TOKENS = FragmentOptions().min_tokens
NAME = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
KEYWORDS = set(keyword.kwlist) | {"self"}


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
class Plant:
    a: str
    a_start: int
    a_end: int
    b: str
    b_start: int
    b_end: int
    edit: str


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
    for _ in range(20):
        body = rng.choice(bodies(ast.parse(text)))
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
           rng: random.Random) -> list[str]:  # fmt: skip
    copy = list(piece)
    if edit == "insert":
        start, _ = rng.choice(statements[1:] or statements)
        indent = copy[start][: len(copy[start]) - len(copy[start].lstrip())]
        copy.insert(start, indent + "planted_edit = 'an inserted line'")
    elif edit == "delete":
        single = [s for s, e in statements if s == e and 0 < s < len(copy) - 1]
        if single:
            del copy[rng.choice(single)]
    elif edit == "rename":
        copy = renamed(copy, rng)
    return copy


def plant(args: argparse.Namespace, folder: Path, rng: random.Random) -> list[Plant]:
    donors = modules(stdlib(args.source))
    hosts_all = modules(stdlib(args.host))
    donor_names = rng.sample(sorted(donors), args.plants)
    used = {name.split("/")[0] for name in donor_names}
    one_each: dict[str, str] = {}  # one host per package: hosts share nothing by kin
    for name in sorted(hosts_all):
        family = name.split("/")[0]
        if family not in used:
            one_each.setdefault(family, name)
    host_names = rng.sample(sorted(one_each.values()), min(args.hosts, len(one_each)))
    texts = {n: hosts_all[n].read_text(encoding="utf-8").split("\n") for n in host_names}
    plants: list[Plant] = []
    for donor in donor_names:
        cut = fragment(donors[donor], rng)
        if cut is None:
            continue
        piece, statements = cut
        if len(CODE.token_list("\n".join(piece), "f.py")) < 2 * MIN_TOKENS:
            continue  # a fragment of mostly comments and docstrings: too few tokens
        first, second = rng.sample(host_names, 2)
        edits = ["none", "insert", "delete", "rename"] if args.normalize else ["none", "insert",
                                                                              "delete"]  # fmt: skip
        edit = rng.choice(edits)
        copy = edited(piece, statements, edit, rng)
        spots = []
        for host, text in ((first, piece), (second, copy)):
            where = rng.choice(insertion_points(texts[host]))
            for p in plants:  # earlier plants below this one move down
                for side in ("a", "b"):
                    if getattr(p, side) == host and getattr(p, f"{side}_start") > where:
                        setattr(p, f"{side}_start", getattr(p, f"{side}_start") + len(text))
                        setattr(p, f"{side}_end", getattr(p, f"{side}_end") + len(text))
            texts[host][where:where] = text
            spots.append((host, where + 1, where + len(text)))
        (a, a_start, a_end), (b, b_start, b_end) = spots
        plants.append(Plant(a, a_start, a_end, b, b_start, b_end, edit))
    for name, text in texts.items():
        (folder / (name.replace("/", "__") + ".py")).write_text("\n".join(text))
    for p in plants:
        p.a = str(folder / (p.a.replace("/", "__") + ".py"))
        p.b = str(folder / (p.b.replace("/", "__") + ".py"))
    return plants


def evaluate(plants: list[Plant], regions: list[Region]) -> dict[str, float]:
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
    planted: dict[str, list[tuple[int, int]]] = {}
    for p in plants:
        planted.setdefault(p.a, []).append((p.a_start, p.a_end))
        planted.setdefault(p.b, []).append((p.b_start, p.b_end))

    def in_plant(path: str, start: int, end: int) -> bool:
        return any(overlaps(start, end, s, e) for s, e in planted.get(path, ()))

    # true: planted text on both sides (two plants may share text: a main() block, say)
    true = sum(
        in_plant(r.a, r.a_start, r.a_end) and in_plant(r.b, r.b_start, r.b_end) for r in between
    )
    return {
        "plants": len(plants),
        "found": found / max(1, len(plants)),
        "touched": touched / max(1, len(plants)),
        "regions": len(between),
        "precision": true / max(1, len(between)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default="3.12", help="Python whose library gives fragments")
    parser.add_argument("--host", default="3.9", help="Python whose library hosts them")
    parser.add_argument("--plants", type=int, default=40)
    parser.add_argument("--hosts", type=int, default=60)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--normalize", action="store_true", help="rename too; scan normalized")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as folder:
        plants = plant(args, Path(folder), rng)
        options = FragmentOptions(tokens="code", normalize=args.normalize)
        started = time.perf_counter()
        result = scan_fragments([folder], options, ScanOptions(gitignore=False))
        seconds = time.perf_counter() - started
        scores = evaluate(plants, result.regions)
    edits = {e: sum(p.edit == e for p in plants) for e in ("none", "insert", "delete", "rename")}
    print(f"{args.plants} fragments from Python {args.source} into {args.hosts} files of "
          f"{args.host} (seed {args.seed}; edits {edits}); normalize={args.normalize}")  # fmt: skip
    print(f"  plants {scores['plants']}, found within one line {scores['found']:.3f}, "
          f"overlapped {scores['touched']:.3f}; regions {scores['regions']}, "
          f"precision {scores['precision']:.3f}; scan {seconds:.2f} s")  # fmt: skip


if __name__ == "__main__":
    main()
