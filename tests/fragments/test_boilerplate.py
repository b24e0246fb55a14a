"""Boilerplate: licence headers and import blocks recognised by their stated rules and
ignored by default (kept on request), the text of boilerplate files ignored wherever it
is, and the report's account of it."""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from samecode.corpus.fragments import match_fragments
from samecode.corpus.store import Corpus
from samecode.engine import RunOptions, engine_for
from samecode.errors import SamecodeValueError
from samecode.fragments import FragmentOptions, FragmentResult, compare_fragments, scan_fragments
from samecode.fragments.boilerplate import (
    _STATEMENTS,
    LICENCE_WORDS,
    BoilerplateFiles,
    _statement_end,
    import_blocks,
    kgram_masks,
    licence_header,
    message_id_copies,
    message_ids,
)
from samecode.fragments.ignored import Ignored, IgnoredRanges, masked_ranges
from samecode.fragments.kgrams import Kgrams
from samecode.fragments.tokens import TokenSpans
from samecode.reports.fragments import to_jsonl, to_text
from samecode.sources.walk import WalkOptions
from samecode.text.languages import language_of

WALK = WalkOptions(gitignore=False)

MIT = [
    "# Copyright (c) 2021 Example Corporation",
    "#",
    "# Permission is hereby granted, free of charge, to any person obtaining a copy",
    "# of this software and associated documentation files (the Software), to deal",
    "# in the Software without restriction, including without limitation the rights",
    "# to use, copy, modify, merge, publish, distribute, sublicense, and/or sell",
    "# copies of the Software, subject to the following conditions written here.",
]
IMPORTS = [
    "import os",
    "import sys",
    "from collections import OrderedDict, defaultdict, namedtuple, Counter, deque",
    "from typing import (",
    "    Any, Callable, Iterable, Iterator, Mapping, Sequence, TypeVar, Union,",
    ")",
    "import itertools, functools, operator, contextlib, dataclasses, json",
]


def own_lines(rng: random.Random, tag: str, count: int = 12) -> list[str]:
    return [f"{tag}_{rng.getrandbits(40):x} = {tag}_compute_{n}({n})" for n in range(count)]


@pytest.mark.parametrize(
    ("lines", "path", "expected"),
    [
        ([*MIT, "", "x = 1"], "a.py", (1, 7)),
        (["#!/usr/bin/env python", "# SPDX-License-Identifier: MIT", "x = 1"], "a.py", (2, 2)),
        (["", "", "# Copyright 2020 A", "", "# All rights reserved.", "x = 1"], "a.py", (3, 5)),
        (['"""Licensed under the Apache License', "Version 2.0", '"""', "x = 1"], "a.py", (1, 3)),
        (["/*", " * Copyright 2019 B", " */", "#include <a.h>"], "a.c", (1, 3)),
        (["// licence: BSD", "// more", "package a;"], "A.java", (1, 2)),
        (["-- copyright C", "select 1;"], "q.sql", (1, 1)),
        (["<!-- Licensed under MIT -->", "<p>hi</p>"], "a.html", (1, 1)),
        (["# a comment", "# about nothing", "x = 1"], "a.py", None),
        (["x = 1", "# Copyright later in the file"], "a.py", None),
        (["// Copyright", "int x;"], "a.py", None),  # // is no comment in Python
    ],
)
def test_a_licence_header_is_the_leading_comment_block_with_licence_words(lines, path, expected):
    assert licence_header(lines, path) == expected


HASH_LINES = ["", "  ", "#!/usr/bin/env python", "# Copyright 2024", "# a note", "x = 1  # licence"]


def _hash_header_by_definition(lines: list[str]) -> tuple[int, int] | None:
    """A licence header of ``#`` comments, as the rule states it: after blank lines and
    a first ``#!`` line, the comment lines that follow each other (blank lines between
    them included), when they hold a licence word."""
    first = next(
        (n for n, line in enumerate(lines) if line.strip() and not (n == 0 and line[:2] == "#!")),
        len(lines),
    )
    block = itertools.takewhile(lambda line: line.strip()[:1] in ("", "#"), lines[first:])
    comments = [first + n for n, line in enumerate(block) if line.strip()]
    if not comments or not LICENCE_WORDS.search("\n".join(lines[first : comments[-1] + 1])):
        return None
    return first + 1, comments[-1] + 1


@given(st.lists(st.sampled_from(HASH_LINES), max_size=8))
def test_a_header_of_line_comments_is_the_one_the_rule_states(lines):
    assert licence_header(lines, "a.py") == _hash_header_by_definition(lines)


@pytest.mark.parametrize(
    ("lines", "path", "expected"),
    [
        ([*IMPORTS, "", "x = 1", "    import re", "y = 2"], "a.py", [(1, 7), (10, 10)]),
        (["from a import \\", "    b", "x = 1"], "a.py", [(1, 2)]),
        (["#include <stdio.h>", "# include \"x.h\"", "int x;"], "a.c", [(1, 2)]),
        (["package a.b;", "", "import java.util.List;", "import static a.B.c;"], "A.java",
         [(1, 1), (3, 4)]),
        (["package main", "import (", '    "fmt"', '    "os"', ")", "func f() {}"], "m.go",
         [(1, 5)]),
        (["import x from 'x';", "import { a,", "  b } from './b';", "const c = require('c');",
          "let d = 1;"], "a.ts", [(1, 4)]),
        (["use std::io;", "use std::{", "    fs,", "};", "mod util;", "fn main() {}"], "m.rs",
         [(1, 5)]),
        (["using System;", "using Foo = Bar.Baz;", "class A {}"], "a.cs", [(1, 2)]),
        (["import os"], "a.txt", []),  # no language, no imports
        (["important = 1", "imports = 2", "from_x = 3"], "a.py", []),
    ],
)  # fmt: skip
def test_an_import_block_is_a_maximal_run_of_import_statements(lines, path, expected):
    assert import_blocks(lines, path) == expected


def _import_blocks_line_by_line(lines: list[str], path: str) -> list[tuple[int, int]]:
    """import_blocks as its rule reads: each line asked in turn."""
    language = language_of(path).name
    statement = _STATEMENTS.get(language)
    if statement is None:
        return []
    blocks: list[tuple[int, int]] = []
    i = 0
    while i < len(lines):
        if not statement.match(lines[i]):
            i += 1
            continue
        end = _statement_end(lines, i, language)
        if blocks and blocks[-1][1] == i:
            blocks[-1] = (blocks[-1][0], end + 1)
        else:
            blocks.append((i + 1, end + 1))
        i = end + 1
    return blocks


# statements of every language, pieces of them, and what may come between them in a line
STATEMENT_LINES = [
    "import os", "from a.b import (c,", "from x import y \\", "from os", "import", ")",
    "#include <stdio.h>", '# include "x.h"', "#import <a>", "package a.b;",
    "import java.util.List;", "import static a.B.c;", "package main", "import (",
    'import "fmt"', 'import f "fmt"', "import x from 'x';", "import { a,", "  b } from './b';",
    "const c = require('c');", "export * from 'y';", "import 'z';", "let d = 1;",
    "var {a, b} = require('ab')", "use std::io;", "use std::{", "};", "mod util;",
    "pub(crate) use a::b;", "extern crate foo;", "pub mod m;", "using System;",
    "using Foo = Bar.Baz;", "global using static System.Math;", "use A\\B;", "namespace App;",
    "require_once 'x.php';", "include 'y.php';",
]  # fmt: skip
PIECES = ["import", "from", "#", "include", "package", "use", "mod", "using", "require",
          "const", "export", "pub", "extern", "crate", "static", "os", "a.b", "{", "}", "(",
          ")", "*", "'x'", '"x"', "`x`", ";", "=", ",", "\\", "x"]  # fmt: skip
GAPS = ["", " ", "  ", "\t", "\r", "\x0c", "\u2028", "\u00a0"]
STATEMENT = st.tuples(st.sampled_from(GAPS), st.sampled_from(STATEMENT_LINES)).map("".join)
LINE = st.one_of(
    STATEMENT,
    STATEMENT,
    st.lists(st.tuples(st.sampled_from(GAPS), st.sampled_from(PIECES)), max_size=6).map(
        lambda parts: "".join(gap + piece for gap, piece in parts)
    ),
)


@pytest.mark.parametrize(
    "path", ["a.py", "a.c", "a.cpp", "A.java", "m.go", "a.js", "m.rs", "a.cs", "a.php"]
)
@settings(max_examples=200)
@given(st.lists(LINE, max_size=12))
@example(["from os", "import x"])  # "from os\nimport" is no statement, "import x" is
@example(["const a =", "require('x')"])
def test_import_blocks_found_over_the_text_are_those_of_each_line_asked(path, lines):
    # the lines where a statement may start are found over the whole text at once
    assert import_blocks(lines, path) == _import_blocks_line_by_line(lines, path)


def pair(tmp_path: Path) -> tuple[Path, Path]:
    rng = random.Random(7)
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("\n".join([*MIT, "", *IMPORTS, "", *own_lines(rng, "a")]) + "\n")
    b.write_text("\n".join([*MIT, "", *IMPORTS, "", *own_lines(rng, "b")]) + "\n")
    return a, b


def test_a_pair_sharing_only_a_licence_and_imports_has_no_region_by_default(tmp_path):
    a, b = pair(tmp_path)
    found = compare_fragments(a, b)
    assert found.regions == []
    reasons = [(i.path == str(a), i.reason, i.start, i.end) for i in found.ignored]
    assert reasons == [
        (True, "licence header", 1, 7),
        (True, "import block", 9, 15),
        (False, "licence header", 1, 7),
        (False, "import block", 9, 15),
    ]
    # the tokens counted are those of the lines (words: comments are tokens too)
    rules = FragmentOptions().shingling
    spans = TokenSpans.of(a.read_text(), rules, str(a))
    assert [i.tokens for i in found.ignored[:2]] == [
        spans.tokens_on(1, 7)[1] - spans.tokens_on(1, 7)[0],
        spans.tokens_on(9, 15)[1] - spans.tokens_on(9, 15)[0],
    ]


def test_the_keep_options_match_them_again(tmp_path):
    a, b = pair(tmp_path)
    both = compare_fragments(a, b, FragmentOptions(keep_licenses=True, keep_imports=True))
    assert [(r.a_start, r.a_end, r.b_start, r.b_end) for r in both.regions] == [(1, 15, 1, 15)]
    assert both.ignored == ()
    # what is kept seeds a match, which grows on through the masked text both hold alike
    licences = compare_fragments(a, b, FragmentOptions(keep_licenses=True))
    assert [(r.a_start, r.a_end) for r in licences.regions] == [(1, 15)]
    assert {i.reason for i in licences.ignored} == {"import block"}
    imports = compare_fragments(a, b, FragmentOptions(keep_imports=True))
    assert [(r.a_start, r.a_end) for r in imports.regions] == [(1, 15)]
    assert {i.reason for i in imports.ignored} == {"licence header"}


def test_a_copy_next_to_a_licence_header_takes_it_in(tmp_path):
    rng = random.Random(2)
    shared = own_lines(rng, "shared", 10)
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("\n".join(MIT + shared + own_lines(rng, "a")) + "\n")
    b.write_text("\n".join(MIT + shared + own_lines(rng, "b")) + "\n")
    (region,) = compare_fragments(a, b).regions
    assert (region.a_start, region.a_end, region.b_start, region.b_end) == (1, 17, 1, 17)
    # another licence header above the same copy: the region starts at the copy
    b.write_text("\n".join(["# Copyright 1999 Someone Else", *shared, *own_lines(rng, "b")]))
    (region,) = compare_fragments(a, b).regions
    assert (region.a_start, region.a_end, region.b_start, region.b_end) == (8, 17, 2, 11)


def test_a_copied_block_keeps_its_inner_imports(tmp_path):
    rng = random.Random(3)
    top, bottom = own_lines(rng, "top", 8), own_lines(rng, "bottom", 8)
    block = [*top, "import os", "from sys import argv", *bottom]
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("\n".join(own_lines(rng, "a", 5) + block + own_lines(rng, "a2", 5)) + "\n")
    b.write_text("\n".join(own_lines(rng, "b", 3) + block) + "\n")
    found = compare_fragments(a, b)
    assert [(r.a_start, r.a_end, r.b_start, r.b_end) for r in found.regions] == [(6, 23, 4, 21)]
    assert [(i.path == str(a), i.start, i.end) for i in found.ignored] == [
        (True, 14, 15),
        (False, 12, 13),
    ]


def test_an_identical_file_with_a_header_and_imports_is_one_region(tmp_path):
    rng = random.Random(4)
    text = "\n".join([*MIT, "", *IMPORTS, "", *own_lines(rng, "own", 12)]) + "\n"
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text(text)
    b.write_text(text)
    found = compare_fragments(a, b)
    last = text.count("\n")
    assert [(r.a_start, r.a_end, r.b_start, r.b_end) for r in found.regions] == [(1, last, 1, last)]
    assert found.regions[0].a_share == found.regions[0].b_share == 1.0


def test_a_boilerplate_file_copied_into_two_files_yields_no_region(tmp_path):
    rng = random.Random(5)
    template = own_lines(rng, "template", 10)
    (tmp_path / "template.txt").write_text("\n".join(template) + "\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text("\n".join(own_lines(rng, "a", 3) + template + own_lines(rng, "a2")))
    (tree / "b.py").write_text("\n".join(template + own_lines(rng, "b")))
    options = FragmentOptions()
    files = BoilerplateFiles.read([tmp_path / "template.txt"], options)
    plain = scan_fragments([str(tree)], options, WALK)
    assert len(plain.regions) == 1  # without it, the copies match
    result = scan_fragments([str(tree)], options, WALK, boilerplate=files)
    assert result.regions == []
    ignored = sorted((Path(i.path).name, i.reason, i.start, i.end) for i in result.ignored)
    assert ignored == [("a.py", "boilerplate file", 4, 13), ("b.py", "boilerplate file", 1, 10)]
    counts = result.summary()["ignored"]
    tokens = sum(i.tokens for i in result.ignored)
    assert counts["boilerplate file"] == {"ranges": 2, "files": 2, "lines": 20, "tokens": tokens}
    assert counts["licence header"]["ranges"] == counts["import block"]["ranges"] == 0
    lines = to_jsonl(result, {}).splitlines()
    assert sum('"type": "ignored"' in line for line in lines) == 2
    assert "Ignored: 2 boilerplate-file ranges (20 lines" in to_text(result)


def test_boilerplate_files_read_with_another_k_are_refused(tmp_path):
    (tmp_path / "t.txt").write_text("a b c d e f g h i j k l m n o p")
    options = FragmentOptions()
    files = BoilerplateFiles.read([tmp_path / "t.txt"], FragmentOptions(k=3))
    with pytest.raises(SamecodeValueError, match="k=3"):
        compare_fragments(tmp_path / "t.txt", tmp_path / "t.txt", options, boilerplate=files)
    with pytest.raises(TypeError, match="list of paths"):
        BoilerplateFiles.read(str(tmp_path / "t.txt"), options)


@pytest.mark.parametrize("command", ["scan", "match"])
def test_boilerplate_files_go_to_each_worker_once_not_with_every_batch(
    tmp_path, monkeypatch, command
):
    # their hashes are megabytes for a large file: sent with each batch, a scan on two
    # workers took eight times as long as on one
    rng = random.Random(7)
    template = own_lines(rng, "template", 10)
    (tmp_path / "template.txt").write_text("\n".join(template) + "\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    shared = own_lines(rng, "shared", 10)
    for n in range(12):
        lines = own_lines(rng, f"f{n}", 3) + template + own_lines(rng, f"g{n}", 3)
        (tree / f"f{n:02d}.py").write_text("\n".join(lines + (shared if n % 3 == 0 else [])))
    options = FragmentOptions()
    files = BoilerplateFiles.read([tmp_path / "template.txt"], options)
    walk = WalkOptions(gitignore=False)

    def run(jobs: int) -> FragmentResult:
        tasks = RunOptions(jobs=jobs, batch_size=1)  # 12 batches
        if command == "scan":
            return scan_fragments([str(tree)], options, walk, boilerplate=files, run=tasks)
        with Corpus.open(db, readonly=True) as corpus, engine_for(jobs) as engine:
            return match_fragments(
                corpus, [str(tree)], walk=walk, run=tasks, boilerplate=files, engine=engine
            )

    db = tmp_path / "c.db"
    if command == "match":
        with Corpus.create(db, fragments=options) as corpus:
            corpus.sync([str(tree)], walk)
    pickled = []
    original = BoilerplateFiles.__reduce_ex__

    def counted(self: BoilerplateFiles, protocol: int) -> object:
        pickled.append(self)
        return original(self, protocol)

    monkeypatch.setattr(BoilerplateFiles, "__reduce_ex__", counted, raising=False)
    spread = run(2)
    assert len(pickled) <= 2  # at most once per worker (none where they are forked)
    one = run(1)
    assert spread.summary() == one.summary()
    assert spread.regions == one.regions != []
    assert {i.reason for i in spread.ignored} == {"boilerplate file"}


def test_identical_files_are_one_whole_region_whatever_their_size(tmp_path):
    # a file of imports alone (all masked: no fingerprint) and a file of five tokens, each
    # copied: every copy is one region with the other, all of both; a different file
    # of the same imports is no region
    tree = tmp_path / "tree"
    tree.mkdir()
    imports = "\n".join(IMPORTS) + "\n"
    for name in ("a", "b"):
        (tree / f"{name}_init.py").write_text(imports)
        (tree / f"{name}_version.py").write_text("__version__ = '3.7'\n")
    (tree / "c_init.py").write_text(imports + "x = 1\n")
    walk = WalkOptions(gitignore=False, min_tokens=1)
    found = scan_fragments([str(tree)], FragmentOptions(), walk)
    whole = [(Path(r.a).name, Path(r.b).name, r.a_start, r.a_end, r.a_share, r.b_share)
             for r in found.regions]  # fmt: skip
    assert whole == [
        ("a_init.py", "b_init.py", 1, len(IMPORTS), 1.0, 1.0),
        ("a_version.py", "b_version.py", 1, 1, 1.0, 1.0),
    ]
    assert [len(c.occurrences) for c in found.classes] == [2, 2]
    compared = compare_fragments(tree / "a_version.py", tree / "b_version.py")
    tokens = len(TokenSpans.of("__version__ = '3.7'\n", FragmentOptions().shingling))
    assert [(r.a_start, r.a_end, r.tokens) for r in compared.regions] == [(1, 1, tokens)]


def test_a_query_identical_to_a_stored_file_is_one_whole_region(tmp_path):
    known, new = tmp_path / "known", tmp_path / "new"
    known.mkdir()
    new.mkdir()
    imports = "\n".join(IMPORTS) + "\n"
    for folder in (known, new):
        (folder / "init.py").write_text(imports)
        (folder / "version.py").write_text("__version__ = '3.7'\n")
    walk = WalkOptions(gitignore=False, min_tokens=1)
    with Corpus.create(tmp_path / "c.db", fragments=FragmentOptions()) as corpus:
        corpus.sync([str(known)], walk)
        found = match_fragments(corpus, [str(new)], walk=walk)
    assert [(Path(r.a).name, Path(r.b).parent.name, r.a_start, r.a_end, r.a_share)
            for r in found.regions] == [
        ("init.py", "known", 1, len(IMPORTS), 1.0),
        ("version.py", "known", 1, 1, 1.0),
    ]  # fmt: skip


def catalogue(language: str, translations: dict[str, str]) -> str:
    """A gettext catalogue of ``translations`` (message id: translation), with the
    comments the tools write beside each message and a header."""
    head = [
        f"# {language} translation of the example program.",
        "# Copyright (C) 2024 THE PACKAGE'S COPYRIGHT HOLDER",
        "#, fuzzy",
        'msgid ""',
        'msgstr ""',
        f'"Language: {language}\\n"',
        '"Content-Type: text/plain; charset=UTF-8\\n"',
        "",
    ]
    body = []
    for number, (message, translation) in enumerate(translations.items()):
        body += [
            f"#: views/page_{number}.py:{10 + number}",
            "#, python-format",
            f'msgid "{message}"',
            f'msgstr "{translation}"',
            "",
        ]
    return "\n".join(head + body)


MESSAGES = [
    f"Enter a valid value for field number {n} of the form before saving it again"
    for n in range(30)
]


@pytest.mark.parametrize(
    ("lines", "path", "expected"),
    [
        (['msgid "a"', 'msgstr "b"'], "de.po", [(1, 1)]),
        (
            ['msgctxt "menu"', 'msgid "Open"', 'msgid_plural "Opens"', 'msgstr[0] "x"'],
            "fr.po",
            [(1, 3)],
        ),
        (
            ['msgid ""', '"long "', '"text"', 'msgstr ""', '"still the translation"'],
            "x.pot",
            [(1, 3)],
        ),
        (
            [
                "# translator's note",
                "#. extracted",
                "#: a.py:1",
                '#| msgid "old"',
                'msgid "a"',
                'msgstr "b"',
            ],
            "es.PO",
            [(2, 5)],
        ),
        (['msgid "a"', 'msgstr "b"'], "notes.txt", []),
        # the header entry: the empty first id's translation, continued
        (
            ['msgid ""', 'msgstr ""', '"Language: de\\n"', "", 'msgid "a"', 'msgstr ""', '"b"'],
            "de.po",
            [(1, 3), (5, 5)],
        ),
        (['msgid "a"', 'msgstr "b"', 'msgid ""', 'msgstr ""', '"c"'], "de.po", [(1, 1), (3, 3)]),
        # a first entry with a context is no header: its translation is its own
        (['msgctxt "c"', 'msgid ""', 'msgstr "Leer"'], "de.po", [(1, 2)]),
    ],
)
def test_message_ids_are_the_id_statements_and_the_tools_comments(lines, path, expected):
    assert message_ids(lines, path) == expected


def _message_ids_line_by_line(lines: list[str]) -> list[tuple[int, int]]:
    """The rule of a catalogue's message ids, a line at a time: a line of an id
    statement or a tools' comment; after one, a string alone; and the header entry's
    translation (the first id, empty and not continued, without a context), continued.
    Then the runs of the lines it holds."""
    held: list[bool] = []
    state, first, empty = "outside", True, False
    for line in lines:
        if re.match(r"\s*(?:msgctxt|msgid|msgid_plural)\b|#[.:,|]", line):
            if line.lstrip().startswith("msgctxt"):
                first = False
            elif line.lstrip().startswith("msgid"):
                empty, first = first and line.strip() == 'msgid ""', False
            state = "id"
        elif state != "outside" and re.match(r'\s*"', line):
            empty = empty and state == "header"
        elif state == "id" and empty and line.lstrip().startswith("msgstr"):
            state, empty = "header", False
        else:
            state = "outside"
        held.append(state != "outside")
    runs = [
        list(run)
        for kept, run in itertools.groupby(range(1, len(lines) + 1), key=lambda n: held[n - 1])
        if kept
    ]
    return [(run[0], run[-1]) for run in runs]


CATALOGUE_LINES = [
    'msgid ""', 'msgid "a"', 'msgid_plural "as"', 'msgctxt "menu"', 'msgstr ""',
    'msgstr "b"', 'msgstr[0] "x"', '"continued"', '""', "#: a.py:1", "#. extracted",
    "#, fuzzy", '#| msgid "old"', "# translator", "#~ obsolete", "", "msgidx", "msgid_",
    'msgid""', "\"", "msgstr",
]  # fmt: skip
CATALOGUE_LINE = st.tuples(
    st.sampled_from(GAPS), st.sampled_from(CATALOGUE_LINES), st.sampled_from(["", "\r", " "])
).map("".join)


@settings(max_examples=200)
@given(st.lists(CATALOGUE_LINE, max_size=14), st.sampled_from(["de.po", "x.pot", "A.PO"]))
@example(['msgid ""', "", "#: a.py", 'msgstr ""', '"x"'], "de.po")  # the header's, late
@example(['msgid "a"', "x", 'msgid "b"', '"c"', "#: d", 'msgstr "e"'], "de.po")
def test_message_ids_found_over_the_text_are_those_of_each_line_asked(lines, path):
    # past the first entry the runs are found over the whole text at once
    assert message_ids(lines, path) == _message_ids_line_by_line(lines)


def test_catalogues_of_one_program_share_no_region_by_their_message_ids(tmp_path):
    de, fr = tmp_path / "de.po", tmp_path / "fr.po"
    de.write_text(catalogue("de", {m: f"Bitte {n} eingeben" for n, m in enumerate(MESSAGES)}))
    fr.write_text(catalogue("fr", {m: f"Entrez {n} svp" for n, m in enumerate(MESSAGES)}))
    found = compare_fragments(de, fr)
    assert found.regions == []
    assert isinstance(found.ignored, IgnoredRanges)  # held compactly: a range a message
    assert {i.reason for i in found.ignored} == {"licence header", "message ids"}
    # the licence header's lines (its "#, fuzzy" too) are its reason's alone: none twice
    lines = [line for i in found.ignored if i.path == str(de) for line in
             range(i.start, i.end + 1)]  # fmt: skip
    assert len(lines) == len(set(lines))
    kept = compare_fragments(de, fr, FragmentOptions(keep_msgids=True))
    assert kept.regions
    assert all(i.reason != "message ids" for i in kept.ignored)


def test_a_copied_translation_is_still_found(tmp_path):
    # each message its own translation: one repeated in every message would seed nothing
    # (its k-grams repetitive), but where it runs into what it copies from its id
    ours = {m: " ".join(f"wort{n}_{i}" for i in range(40)) for n, m in enumerate(MESSAGES)}
    (tmp_path / "de.po").write_text(catalogue("de", ours))
    (tmp_path / "de_AT.po").write_text(catalogue("de_AT", ours))
    found = compare_fragments(tmp_path / "de.po", tmp_path / "de_AT.po")
    # the translations seed it, and it grows through the message ids both hold alike
    assert [(r.a_end - r.a_start) > 100 for r in found.regions] == [True]


def _copies_one_at_a_time(ids: list[int], runs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The rule of :func:`message_id_copies`, a token at a time: a token after a run of
    ids (and before the next) is a copy when that run holds its id; then the runs."""
    copied = [False] * len(ids)
    for number, (first, stop) in enumerate(runs):
        end = runs[number + 1][0] if number + 1 < len(runs) else len(ids)
        for at in range(stop, end):
            copied[at] = ids[at] in ids[first:stop]
    found: list[tuple[int, int]] = []
    for at, copy in enumerate(copied):
        if copy and found and found[-1][1] == at:
            found[-1] = (found[-1][0], at + 1)
        elif copy:
            found.append((at, at + 1))
    return found


@settings(max_examples=300)
@given(
    st.lists(st.integers(0, 6), max_size=40),
    st.lists(st.integers(0, 40), max_size=12),
    st.sampled_from(["licence header", "import block"]),
)
def test_copies_of_message_ids_are_those_found_a_token_at_a_time(ids, cuts, other):
    cuts = sorted(cut for cut in cuts if cut <= len(ids))
    runs = [(low, high) for low, high in zip(cuts[::2], cuts[1::2]) if low < high]
    ignored = [Ignored("de.po", "message ids", 1, 1, high - low, low, high) for low, high in runs]
    # ranges of another reason mark out no entry
    ignored.append(Ignored("de.po", other, 1, 1, 1, 0, min(1, len(ids))))
    assert message_id_copies(ids, ignored) == _copies_one_at_a_time(ids, runs)


def _markup(n: int) -> str:
    """A message's markup and placeholders: 41 tokens."""
    return (
        f'<a href=\\"https://docs.example.com/en/%(version)s/ref/settings/{n}/#debug\\" '
        'class=\\"reference internal external\\" target=\\"_blank\\" '
        'rel=\\"noopener noreferrer\\" title=\\"%(title)s\\" '
        f'data-page=\\"{n}\\" data-kind=\\"settings\\" id=\\"ref-{n}\\" '
        'aria-label=\\"%(label)s settings page\\">'
    )


@settings(max_examples=300)
@given(
    st.lists(st.integers(0, 5), max_size=60),
    st.lists(st.integers(0, 60), max_size=14),
    st.integers(1, 6),
    st.integers(1, 4),
)
def test_kgram_masks_give_the_kgrams_of_the_masked_tokens_and_copies(ids, cuts, k, window):
    cuts = sorted(cut for cut in cuts if cut <= len(ids))
    runs = [(low, high) for low, high in zip(cuts[::2], cuts[1::2]) if low < high]
    reasons = itertools.cycle(["message ids", "message ids", "licence header"])
    ignored = [Ignored("de.po", reason, 1, 1, high - low, low, high)
               for reason, (low, high) in zip(reasons, runs)]  # fmt: skip
    every = sorted(masked_ranges(ignored) + message_id_copies(ids, ignored))
    joined = kgram_masks("de.po", ids, ignored, k, True)
    assert all(high - low >= k for (_, low), (high, _) in itertools.pairwise(joined))
    expected, found = Kgrams.of(ids, k, window, every), Kgrams.of(ids, k, window, joined)
    assert (found.hashes, found.selected) == (expected.hashes, expected.selected)


def _catalogue_of_markup(language: str, word: str) -> str:
    """A catalogue whose every translation keeps its message's markup and placeholders,
    in its own words around them."""
    entries = [f"# {language} translation"]
    for n in range(20):
        sentence = " ".join(f"{word}_{n}_{i}" for i in range(16))
        entries.append(
            f'#, python-format\nmsgid "See {_markup(n)}the page number {n}</a> for more"\n'
            f'msgstr "{word} {n} {_markup(n)}{word}{n}</a> {sentence}"\n'
        )
    return "\n".join(entries)


def test_what_translations_copy_from_their_ids_seeds_no_match(tmp_path):
    de, fr = tmp_path / "de.po", tmp_path / "fr.po"
    de.write_text(_catalogue_of_markup("de", "Siehe"))
    fr.write_text(_catalogue_of_markup("fr", "Voir"))
    found = compare_fragments(de, fr)
    assert found.regions == []
    # not reported as ignored: only the ids are
    assert {i.reason for i in found.ignored} == {"message ids"}
    copies = compare_fragments(de, fr, FragmentOptions(keep_msgid_copies=True))
    # each message's two translations share its markup, then grow through its id
    assert len(copies.regions) == 20
    assert compare_fragments(de, fr, FragmentOptions(keep_msgids=True)).regions
    # a page holding the messages is no catalogue: its tokens seed, but they are looked
    # up in vain among the catalogue's ids and their copies
    page = tmp_path / "page.html"
    page.write_text("\n".join(f"<p>See {_markup(n)}the page number {n}</a></p>" for n in
                              range(20)))  # fmt: skip
    assert compare_fragments(de, page).regions == []
    kept = compare_fragments(de, page, FragmentOptions(keep_msgid_copies=True))
    assert len(kept.regions) == 20  # each message's markup in its translation


def test_a_translation_copied_between_catalogues_is_found_without_the_ids_copies(tmp_path):
    # the translations seed the region, and it grows through the copies both hold alike
    de, de_at = tmp_path / "de.po", tmp_path / "de_AT.po"
    de.write_text(_catalogue_of_markup("de", "Siehe"))
    de_at.write_text(_catalogue_of_markup("de_AT", "Siehe"))
    found = compare_fragments(de, de_at)
    # all but the first line, the translator's, which names the language: the 20
    # messages' 79 lines
    assert [(r.a_start, r.a_end) for r in found.regions] == [(2, 80)]


@pytest.mark.parametrize(
    ("find", "path"), [(import_blocks, "a.py"), (message_ids, "de.po"), (message_ids, "x.pot")]
)
def test_lines_holding_a_newline_are_refused(find, path):
    # the lines are found over their text joined: a newline within one would shift the rest
    lines = ['msgid "a"', 'msgstr "b"', "", 'msgid "c"\nimport os', 'msgstr "d"']
    with pytest.raises(SamecodeValueError, match=r"must not hold a newline.*line 4 does"):
        find(lines, path)
    assert find([], path) == []
