"""Plagiarism: six levels of disguise, ROC AUC for samecode beside Dolos, copydetect and jscpd.

    python benchmarks/bench_plagiarism.py [--programs 80] [--seeds 1 2 3 4 5] [--src src]
        [--cache .bench-cache/plagiarism] [--tools samecode dolos copydetect jscpd]
        [--grid] [--json OUT] [--scores OUT] [--keep DIR]

Programs (:mod:`_plagiarism_transform`: runs of one to three consecutive functions or
methods of one file, 50 to 300 code tokens, as student assignments are) are cut from code
no one here wrote, fetched once into ``--cache`` by the registries' ordinary clients:

* Python: the standard library of the interpreter running this script;
* Java: ``java.base`` (``java.util``, ``java.lang``, ``java.math``, ``java.text``,
  ``java.time``, ``java.io``, ``java.nio``, ``java.net``) from Debian's
  ``openjdk-17-source`` (``apt-get download``);
* C: the C files of the PyPI sdists of :data:`SDISTS` (``pip download --no-binary``),
  their tests left out.

For each seed, ``--programs`` of each language are drawn afresh (at most two a file) and
disguised at the six levels of :data:`_plagiarism_transform.LEVELS` (cumulative; the
choices of a disguise depend on the seed). Every text is checked: Python by
:func:`ast.parse`, Java by javac's parser (``JavacTask.parse``), C by ``gcc
-fsyntax-only`` against ``Python.h`` and the C library's headers (type names the
program's own file would have declared given as opaque structures, macros of its file
before a declaration defined empty; errors of types and names are not syntax errors and
are let through). An original that fails is left out; a disguise that fails leaves out
that one pair.

The positives are the pairs (original, disguise at level L). The negatives are pairs of
two different programs of one language from different files: *same-task* pairs, two
functions of the same job in different files (Python, Java: the same name, ``equals``,
``hashCode``, ``__repr__``...; C: the same last word of the name, ``md2_update`` and
``OCB_update``, ``bitarray_dealloc`` and ``automaton_dealloc``) whose token sequences are
not copies of each other (:class:`difflib.SequenceMatcher` ratio under 0.5), and *random*
pairs of programs whose sizes differ by at most 1.5x; as many of each kind as there are
programs at most.

Each tool gives each pair a similarity from 0 to 1 (the same pairs for all):

* samecode (from ``--src``), in process, with ``profile("plagiarism")`` (what
  ``--profile plagiarism`` gives): the Jaccard of its shingles (``samecode compare``),
  fragments (:func:`compare_fragments`) scored as ``(covered_a + covered_b) / (tokens_a +
  tokens_b)``, the share of both files' tokens inside shared regions, and the mean of the
  two; and with ``--grid``, for reference, a small grid of other settings over the profile;
* Dolos 3.5.1 (``@dodona/dolos-lib`` from npm, under ``--cache``), one analysis per seed
  and language, its pair ``similarity``;
* copydetect 0.5.0 (its own virtual environment), its defaults (``noise_t`` 25,
  ``guarantee_t`` 30), the mean of the two files' shares;
* jscpd 5.4.2 (its PyPI wheel, its own virtual environment), run on each pair's two files
  with ``-k 10 --min-lines 1 --max-gap-lines 2``: the share of both files' lines inside
  clones.

ROC AUC (the Mann-Whitney statistic, ties counted half) for each level against the
negatives of the language (all, and the same-task ones alone), per seed; reported as the
mean over the seeds with the least and greatest, per language and over all three, and
how many seeds each samecode setting is ahead of Dolos in. ``--scores`` writes every
pair's scores (with ``--keep``, the programs stay to be read). Not part of CI.
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
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
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
    "pycryptodome==4.4.0",
    "brotli==1.2.1",
    "cffi==2.1.1",
    "pyahocorasick==2.3.1",
    "mmh3==5.3.1",
    "xxhash==4.1.0",
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
            if {"python2", "test", "tests", "testing"} & set(path.parts):  # crcmod ships both
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


def task(name: str, language: str) -> str:
    """What a function of this name does, for same-task negatives: its name (Python,
    Java); in C, where a library's functions carry its prefix, the name's last word
    (``md2_update``, ``poly1305_update`` and ``OCB_update`` all ``update``)."""
    return name.rsplit("_", 1)[-1].lower() if language == "c" and "_" in name.strip("_") else name


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

    def refused(chunk: list[Path]) -> set[Path]:
        out = subprocess.run(
            ["java", "-cp", str(folder), "ParseCheck", *map(str, chunk)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return {Path(line) for line in out.splitlines() if line}

    size = max(1, min(500, -(-len(paths) // (os.cpu_count() or 1))))  # one JVM a core
    chunks = [paths[start : start + size] for start in range(0, len(paths), size)]
    with ThreadPoolExecutor(os.cpu_count()) as pool:
        return set().union(*pool.map(refused, chunks))


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
C_CHECKED: dict[str, bool] = {}  # text: parses (originals recur from seed to seed)
C_PRELUDE = "".join(
    f"#include <{h}>\n"
    for h in ("Python.h", "stdint.h", "string.h", "stdio.h", "stdlib.h", "limits.h")
)
SYNTAX = re.compile(r"error: .*(expected|stray|unterminated|missing terminating)")


GCC = ["gcc", "-w", "-std=gnu11", "-I", sysconfig.get_paths()["include"]]


def c_prelude(cache: Path) -> Path:
    """The headers every C text is checked against, precompiled once (``.gch``)."""
    header = cache / "parsecheck" / "prelude.h"
    if not header.exists() or header.read_text() != C_PRELUDE:
        header.parent.mkdir(parents=True, exist_ok=True)
        header.write_text(C_PRELUDE)
        subprocess.run([*GCC, "-x", "c-header", str(header), "-o", f"{header}.gch"], check=True)
    return header


# a word in capitals that opens a line's declaration before another word is a macro of
# the program's own file (``EXPORT_SYM int f(...)``, ``FORCE_INLINE U32 g(...)``)
MACRO = re.compile(
    r"^[ \t]*(?:(?:static|inline|extern|const)\s+)*([A-Z][A-Z0-9_]+)\s+(?=[A-Za-z_*])", re.M
)


def c_parses(text: str, prelude: Path) -> bool:
    """Whether gcc parses ``text`` (types it does not know given as opaque structures),
    as it is or, failing that, with the macros :data:`MACRO` finds defined empty (unless
    the text casts to them: then they are types)."""
    if c_parses_with(text, prelude, set()):
        return True
    types = set(re.findall(r"\(\s*(\w+)\s*\**\s*\)", text))
    macros = set(MACRO.findall(text)) - types
    return bool(macros) and c_parses_with(text, prelude, macros)


def c_parses_with(text: str, prelude: Path, macros: set[str]) -> bool:
    known = set(re.findall(r"\(\s*(\w+)\s*\*+\s*\)", text))  # casts to pointers of types
    defined = "".join(f"#define {n}\n" for n in sorted(macros))
    for _ in range(4):
        extra = "".join(f"typedef struct {n}_s {n};\n" for n in sorted(known))
        with tempfile.NamedTemporaryFile("w", suffix=".c", delete=False) as file:
            file.write(defined + extra + text)
        try:
            result = subprocess.run(
                [*GCC, "-fsyntax-only", "-include", str(prelude), file.name],
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
        for name in {task(n, program.language) for n in program.names}:
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


Pair = tuple[int, str, str, Path, Path]  # seed, language, kind, a, b


def build(args: argparse.Namespace, work: Path) -> tuple[list[Pair], dict[str, object]]:
    """Write each seed's programs and their disguises under ``work``; the pairs, and a
    description of the data set."""
    pairs: list[Pair] = []
    described: dict[str, dict[str, object]] = {}
    pools = {language: candidates(language, args.cache) for language in args.languages}
    for seed, language in itertools.product(args.seeds, args.languages):
        rng = random.Random(f"{seed}:{language}")
        source, pool = pools[language]
        originals = choose(pool, args.programs, rng)
        negative = negatives(pool, originals, args.programs, rng)
        programs = {p.key: p for p in originals} | {
            p.key: p for _, a, b in negative for p in (a, b)
        }
        folder = work / f"seed{seed}" / language
        paths: dict[tuple[str, int], Path] = {}
        ext = EXTENSIONS[language]
        for number, key in enumerate(programs):
            place = folder / f"p{number:03d}"
            place.mkdir(parents=True)
            levels = range(7) if programs[key] in originals else range(1)
            for level in levels:
                try:
                    text = (
                        programs[key].text if level == 0 else disguise(programs[key], level, seed)
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
                        (seed, language, f"L{level}", ok[program.key, 0], ok[program.key, level])
                    )
                    counts[f"L{level}"] += 1
        for kind, one, two in negative:
            if (one.key, 0) in ok and (two.key, 0) in ok:
                pairs.append((seed, language, kind, ok[one.key, 0], ok[two.key, 0]))
                counts[kind] += 1
        tokens = sorted(p.tokens for p in originals)
        mine = described.setdefault(language, {"source": source, "candidates": len(pool)})
        mine[f"seed {seed}"] = {
            "programs": len(originals),
            "files": len({p.origin for p in originals}),
            "tokens_median": tokens[len(tokens) // 2] if tokens else 0,
            "texts": len(paths),
            "refused_by_parser": len(bad),
            "pairs": dict(counts),
        }
        print(
            f"seed {seed}, {language}: {len(pool)} candidate programs, {len(originals)} chosen "
            f"from {len({p.origin for p in originals})} files, {len(bad)} of {len(paths)} texts "
            f"refused by the parser; pairs {dict(counts)}",
            flush=True,
        )
    for language, (source, _) in pools.items():
        print(f"{language}: {source}")
    return pairs, described  # type: ignore[return-value]


def failures(language: str, paths: list[Path], cache: Path) -> set[Path]:
    if language == "java":
        return java_parse_failures(paths, cache)
    if language == "c":
        prelude = c_prelude(cache)
        texts = [p.read_text() for p in paths]
        unknown = sorted(set(texts) - C_CHECKED.keys())
        with ThreadPoolExecutor(os.cpu_count()) as pool:
            C_CHECKED.update(zip(unknown, pool.map(lambda t: c_parses(t, prelude), unknown)))
        return {p for p, text in zip(paths, texts, strict=True) if not C_CHECKED[text]}
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


PROFILE = "samecode --profile plagiarism"


def samecode_settings(grid: bool) -> dict[str, tuple[str, dict[str, object]]]:
    """The profile's two scores, and with ``grid`` a small grid of alternatives for
    reference: each ``(kind, settings given over the profile)``, kind ``fragments`` or
    ``shingles`` (``defaults``: the library's fragments, code tokens)."""
    profile = {
        f"{PROFILE}, fragments": ("fragments", {}),
        f"{PROFILE}, shingles": ("shingles", {}),
    }
    return (
        profile
        if not grid
        else profile
        | {
            "  fragments k=4 min=8": ("fragments", {"k": 4, "min_tokens": 8}),
            "  fragments k=6 min=12": ("fragments", {"k": 6, "min_tokens": 12}),
            "  fragments window=8": ("fragments", {"window": 8}),
            "  fragments min=15": ("fragments", {"min_tokens": 15}),
            "  fragments gap=0": ("fragments", {"gap": 0}),
            "  fragments gap=10": ("fragments", {"gap": 10}),
            "  fragments names kept": ("fragments", {"normalize": False}),
            "  shingles size=2": ("shingles", {"size": 2}),
            "  shingles size=4": ("shingles", {"size": 4}),
            "  shingles size=5": ("shingles", {"size": 5}),
            "  shingles names kept": ("shingles", {"normalize": False}),
            "library defaults, fragments (code tokens)": ("defaults", {}),
        }
    )


def samecode_scores(pairs: list[Pair], grid: bool) -> dict[str, Scores]:
    """Every setting of :func:`samecode_settings`, one process a setting; and the mean of
    the profile's two scores."""
    settings = samecode_settings(grid)
    with ProcessPoolExecutor(os.cpu_count()) as pool:
        found = pool.map(samecode_run, settings.values(), itertools.repeat(pairs))
        out = dict(zip(settings, found, strict=True))
    fragments, shingles = out[f"{PROFILE}, fragments"], out[f"{PROFILE}, shingles"]
    mean = {pair: (fragments[pair] + shingles[pair]) / 2 for pair in fragments}
    ordered = dict(itertools.islice(out.items(), 2))
    ordered[f"{PROFILE}, mean of both"] = mean
    return ordered | out


def samecode_run(setting: tuple[str, dict[str, object]], pairs: list[Pair]) -> Scores:
    """One setting's similarity for each pair: the Jaccard of the shingles (what
    ``samecode compare`` reports), or the share of both files' tokens inside the regions
    of :func:`compare_fragments`, ``(covered_a + covered_b) / (tokens_a + tokens_b)``."""
    from samecode.fragments import FragmentOptions, compare_fragments
    from samecode.profiles import profile
    from samecode.scan.comparison import compare_files

    kind, given = setting
    plagiarism = profile("plagiarism")
    scores: Scores = {}
    if kind == "shingles":
        shingling = plagiarism.shingling_rules(**given)
        for *_, a, b in pairs:
            scores[a, b] = float(compare_files(a, b, shingling).jaccard or 0)
        return scores
    if kind == "defaults":
        options = FragmentOptions(tokens="code")
    else:
        options = plagiarism.fragment_options(**given)
    for *_, a, b in pairs:
        found = compare_fragments(a, b, options)
        covered_a = covered([(r.a_first, r.a_stop) for r in found.regions])
        covered_b = covered([(r.b_first, r.b_stop) for r in found.regions])
        total = found.a_tokens + found.b_tokens
        scores[a, b] = (covered_a + covered_b) / total if total else 0.0
    return scores


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
    groups = sorted({(seed, language) for seed, language, *_ in pairs})
    for seed, language in groups:  # one analysis for each seed's programs of a language
        mine = [p for p in pairs if p[:2] == (seed, language)]
        files = sorted({str(f) for *_, a, b in mine for f in (a, b)})
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
        for *_, a, b in mine:
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
        "pairs": [[str(a), str(b)] for *_, a, b in pairs],
    }
    result = subprocess.run(
        [str(python), str(worker)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=True,
    )
    return {(a, b): s for (*_, a, b), s in zip(pairs, json.loads(result.stdout), strict=True)}


def jscpd_scores(pairs: list[Pair]) -> Scores:
    program = peer_python("jscpd", JSCPD).parent / "jscpd"
    with ThreadPoolExecutor(os.cpu_count()) as pool:
        found = pool.map(lambda pair: jscpd_score(program, pair[-2], pair[-1]), pairs)
        return {(a, b): score for (*_, a, b), score in zip(pairs, found, strict=True)}


def jscpd_score(program: Path, a: Path, b: Path) -> float:
    """The share of both files' lines inside the clones jscpd finds between them."""
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
        lines: dict[str, set[int]] = {"a": set(), "b": set()}
        for clone in report["duplicates"]:
            for side in (clone["firstFile"], clone["secondFile"]):
                name = Path(side["name"]).stem
                lines[name] |= set(range(side["start"], side["end"] + 1))
        total = sum(len(p.read_text().splitlines()) for p in (one, two))
        return (len(lines["a"]) + len(lines["b"])) / total if total else 0.0


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


COLUMNS = (*(f"L{level}" for level in LEVELS), "all")
Row = dict[str, float | None]


def table(
    pairs: list[Pair],
    scores: Scores,
    languages: Sequence[str],
    negative_kinds: Sequence[str] = ("same-task", "random"),
) -> Row:
    """AUC for each level and over all levels, the pairs of ``languages`` only."""
    mine = [p for p in pairs if p[1] in languages]
    negatives = [scores[a, b] for _, _, kind, a, b in mine if kind in negative_kinds]
    out = {}
    for level in LEVELS:
        positives = [scores[a, b] for _, _, kind, a, b in mine if kind == f"L{level}"]
        out[f"L{level}"] = auc(positives, negatives)
    every = [scores[a, b] for _, _, kind, a, b in mine if kind.startswith("L")]
    out["all"] = auc(every, negatives)
    return out


def over_seeds(rows: list[Row]) -> dict[str, dict[str, float] | None]:
    """Each column's mean, least and greatest AUC over the seeds' rows."""
    out: dict[str, dict[str, float] | None] = {}
    for column in COLUMNS:
        values = [v for row in rows if (v := row[column]) is not None]
        out[column] = (
            {"mean": sum(values) / len(values), "min": min(values), "max": max(values)}
            if values
            else None
        )
    return out


def show(name: str, row: dict[str, dict[str, float] | None], part: str = "mean") -> str:
    if part == "range":
        cells = [f"{c['min']:.3f}-{c['max']:.3f}" if c else "-" for c in row.values()]
    else:
        cells = [f"{c['mean']:.3f}" if c else "-" for c in row.values()]
    return f"{'' if part == 'range' else name:44s} " + " ".join(f"{c:>11s}" for c in cells)


def report(
    pairs: list[Pair], everything: dict[str, Scores], args: argparse.Namespace
) -> dict[str, dict[str, object]]:
    """Print, for every tool and scope, the mean AUC over the seeds per level (and
    under it the least..greatest); and how often samecode's rows beat Dolos."""
    scopes = [("all languages", args.languages, ("same-task", "random"))]
    scopes.append(("all languages, same-task negatives only", args.languages, ("same-task",)))
    for language in args.languages:
        scopes.append((language, [language], ("same-task", "random")))
        scopes.append((f"{language}, same-task negatives only", [language], ("same-task",)))
    header = f"{'':44s} " + " ".join(f"{c:>11s}" for c in COLUMNS)
    results: dict[str, dict[str, object]] = defaultdict(dict)
    per_seed: dict[tuple[str, str], list[Row]] = {}
    for scope, languages, kinds in scopes:
        print(f"\nROC AUC, {scope}: mean over seeds {args.seeds}, under it least-greatest")
        print(header)
        for name, scores in everything.items():
            rows = [
                table([p for p in pairs if p[0] == seed], scores, languages, kinds)
                for seed in args.seeds
            ]
            per_seed[scope, name] = rows
            summary = over_seeds(rows)
            results[name][scope] = {"seeds": rows, **summary}
            print(show(name, summary))
            if len(args.seeds) > 1:
                print(show(name, summary, "range"))
    dolos = "Dolos 3.5.1"
    if dolos in everything:
        print(f"\nSeeds where samecode's AUC is above {dolos}'s (ties =), of {len(args.seeds)}")
        for scope, *_ in scopes[:2]:
            print(f"{scope}:")
            print(header)
            for name in everything:
                if not name.startswith(("samecode", "  ")):
                    continue
                cells = []
                for column in COLUMNS:
                    pairs_of_rows = zip(per_seed[scope, name], per_seed[scope, dolos], strict=True)
                    ours = [(a[column] or 0) - (b[column] or 0) for a, b in pairs_of_rows]
                    ties = sum(abs(d) < 1e-12 for d in ours)
                    cells.append(f"{sum(d > 1e-12 for d in ours)}" + (f" ={ties}" if ties else ""))
                print(f"{name:44s} " + " ".join(f"{c:>11s}" for c in cells))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", type=int, default=80, help="programs per language")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
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
    parser.add_argument(
        "--grid", action="store_true", help="samecode: other settings too, for reference"
    )
    parser.add_argument("--keep", type=Path, help="write the programs here (kept)")
    parser.add_argument("--json", type=Path, help="write the AUCs and the data set here")
    parser.add_argument("--scores", type=Path, help="write every pair's scores here (JSON)")
    args = parser.parse_args()
    args.cache = args.cache.resolve()
    sys.path.insert(0, str(args.src.resolve()))  # the samecode measured (workers fork)
    begun = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        work = args.keep.resolve() if args.keep else Path(scratch)
        if args.keep and work.exists():
            shutil.rmtree(work)
        pairs, described = build(args, work)
        print(f"data set: {time.perf_counter() - begun:.1f} s", flush=True)
        tools: dict[str, Callable[[], dict[str, Scores]]] = {
            "samecode": lambda: samecode_scores(pairs, args.grid),
            "dolos": lambda: {"Dolos 3.5.1": dolos_scores(pairs, args.cache)},
            "copydetect": lambda: {"copydetect 0.5.0": copydetect_scores(pairs, args.cache)},
            "jscpd": lambda: {"jscpd 5.4.2": jscpd_scores(pairs)},
        }
        everything: dict[str, Scores] = {}
        for tool in args.tools:
            started = time.perf_counter()
            everything |= tools[tool]()
            print(f"{tool}: {time.perf_counter() - started:.1f} s", flush=True)
    results = report(pairs, everything, args)
    print(f"\n{len(pairs)} pairs, {time.perf_counter() - begun:.0f} s in all")
    if args.json:
        args.json.write_text(
            json.dumps(
                {"seeds": args.seeds, "programs": args.programs, "data": described, "auc": results},
                indent=1,
            )
        )
    if args.scores:
        rows = [
            {"seed": seed, "language": language, "kind": kind, "a": str(a), "b": str(b)}
            | {name: scores[a, b] for name, scores in everything.items()}
            for seed, language, kind, a, b in pairs
        ]
        args.scores.write_text(json.dumps(rows))


if __name__ == "__main__":
    main()
