"""Plagiarism: six levels of disguise, ROC AUC for samecode beside Dolos, copydetect and jscpd.

    python benchmarks/bench_plagiarism.py [--programs 40] [--seed 1] [--src src]
        [--cache .bench-cache/plagiarism] [--tools samecode dolos copydetect jscpd]
        [--json OUT]

Programs (:mod:`_plagiarism_transform`: runs of one to three consecutive functions or
methods of one file, 50 to 300 code tokens, as student assignments are) are cut from code
no one here wrote, fetched once into ``--cache`` by the registries' ordinary clients:

* Python: the standard library of the interpreter running this script;
* Java: ``java.base`` (``java.util``, ``java.lang``, ``java.math``, ``java.text``,
  ``java.time``, ``java.io``, ``java.nio``, ``java.net``) from Debian's
  ``openjdk-17-source`` (``apt-get download``);
* C: the C files of PyPI sdists (``pip download --no-binary``): simplejson, bitarray,
  ujson, markupsafe, lz4 (its bundled LZ4 library too) and crcmod.

``--programs`` of each language (at most two a file) are disguised at the six levels of
:data:`_plagiarism_transform.LEVELS` (cumulative). Every text is checked: Python by
:func:`ast.parse`, Java by javac's parser (``JavacTask.parse``), C by ``gcc
-fsyntax-only`` against ``Python.h`` and the C library's headers (type names the
program's own file would have declared given as opaque structures; errors of types and
names are not syntax errors and are let through). An original that fails is left out;
a disguise that fails leaves out that one pair.

The positives are the pairs (original, disguise at level L). The negatives are pairs of
two different programs of one language from different files: *same-task* pairs, two
functions of the same name in different files (``equals``, ``hashCode``, ``__repr__``,
``encode``...: independent solutions of one job) whose token sequences are not copies of
each other (:class:`difflib.SequenceMatcher` ratio under 0.5), and *random* pairs of
programs whose sizes differ by at most 1.5x; as many of each kind as there are programs.

Each tool gives each pair a similarity from 0 to 1 (the same pairs for all):

* samecode (from ``--src``), in process: fragments (:func:`compare_fragments`, code
  tokens) scored as ``(covered_a + covered_b) / (tokens_a + tokens_b)``, the share of both
  files' tokens inside shared regions, on a grid of ``k``, ``window``, ``min_tokens`` and
  ``normalize``; and the shingle Jaccard of ``samecode compare`` (code tokens);
* Dolos 3.5.1 (``@dodona/dolos-lib`` from npm, under ``--cache``), one analysis per
  language, its pair ``similarity``;
* copydetect 0.5.0 (its own virtual environment), its defaults (``noise_t`` 25,
  ``guarantee_t`` 30), the mean of the two files' shares;
* jscpd 5.4.2 (its PyPI wheel, its own virtual environment), run on each pair's two files
  with ``-k 10 --min-lines 1 --max-gap-lines 2``: the share of both files' lines inside
  clones.

ROC AUC (the Mann-Whitney statistic, ties counted half) for each level against all the
negatives of the language, per language and over all three. Not part of CI.
"""

from __future__ import annotations

import argparse
import difflib
import itertools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import zipfile
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

from _plagiarism_transform import (
    LEVELS,
    Program,
    c_family_programs,
    c_family_tokens,
    disguise,
    python_programs,
)

from _refenv import HERE, peer_python

LANGUAGES = ("python", "java", "c")
EXTENSIONS = {"python": ".py", "java": ".java", "c": ".c"}
SDISTS = (
    "simplejson==3.20.1",
    "bitarray==3.4.2",
    "ujson==5.10.0",
    "markupsafe==3.0.2",
    "lz4==4.4.4",
    "crcmod==1.7",
)
JDK_SOURCE = "openjdk-17-source"
JDK_PACKAGES = ("util", "lang", "math", "text", "time", "io", "nio", "net")
DOLOS = "@dodona/dolos-lib@3.5.1"
COPYDETECT = "copydetect==0.5.0"
JSCPD = "jscpd==5.4.2"
KINDS = (*(f"L{level}" for level in LEVELS), "same-task", "random")

# ---------------------------------------------------------------- sources


def python_sources() -> tuple[str, list[tuple[str, str]]]:
    """This interpreter's standard library: its version, and ``(origin, text)`` per file."""
    root = Path(sysconfig.get_paths()["stdlib"])
    out = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).parts
        if any(p in ("test", "tests", "idle_test", "site-packages", "idlelib") for p in parts):
            continue
        try:
            out.append((f"stdlib/{'/'.join(parts)}", path.read_text(encoding="utf-8")))
        except (UnicodeDecodeError, OSError):
            continue
    return f"CPython {sys.version.split()[0]} standard library", out


def java_sources(cache: Path) -> tuple[str, list[tuple[str, str]]]:
    folder = cache / "deb"
    folder.mkdir(parents=True, exist_ok=True)
    debs = sorted(folder.glob(f"{JDK_SOURCE}_*.deb"))
    if not debs:
        subprocess.run(["apt-get", "download", JDK_SOURCE], cwd=folder, check=True)
        debs = sorted(folder.glob(f"{JDK_SOURCE}_*.deb"))
    deb = debs[-1]
    unpacked = folder / "x"
    if not unpacked.exists():
        subprocess.run(["dpkg-deb", "-x", str(deb), str(unpacked)], check=True)
    (archive,) = unpacked.rglob("src.zip")
    out = []
    with zipfile.ZipFile(archive) as zipped:
        for name in sorted(zipped.namelist()):
            top = name.split("/")
            if (
                len(top) == 4
                and top[:2] == ["java.base", "java"]
                and top[2] in JDK_PACKAGES
                and name.endswith(".java")
            ):
                out.append((name, zipped.read(name).decode("utf-8")))
    return f"{deb.name.split('_')[0]} {deb.name.split('_')[1]} (Debian)", out


def c_sources(cache: Path) -> tuple[str, list[tuple[str, str]]]:
    folder = cache / "pypi"
    folder.mkdir(parents=True, exist_ok=True)
    for requirement in SDISTS:
        name, version = requirement.split("==")
        if not list(folder.glob(f"{name}-{version}.tar.gz")):
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "--no-binary",
                    ":all:",
                    "-q",
                    "-d",
                    str(folder),
                    requirement,
                ],
                check=True,
            )
        if not (folder / f"{name}-{version}").exists():
            shutil.unpack_archive(folder / f"{name}-{version}.tar.gz", folder)
    out = []
    for requirement in SDISTS:
        top = folder / requirement.replace("==", "-")
        for path in sorted(top.rglob("*.c")):
            if "python2" in path.parts or "tests" in path.parts:  # crcmod ships both
                continue
            out.append((str(path.relative_to(folder)), path.read_text(errors="replace")))
    return "PyPI sdists " + ", ".join(SDISTS), out


def candidates(language: str, cache: Path) -> tuple[str, list[Program]]:
    """Every program of a language, duplicates (the same tokens) left out."""
    if language == "python":
        source, files = python_sources()
        found = [p for origin, text in files for p in python_programs(text, origin)]
    else:
        source, files = java_sources(cache) if language == "java" else c_sources(cache)
        found = [p for origin, text in files for p in c_family_programs(text, origin, language)]
    seen = set()
    unique = []
    for program in found:
        key = tuple(token_texts(program))
        if key not in seen:
            seen.add(key)
            unique.append(program)
    return source, unique


def token_texts(program: Program) -> list[str]:
    if program.language == "python":
        return re.findall(r"\w+|[^\w\s]", re.sub(r"#[^\n]*", "", program.text))
    return [t.text for t in c_family_tokens(program.text) if t.kind not in ("comment", "pre")]


# ---------------------------------------------------------------- checks


def java_parse_failures(paths: list[Path], cache: Path) -> set[Path]:
    """The Java files that javac's parser refuses."""
    folder = cache / "parsecheck"
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "ParseCheck.class").exists():
        (folder / "ParseCheck.java").write_text(PARSE_CHECK)
        subprocess.run(["javac", "-d", str(folder), str(folder / "ParseCheck.java")], check=True)
    bad = set()
    for start in range(0, len(paths), 500):
        chunk = [str(p) for p in paths[start : start + 500]]
        out = subprocess.run(
            ["java", "-cp", str(folder), "ParseCheck", *chunk],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        bad |= {Path(line) for line in out.splitlines() if line}
    return bad


PARSE_CHECK = """\
import com.sun.source.util.JavacTask;
import java.io.File;
import java.util.List;
import javax.tools.*;

/** Prints the files given whose text javac's parser refuses, one path a line. */
public class ParseCheck {
    public static void main(String[] args) throws Exception {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        StandardJavaFileManager files = compiler.getStandardFileManager(null, null, null);
        for (String path : args) {
            DiagnosticCollector<JavaFileObject> found = new DiagnosticCollector<>();
            JavacTask task = (JavacTask) compiler.getTask(null, files, found,
                List.of("-proc:none"), null, files.getJavaFileObjects(new File(path)));
            task.parse();
            if (found.getDiagnostics().stream()
                    .anyMatch(d -> d.getKind() == Diagnostic.Kind.ERROR)) {
                System.out.println(path);
            }
        }
    }
}
"""
C_PRELUDE = "".join(
    f"#include <{h}>\n"
    for h in ("Python.h", "stdint.h", "string.h", "stdio.h", "stdlib.h", "limits.h")
)
SYNTAX = re.compile(r"error: .*(expected|stray|unterminated|missing terminating)")


def c_parses(text: str) -> bool:
    """Whether gcc parses ``text`` (types it does not know given as opaque structures)."""
    include = sysconfig.get_paths()["include"]
    known = set(re.findall(r"\(\s*(\w+)\s*\*+\s*\)", text))  # casts to pointers of types
    for _ in range(4):
        extra = "".join(f"typedef struct {n}_s {n};\n" for n in sorted(known))
        with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as file:
            file.write(C_PRELUDE + extra + text)
        try:
            result = subprocess.run(
                ["gcc", "-fsyntax-only", "-w", "-std=gnu11", "-I", include, file.name],
                capture_output=True,
                text=True,
            )
        finally:
            os.unlink(file.name)
        unknown = set(re.findall(r"unknown type name .(\w+).", result.stderr))
        if not unknown - known:
            break
        known |= unknown
    return not SYNTAX.search(result.stderr)


# ---------------------------------------------------------------- the data set


def choose(pool: list[Program], count: int, rng: random.Random) -> list[Program]:
    """``count`` programs, at most two from one file."""
    order = list(pool)
    rng.shuffle(order)
    per_file: Counter[str] = Counter()
    chosen = []
    for program in order:
        if per_file[program.origin] < 2:
            chosen.append(program)
            per_file[program.origin] += 1
        if len(chosen) == count:
            break
    return chosen


def negatives(
    pool: list[Program], originals: list[Program], count: int, rng: random.Random
) -> list[tuple[str, Program, Program]]:
    """Same-task pairs (same function name, different files, not copies) and random pairs of
    similar size, ``count`` of each at most."""
    by_name: dict[str, list[Program]] = defaultdict(list)
    for program in pool:
        for name in set(program.names):
            by_name[name].append(program)
    pairs: list[tuple[str, Program, Program]] = []
    used: Counter[str] = Counter()
    names = sorted(n for n, ps in by_name.items() if len({p.origin for p in ps}) > 1)
    rng.shuffle(names)
    while names and len(pairs) < count:
        for name in list(names):
            if len(pairs) >= count:
                break
            group = [p for p in by_name[name] if used[p.key] < 2]
            rng.shuffle(group)
            found = next(
                (
                    (one, two)
                    for one, two in itertools.combinations(group, 2)
                    if one.origin != two.origin and not copies(one, two)
                ),
                None,
            )
            if found is None:
                names.remove(name)
                continue
            pairs.append(("same-task", *found))
            used[found[0].key] += 1
            used[found[1].key] += 1
    others = list(pool)
    for one in itertools.islice(itertools.cycle(originals), count if originals else 0):
        rng.shuffle(others)
        two = next(
            (
                p
                for p in others
                if p.origin != one.origin
                and max(p.tokens, one.tokens) <= 1.5 * min(p.tokens, one.tokens)
            ),
            None,
        )
        if two is not None:
            pairs.append(("random", one, two))
    return pairs


def copies(one: Program, two: Program) -> bool:
    matcher = difflib.SequenceMatcher(None, token_texts(one), token_texts(two), autojunk=False)
    return matcher.ratio() >= 0.5


Pair = tuple[str, str, Path, Path]  # language, kind, a, b


def build(args: argparse.Namespace, work: Path) -> tuple[list[Pair], dict[str, object]]:
    """Write the programs and their disguises under ``work``; the pairs, and a description."""
    pairs: list[Pair] = []
    described: dict[str, object] = {}
    for language in args.languages:
        rng = random.Random(f"{args.seed}:{language}")
        source, pool = candidates(language, args.cache)
        originals = choose(pool, args.programs, rng)
        negative = negatives(pool, originals, args.programs, rng)
        programs = {p.key: p for p in originals} | {
            p.key: p for _, a, b in negative for p in (a, b)
        }
        folder = work / language
        paths: dict[tuple[str, int], Path] = {}
        ext = EXTENSIONS[language]
        for number, key in enumerate(programs):
            place = folder / f"p{number:03d}"
            place.mkdir(parents=True)
            levels = range(7) if programs[key] in originals else range(1)
            for level in levels:
                try:
                    text = (
                        programs[key].text
                        if level == 0
                        else disguise(programs[key], level, args.seed)
                    )
                except (ValueError, RecursionError):
                    continue
                path = place / f"L{level}{ext}"
                path.write_text(text)
                paths[key, level] = path
        bad = failures(language, list(paths.values()), args.cache)
        ok = {
            k: p
            for k, p in paths.items()
            if p not in bad and (k[0], 0) in paths and paths[k[0], 0] not in bad
        }
        counts: Counter[str] = Counter()
        for program in originals:
            for level in LEVELS:
                if (program.key, level) in ok and (program.key, 0) in ok:
                    pairs.append(
                        (language, f"L{level}", ok[program.key, 0], ok[program.key, level])
                    )
                    counts[f"L{level}"] += 1
        for kind, one, two in negative:
            if (one.key, 0) in ok and (two.key, 0) in ok:
                pairs.append((language, kind, ok[one.key, 0], ok[two.key, 0]))
                counts[kind] += 1
        tokens = sorted(p.tokens for p in originals)
        described[language] = {
            "source": source,
            "candidates": len(pool),
            "programs": len(originals),
            "files": len({p.origin for p in originals}),
            "tokens_median": tokens[len(tokens) // 2] if tokens else 0,
            "refused_by_parser": len(bad),
            "pairs": dict(counts),
        }
        print(
            f"{language}: {source}; {len(pool)} candidate programs, {len(originals)} chosen "
            f"from {described[language]['files']} files, {len(bad)} texts refused by the "
            f"parser; pairs {dict(counts)}",
            flush=True,
        )
    return pairs, described


def failures(language: str, paths: list[Path], cache: Path) -> set[Path]:
    if language == "java":
        return java_parse_failures(paths, cache)
    if language == "c":
        return {p for p in paths if not c_parses(p.read_text())}
    import ast

    bad = set()
    for path in paths:
        try:
            ast.parse(path.read_text())
        except SyntaxError:
            bad.add(path)
    return bad


# ---------------------------------------------------------------- the tools

Scores = dict[tuple[Path, Path], float]


def samecode_settings() -> dict[str, dict[str, object]]:
    """The grid: fragments (``k``/``window``/``min_tokens``, names normalised or not) and
    the shingle Jaccard."""
    grid: dict[str, dict[str, object]] = {}
    for normalize in (False, True):
        n = " normalize" if normalize else ""
        grid[f"fragments default{n}"] = {"normalize": normalize}
        for k, window, least in (
            (3, 4, 6),
            (4, 4, 8),
            (5, 4, 10),
            (6, 4, 12),
            (8, 4, 16),
            (5, 8, 10),
            (5, 4, 5),
            (4, 4, 4),
        ):
            grid[f"fragments k={k} w={window} min={least}{n}"] = {
                "normalize": normalize,
                "k": k,
                "window": window,
                "min_tokens": least,
            }
        for size in (3, 5):
            grid[f"jaccard shingle={size}{n}"] = {"normalize": normalize, "shingle": size}
    grid["fragments k=5 w=4 min=10 gap=5 normalize"] = {
        "normalize": True,
        "k": 5,
        "window": 4,
        "min_tokens": 10,
        "gap": 5,
    }
    grid["fragments k=5 w=4 min=10 gap=40 normalize"] = {
        "normalize": True,
        "k": 5,
        "window": 4,
        "min_tokens": 10,
        "gap": 40,
    }
    return grid


def samecode_scores(pairs: list[Pair], src: Path) -> dict[str, Scores]:
    sys.path.insert(0, str(src))
    from samecode.fragments import FragmentOptions, compare_fragments
    from samecode.scan.comparison import compare_files
    from samecode.text.shingling import Shingling

    out: dict[str, Scores] = {}
    for name, setting in samecode_settings().items():
        scores: Scores = {}
        started = time.perf_counter()
        setting = dict(setting)
        if "shingle" in setting:
            shingling = Shingling(
                tokens="code",
                size=int(setting["shingle"]),  # type: ignore[call-overload]
                normalize=bool(setting["normalize"]),
            )
            for _, _, a, b in pairs:
                found = compare_files(a, b, shingling)
                scores[a, b] = float(found.jaccard or 0)
        else:
            options = FragmentOptions(tokens="code", **setting)  # type: ignore[arg-type]
            for _, _, a, b in pairs:
                found = compare_fragments(a, b, options)
                covered_a = covered([(r.a_first, r.a_stop) for r in found.regions])
                covered_b = covered([(r.b_first, r.b_stop) for r in found.regions])
                total = found.a_tokens + found.b_tokens
                scores[a, b] = (covered_a + covered_b) / total if total else 0.0
        out[f"samecode {name}"] = scores
        print(f"  samecode {name}: {time.perf_counter() - started:.1f} s", flush=True)
    return out


def covered(spans: Sequence[tuple[int, int]]) -> int:
    """The positions inside at least one ``[start, stop)``."""
    total, reach = 0, -1
    for start, stop in sorted(spans):
        if stop > reach:
            total += stop - max(start, reach)
            reach = stop
    return total


DOLOS_SCRIPT = """\
import { Dolos } from "@dodona/dolos-lib";
import { readFileSync } from "node:fs";
const request = JSON.parse(readFileSync(0, "utf8"));
const dolos = new Dolos({ language: request.language });
const report = await dolos.analyzePaths(request.files);
const out = [];
for (const pair of report.allPairs()) {
  out.push([pair.leftFile.path, pair.rightFile.path, pair.similarity]);
}
process.stdout.write(JSON.stringify(out));
"""


def dolos_scores(pairs: list[Pair], cache: Path) -> Scores:
    folder = cache / "npm"
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "node_modules" / "@dodona" / "dolos-lib").exists():
        (folder / "package.json").write_text('{"private": true}\n')
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", DOLOS], cwd=folder, check=True)
    script = folder / "pairs.mjs"
    script.write_text(DOLOS_SCRIPT)
    scores: Scores = {}
    for language in LANGUAGES:
        mine = [p for p in pairs if p[0] == language]
        files = sorted({str(f) for _, _, a, b in mine for f in (a, b)})
        if not files:
            continue
        result = subprocess.run(
            ["node", str(script)],
            cwd=folder,
            capture_output=True,
            input=json.dumps({"language": language, "files": files}),
            text=True,
            check=True,
        )
        found = {}
        for left, right, similarity in json.loads(result.stdout):
            found[left, right] = found[right, left] = similarity
        for _, _, a, b in mine:
            scores[a, b] = found.get((str(a), str(b)), 0.0)
    return scores


COPYDETECT_WORKER = """\
import json, sys
from copydetect import CodeFingerprint, compare_files
request = json.load(sys.stdin)
prints = {}
def fingerprint(path):
    if path not in prints:
        prints[path] = CodeFingerprint(path, request["k"], request["window"])
    return prints[path]
out = []
for a, b in request["pairs"]:
    _, (one, two), _ = compare_files(fingerprint(a), fingerprint(b))
    out.append((float(one) + float(two)) / 2)
json.dump(out, sys.stdout)
"""


def copydetect_scores(pairs: list[Pair], cache: Path) -> Scores:
    python = peer_python("copydetect", COPYDETECT)
    worker = cache / "copydetect_worker.py"
    worker.write_text(COPYDETECT_WORKER)
    noise, guarantee = 25, 30  # copydetect's defaults
    request = {
        "k": noise,
        "window": guarantee - noise + 1,
        "pairs": [[str(a), str(b)] for _, _, a, b in pairs],
    }
    result = subprocess.run(
        [str(python), str(worker)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=True,
    )
    return {(a, b): s for (_, _, a, b), s in zip(pairs, json.loads(result.stdout), strict=True)}


def jscpd_scores(pairs: list[Pair], cache: Path) -> Scores:
    program = peer_python("jscpd", JSCPD).parent / "jscpd"
    scores: Scores = {}
    for _, _, a, b in pairs:
        with tempfile.TemporaryDirectory() as folder:
            one, two = Path(folder, "a" + a.suffix), Path(folder, "b" + b.suffix)
            shutil.copy(a, one)
            shutil.copy(b, two)
            command = [
                str(program),
                folder,
                "-k",
                "10",
                "--min-lines",
                "1",
                "--max-gap-lines",
                "2",
                "-r",
                "json",
                "-o",
                folder,
                "--silent",
                "--no-tips",
            ]
            subprocess.run(command, capture_output=True, check=True)
            report = json.loads(Path(folder, "jscpd-report.json").read_text())
            lines = {"a": set(), "b": set()}
            for clone in report["duplicates"]:
                for side in (clone["firstFile"], clone["secondFile"]):
                    name = Path(side["name"]).stem
                    lines[name] |= set(range(side["start"], side["end"] + 1))
            total = sum(len(p.read_text().splitlines()) for p in (one, two))
            scores[a, b] = (len(lines["a"]) + len(lines["b"])) / total if total else 0.0
    return scores


# ---------------------------------------------------------------- AUC


def auc(positives: Sequence[float], negatives: Sequence[float]) -> float | None:
    """ROC AUC: the chance that a positive scores above a negative, ties counted half.

    >>> auc([0.9, 0.5], [0.5, 0.1])
    0.875
    """
    if not positives or not negatives:
        return None
    ranked = sorted([(s, 1) for s in positives] + [(s, 0) for s in negatives])
    rank_sum = 0.0
    i = 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        mean_rank = (i + j + 1) / 2  # ranks from 1, ties share the mean
        rank_sum += mean_rank * sum(label for _, label in ranked[i:j])
        i = j
    n_pos, n_neg = len(positives), len(negatives)
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


def table(
    pairs: list[Pair],
    scores: Scores,
    languages: Sequence[str],
    negative_kinds: Sequence[str] = ("same-task", "random"),
) -> dict[str, float | None]:
    """AUC for each level and over all levels, the pairs of ``languages`` only."""
    mine = [p for p in pairs if p[0] in languages]
    negatives = [scores[a, b] for _, kind, a, b in mine if kind in negative_kinds]
    out = {}
    for level in LEVELS:
        positives = [scores[a, b] for _, kind, a, b in mine if kind == f"L{level}"]
        out[f"L{level}"] = auc(positives, negatives)
    every = [scores[a, b] for _, kind, a, b in mine if kind.startswith("L")]
    out["all"] = auc(every, negatives)
    return out


def show(name: str, row: dict[str, float | None]) -> str:
    cells = " ".join(f"{row[c]:6.3f}" if row[c] is not None else "     -" for c in row)
    return f"{name:52s} {cells}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=40, help="programs per language")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--src",
        type=Path,
        default=HERE.parent / "src",
        help="the src folder of the samecode to measure",
    )
    parser.add_argument("--cache", type=Path, default=HERE.parent / ".bench-cache" / "plagiarism")
    parser.add_argument("--languages", nargs="+", default=list(LANGUAGES), choices=LANGUAGES)
    parser.add_argument(
        "--tools",
        nargs="+",
        default=["samecode", "dolos", "copydetect", "jscpd"],
        choices=["samecode", "dolos", "copydetect", "jscpd"],
    )
    parser.add_argument("--keep", type=Path, help="write the programs here (kept)")
    parser.add_argument("--json", type=Path, help="write the AUCs and the data set here")
    args = parser.parse_args()
    args.cache = args.cache.resolve()
    with tempfile.TemporaryDirectory() as scratch:
        work = args.keep.resolve() if args.keep else Path(scratch)
        if args.keep and work.exists():
            shutil.rmtree(work)
        pairs, described = build(args, work)
        tools: dict[str, Callable[[], dict[str, Scores]]] = {
            "samecode": lambda: samecode_scores(pairs, args.src.resolve()),
            "dolos": lambda: {"Dolos 3.5.1": dolos_scores(pairs, args.cache)},
            "copydetect": lambda: {"copydetect 0.5.0": copydetect_scores(pairs, args.cache)},
            "jscpd": lambda: {"jscpd 5.4.2": jscpd_scores(pairs, args.cache)},
        }
        everything: dict[str, Scores] = {}
        for tool in args.tools:
            started = time.perf_counter()
            everything |= tools[tool]()
            print(f"{tool}: {time.perf_counter() - started:.1f} s", flush=True)
    results: dict[str, dict[str, dict[str, float | None]]] = {}
    header = f"{'':52s} " + " ".join(f"{c:>6s}" for c in [*(f"L{x}" for x in LEVELS), "all"])
    for scope in ("all", *args.languages):
        languages = args.languages if scope == "all" else [scope]
        print(f"\nROC AUC, {scope} ({'positives per level against every negative'})")
        print(header)
        for name, scores in everything.items():
            row = table(pairs, scores, languages)
            results.setdefault(name, {})[scope] = row
            print(show(name, row))
    print("\nROC AUC, all languages, against the same-task negatives only")
    print(header)
    for name, scores in everything.items():
        row = table(pairs, scores, args.languages, ("same-task",))
        results[name]["all, same-task negatives"] = row
        print(show(name, row))
    if args.json:
        args.json.write_text(
            json.dumps(
                {"seed": args.seed, "programs": args.programs, "data": described, "auc": results},
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
