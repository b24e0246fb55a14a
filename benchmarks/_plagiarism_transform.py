"""Programs for :mod:`bench_plagiarism`, and their disguises at six levels.

A *program* is a run of one to three consecutive functions (Python, C) or methods (Java,
written inside ``public class Program { ... }``) of one source file, of 50 to 300 code
tokens, as a student's assignment is. Its disguises are made automatically, level by level,
after Faidhi and Robinson's six levels of plagiarism; the design is cumulative: level ``L``
applies the transformations of levels 1 to ``L``.

1. comments and layout: comments removed and others added, blank lines, indentation and
   (C, Java) brace placement and spacing around operators changed;
2. renamed identifiers: parameters, local variables and the program's own functions
   (consistently; a name keeps its new name at every level);
3. changed declarations and literals: ``x += e`` and ``x = x + e`` swapped, ``i++`` spelt
   ``i += 1``, a declaration split from its initialisation (C, Java) or annotations
   dropped or added (Python), integers written in hexadecimal, strings split in two,
   comparisons turned around (``a < b`` as ``b > a``);
4. reordered methods and statements: the functions in another order, adjacent independent
   statements swapped;
5. inserted and removed statements: about one statement in four added (unused variables,
   prints), about one in ten removed;
6. changed control structures: ``for`` as ``while``, ``while`` as ``for`` (C, Java) or
   ``while True`` with a ``break`` (Python), ``if``/``else`` with the condition negated
   and the branches swapped, a list comprehension as a loop (Python).

Every choice is drawn from a generator seeded by the seed, the program and the
transformation, so that the same program gets the same disguise on every run. Python is
transformed on its syntax tree (:mod:`ast`); C and Java on a tree of statements made from
their tokens (:func:`parse_c_family`), which is enough for these edits.
"""

from __future__ import annotations

import ast
import copy
import hashlib
import io
import random
import re
import textwrap
import tokenize
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import ClassVar

__all__ = [
    "LEVELS",
    "Program",
    "c_family_programs",
    "code_tokens",
    "disguise",
    "python_programs",
]

LEVELS = {
    1: "comments and layout",
    2: "renamed identifiers",
    3: "declarations and literals",
    4: "reordered methods and statements",
    5: "inserted and removed statements",
    6: "control structures",
}
MIN_TOKENS, MAX_TOKENS, MAX_FUNCTIONS = 50, 300, 3
WORDS = [
    "value",
    "item",
    "count",
    "total",
    "result",
    "temp",
    "data",
    "node",
    "index",
    "buf",
    "current",
    "left",
    "right",
    "size",
    "entry",
    "key",
    "flag",
    "pos",
    "acc",
    "tmp",
    "elem",
    "part",
    "chunk",
    "state",
    "limit",
    "width",
    "step",
    "head",
    "tail",
    "cursor",
    "source",
    "target",
    "number",
    "amount",
    "length",
    "offset",
    "mark",
    "token",
    "label",
    "slot",
    "cell",
    "field",
    "record",
]
COMMENTS = (
    "check the input first",
    "loop over every element",
    "compute the result",
    "TODO: simplify this",
    "helper variable",
    "update the counter",
    "handle the edge case",
    "return the answer",
    "main part of the algorithm",
    "see the assignment text",
)


@dataclass(frozen=True)
class Program:
    """One program: ``language`` (``python``, ``java``, ``c``), where it comes from
    (``origin``: package and file), the names of its functions, its text as written, and
    its code tokens."""

    language: str
    origin: str
    names: tuple[str, ...]
    text: str
    tokens: int

    @property
    def key(self) -> str:
        return f"{self.origin}:{'+'.join(self.names)}"


def rng_for(seed: int, *parts: object) -> random.Random:
    """A generator seeded by ``seed`` and ``parts`` (stable across runs and machines)."""
    digest = hashlib.blake2b(repr((seed, *parts)).encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


def fresh_name(seed: int, program: str, old: str, taken: set[str]) -> str:
    """The new name of ``old`` in ``program``: the same at every level."""
    rng = rng_for(seed, program, "name", old)
    name = rng.choice(WORDS)
    while name in taken:
        name = f"{rng.choice(WORDS)}{rng.randrange(2, 99)}"
    taken.add(name)
    return name


# ---------------------------------------------------------------- C and Java: tokens


@dataclass(frozen=True)
class Tok:
    kind: str  # name, num, str, op, comment, pre
    text: str
    start: int = 0
    end: int = 0


_C_FAMILY = re.compile(
    r"""
     (?P<ws>\s+)
    |(?P<comment>//[^\n]*|/\*.*?\*/)
    |(?P<pre>^[ \t]*\#[^\n]*(?:\\\n[^\n]*)*)
    |(?P<str>"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')
    |(?P<num>0[xX][0-9a-fA-F_]+[lLuU]*|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?[fFdDlLuU]*)
    |(?P<name>[A-Za-z_$][\w$]*)
    |(?P<op>>>>=|<<=|>>=|>>>|\.\.\.|->|::|\+\+|--|&&|\|\||==|!=|<=|>=|\+=|-=|\*=|/=|%=|&=|\|=|\^=
        |<<|>>|[-+*/%=<>!&|^~?:;,.(){}\[\]@\#\\])
    """,
    re.X | re.S | re.M,
)


def _words(text: str) -> set[str]:
    return set(text.split())


C_KEYWORDS = _words(
    "auto break case char const continue default do double else enum extern float for goto "
    "if inline int long register restrict return short signed sizeof static struct switch "
    "typedef union unsigned void volatile while _Bool bool true false NULL"
)
JAVA_KEYWORDS = _words(
    "abstract assert boolean break byte case catch char class const continue default do "
    "double else enum extends final finally float for goto if implements import instanceof "
    "int interface long native new package private protected public return short static "
    "strictfp super switch synchronized this throw throws transient try void volatile while "
    "var true false null record yield sealed permits"
)
TYPE_WORDS = _words(
    "char double float int long short signed unsigned void boolean byte size_t ssize_t "
    "Py_ssize_t uint8_t uint16_t uint32_t uint64_t int8_t int16_t int32_t int64_t"
)


def c_family_tokens(text: str) -> list[Tok]:
    """The tokens of C or Java ``text`` (whitespace left out; comments and preprocessor
    lines kept as such). :raises ValueError: for a character no token starts with."""
    out = []
    position = 0
    while position < len(text):
        found = _C_FAMILY.match(text, position)
        if not found:
            raise ValueError(f"no token at {text[position : position + 20]!r}")
        kind = found.lastgroup or "op"
        if kind != "ws":
            out.append(Tok(kind, found.group(), found.start(), found.end()))
        position = found.end()
    return out


def code_tokens(text: str, language: str) -> int:
    """How many code tokens ``text`` holds (comments and layout left out)."""
    if language == "python":
        kinds = {
            tokenize.COMMENT,
            tokenize.NL,
            tokenize.NEWLINE,
            tokenize.INDENT,
            tokenize.DEDENT,
            tokenize.ENDMARKER,
        }
        readline = io.StringIO(text).readline
        return sum(t.type not in kinds for t in tokenize.generate_tokens(readline))
    return sum(t.kind not in ("comment", "pre") for t in c_family_tokens(text))


# ---------------------------------------------------------------- C and Java: a tree


@dataclass
class Simple:
    toks: list[Tok]


@dataclass
class Block:
    stmts: list[Stmt]
    switch: bool = False


@dataclass
class Compound:
    """A statement with parts: header tokens and sub-statements in order (``if ( c ) S
    else S``, ``for ( ... ) S``, ``try B catch ( ... ) B``...)."""

    parts: list[Tok | Stmt]


Stmt = Simple | Block | Compound


@dataclass
class Function:
    header: list[Tok]
    body: Block

    @property
    def name(self) -> str:
        """The name before the header's last ``(`` at the top (the first may be a macro
        before the function, ``FAKE_INIT(x) int f(void)``)."""
        depth = parens = 0
        found = None
        for i, tok in enumerate(self.header):
            if tok.text == "(" and depth == parens == 0 and i and self.header[i - 1].kind == "name":
                found = self.header[i - 1].text
            depth += tok.text in "<" and tok.kind == "op"
            parens += (tok.text == "(") - (tok.text == ")")
        if found is None:
            raise ValueError("a function header without a name")
        return found


class _Parser:
    def __init__(self, toks: list[Tok]) -> None:
        self.toks = toks
        self.i = 0

    def peek(self, ahead: int = 0) -> Tok | None:
        at = self.i + ahead
        return self.toks[at] if at < len(self.toks) else None

    def take(self, text: str | None = None) -> Tok:
        tok = self.peek()
        if tok is None or (text is not None and tok.text != text):
            raise ValueError(f"expected {text!r}, got {tok and tok.text!r}")
        self.i += 1
        return tok

    def group(self) -> list[Tok]:
        """A balanced ``( ... )``."""
        out = [self.take("(")]
        depth = 1
        while depth:
            tok = self.take()
            depth += (tok.text in "([{") - (tok.text in ")]}")
            out.append(tok)
        return out

    def block(self, switch: bool = False) -> Block:
        self.take("{")
        stmts = []
        while (tok := self.peek()) is not None and tok.text != "}":
            stmts.append(self.statement())
        self.take("}")
        return Block(stmts, switch)

    def statement(self) -> Stmt:
        tok = self.peek()
        if tok is None:
            raise ValueError("unexpected end")
        word = tok.text if tok.kind == "name" else ""
        if tok.text == "{":
            return self.block()
        if word in ("if", "for", "while", "synchronized"):
            parts: list[Tok | Stmt] = [self.take(), *self.group(), self.statement()]
            if word == "if" and (nxt := self.peek()) is not None and nxt.text == "else":
                parts += [self.take(), self.statement()]
            return Compound(parts)
        if word == "switch":
            parts = [self.take(), *self.group()]
            parts.append(self.block(switch=True))
            return Compound(parts)
        if word == "do":
            parts = [self.take(), self.statement(), self.take("while"), *self.group()]
            parts.append(self.take(";"))
            return Compound(parts)
        if word == "try":
            parts = [self.take()]
            if (nxt := self.peek()) is not None and nxt.text == "(":
                parts += self.group()
            parts.append(self.block())
            while (nxt := self.peek()) is not None and nxt.text in ("catch", "finally"):
                parts.append(self.take())
                if nxt.text == "catch":
                    parts += self.group()
                parts.append(self.block())
            return Compound(parts)
        if word in ("case", "default"):
            out = []
            while (nxt := self.take()).text != ":":
                if nxt.text == "->":
                    raise ValueError("arrow case")
                out.append(nxt)
            return Simple([*out, nxt])
        out = []
        depth = 0
        while True:
            nxt = self.take()
            if nxt.kind == "pre":
                raise ValueError("preprocessor line inside a function")
            depth += (nxt.text in "([{") - (nxt.text in ")]}")
            out.append(nxt)
            if nxt.text == ";" and depth == 0:
                return Simple(out)
            if depth < 0:
                raise ValueError("unbalanced")


def parse_function(header: list[Tok], body: list[Tok]) -> Function:
    """A function from its header's and its body's tokens (comments left out).
    :raises ValueError: for a body this parser does not follow."""
    parser = _Parser([t for t in body if t.kind != "comment"])
    block = parser.block()
    if parser.peek() is not None:
        raise ValueError("tokens after the body")
    return Function([t for t in header if t.kind != "comment"], block)


def _functions_in(toks: list[Tok], java: bool) -> Iterator[tuple[int, int, int]]:
    """``(header start, body start, body stop)`` token indices of each function (C: at
    the top level; Java: in a top-level class body) in file order."""
    depth = 0
    member_depth = 1 if java else 0
    start = 0
    i = 0
    while i < len(toks):
        tok = toks[i]
        if tok.kind in ("comment",):
            i += 1
            continue
        if tok.kind == "pre":
            if depth == member_depth:
                start = i + 1
            i += 1
            continue
        if tok.text == "{":
            if depth == member_depth and _is_function_head(toks[start:i], java):
                stop = _matching(toks, i)
                yield start, i, stop
                i = stop
                start = i
                continue
            depth += 1
            if depth == member_depth:
                start = i + 1
        elif tok.text == "}":
            depth -= 1
            if depth <= member_depth:
                start = i + 1
        elif tok.text == ";" and depth == member_depth:
            start = i + 1
        i += 1


def _matching(toks: list[Tok], i: int) -> int:
    depth = 0
    for j in range(i, len(toks)):
        depth += (toks[j].text == "{") - (toks[j].text == "}")
        if depth == 0:
            return j + 1
    raise ValueError("unbalanced braces")


def _is_function_head(head: list[Tok], java: bool) -> bool:
    code = [t for t in head if t.kind != "comment"]
    if len(code) < 3 or any(t.text in ("=", "class", "interface", "enum") for t in code):
        return False
    close = len(code) - 1
    if java and "throws" in [t.text for t in code]:
        close = [t.text for t in code].index("throws") - 1
    if code[close].text != ")":
        return False
    opening = next((j for j, t in enumerate(code) if t.text == "("), None)
    name = code[opening - 1] if opening else None
    keywords = JAVA_KEYWORDS if java else C_KEYWORDS
    return name is not None and name.kind == "name" and name.text not in keywords


def c_family_programs(text: str, origin: str, language: str) -> list[Program]:
    """The programs of one C or Java file: runs of consecutive functions (methods) that
    this parser follows, of ``MIN_TOKENS`` to ``MAX_TOKENS`` code tokens together."""
    java = language == "java"
    try:
        toks = c_family_tokens(text)
    except ValueError:
        return []
    found: list[tuple[Function, int, int]] = []  # function, first char, last char
    for start, body, stop in _functions_in(toks, java):
        head = toks[start:body]
        code_head = [t for t in head if t.kind != "comment"]
        if not code_head or any(t.kind == "pre" for t in toks[start:stop]):
            found.append((None, 0, 0))  # type: ignore[arg-type]  # breaks a run
            continue
        if any(t.text == '"""' or t.text.startswith('"""') for t in toks[body:stop]):
            found.append((None, 0, 0))  # type: ignore[arg-type]
            continue
        try:
            function = parse_function(head, toks[body:stop])
            if java and function.name[0].isupper():
                raise ValueError("a constructor: outside its class, it needs a return type")
        except (ValueError, StopIteration):
            found.append((None, 0, 0))  # type: ignore[arg-type]
            continue
        line_start = text.rfind("\n", 0, code_head[0].start) + 1
        found.append((function, line_start, toks[stop - 1].end))
    programs = []
    i = 0
    while i < len(found):
        run: list[tuple[Function, int, int]] = []
        total = 0
        for function, first, last in found[i : i + MAX_FUNCTIONS]:
            if function is None:
                break
            size = code_tokens(text[first:last], language)
            if total + size > MAX_TOKENS:
                break
            run.append((function, first, last))
            total += size
        if run and total >= MIN_TOKENS:
            # each function from its first line, without the comments between them
            written = "\n\n".join(textwrap.dedent(text[a:b]) for _, a, b in run)
            if java:
                written = wrap_java(written)
            names = tuple(f.name for f, _, _ in run)
            programs.append(Program(language, origin, names, written + "\n", total))
            i += len(run)
        else:
            i += max(1, len(run))
    return programs


def wrap_java(members: str) -> str:
    return "public class Program {\n\n" + textwrap.indent(members.strip("\n"), "    ") + "\n}"


def program_functions(program: Program) -> list[Function]:
    """The functions of a C or Java program, parsed again from its text."""
    toks = c_family_tokens(program.text)
    java = program.language == "java"
    return [parse_function(toks[a:b], toks[b:c]) for a, b, c in _functions_in(toks, java)]


# ---------------------------------------------------------------- C and Java: disguises


def _walk_blocks(stmt: Stmt | Block) -> Iterator[Block]:
    if isinstance(stmt, Block):
        yield stmt
        for inner in stmt.stmts:
            yield from _walk_blocks(inner)
    elif isinstance(stmt, Compound):
        for part in stmt.parts:
            if not isinstance(part, Tok):
                yield from _walk_blocks(part)


def _all_tokens(stmt: Stmt | Block) -> Iterator[Tok]:
    if isinstance(stmt, Simple):
        yield from stmt.toks
    elif isinstance(stmt, Block):
        yield Tok("op", "{")
        for inner in stmt.stmts:
            yield from _all_tokens(inner)
        yield Tok("op", "}")
    else:
        for part in stmt.parts:
            yield from [part] if isinstance(part, Tok) else _all_tokens(part)


def _map_tokens(stmt: Stmt | Block, change: Callable[[list[Tok]], list[Tok]]) -> None:
    """Apply ``change`` to the token lists of every simple statement and header."""
    if isinstance(stmt, Simple):
        stmt.toks = change(stmt.toks)
    elif isinstance(stmt, Block):
        for inner in stmt.stmts:
            _map_tokens(inner, change)
    else:
        new: list[Tok | Stmt] = []
        run: list[Tok] = []
        for part in stmt.parts:
            if isinstance(part, Tok):
                run.append(part)
                continue
            new += change(run) if run else []
            run = []
            _map_tokens(part, change)
            new.append(part)
        new += change(run) if run else []
        stmt.parts = new


def _rename(functions: list[Function], language: str, seed: int, key: str) -> None:
    keywords = JAVA_KEYWORDS if language == "java" else C_KEYWORDS
    own = {f.name for f in functions}
    taken: set[str] = set()
    renames: dict[str, str] = {}

    def renamed(toks: list[Tok]) -> list[Tok]:
        out = []
        for i, tok in enumerate(toks):
            before = toks[i - 1].text if i else ""
            after = toks[i + 1] if i + 1 < len(toks) else None
            call = after is not None and after.text == "("
            pointer = (
                after is not None
                and after.text == "*"
                and i + 2 < len(toks)
                and toks[i + 2].kind == "name"
                and before in ("", "(", ",", "{", ";", "}", "const", "static")
            )
            typeish = (after is not None and after.kind == "name") or pointer
            if (
                tok.kind == "name"
                and tok.text not in keywords
                and tok.text not in TYPE_WORDS
                and not tok.text.endswith("_t")
                and (tok.text[0].islower() or tok.text[0] == "_")
                and not typeish
                and (tok.text in own or (before not in (".", "->", "::") and not call))
                and not (tok.text in own and before in (".", "->") and not call)
            ):
                if tok.text not in renames:
                    renames[tok.text] = fresh_name(seed, key, tok.text, taken)
                tok = Tok(tok.kind, renames[tok.text])
            out.append(tok)
        return out

    taken |= {t.text for f in functions for t in [*f.header, *_all_tokens(f.body)]}
    for function in functions:
        function.header = renamed(function.header)
        _map_tokens(function.body, renamed)


def _assignment(toks: list[Tok]) -> int | None:
    """The index of a simple statement's top-level ``=``, if any."""
    depth = 0
    for i, tok in enumerate(toks):
        depth += (tok.text in "([{") - (tok.text in ")]}")
        if depth == 0 and tok.text == "=":
            return i
    return None


def _declarations_literals(functions: list[Function], language: str, rng: random.Random) -> None:
    java = language == "java"
    keywords = JAVA_KEYWORDS if java else C_KEYWORDS
    ops = {"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}
    swap = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "==": "==", "!=": "!="}
    left_ok = {"(", ";", "&&", "||", ",", "=", "return", "?", ":"}
    right_ok = {")", ";", "&&", "||", "?", ",", ":"}

    def literals(toks: list[Tok]) -> list[Tok]:
        out = list(toks)
        for i, tok in enumerate(out):
            if tok.kind == "num" and re.fullmatch(r"[1-9]\d*", tok.text) and int(tok.text) > 1:
                if rng.random() < 0.7:
                    out[i] = Tok("num", hex(int(tok.text)))
            elif tok.kind == "str" and tok.text[0] == '"' and "\\" not in tok.text:
                body = tok.text[1:-1]
                if len(body) >= 4 and rng.random() < 0.7:
                    cut = rng.randrange(1, len(body))
                    one, two = Tok("str", f'"{body[:cut]}"'), Tok("str", f'"{body[cut:]}"')
                    if java:
                        out[i] = Tok("op", f"({one.text} + {two.text})")
                    else:
                        out[i] = Tok("str", f"{one.text} {two.text}")
        i = 1
        while i + 2 < len(out) - 0:
            a, op, b = out[i - 1], out[i], out[i + 1]
            before = out[i - 2].text if i >= 2 else "("
            after = out[i + 2].text if i + 2 < len(out) else ";"
            if (
                op.text in swap
                and a.kind in ("name", "num")
                and b.kind in ("name", "num")
                and a.text not in keywords
                and b.text not in keywords
                and before in left_ok
                and after in right_ok
                and rng.random() < 0.7
            ):
                out[i - 1], out[i], out[i + 1] = b, Tok("op", swap[op.text]), a
                i += 3
                continue
            i += 1
        return out

    def statement(stmt: Stmt) -> list[Stmt]:
        if not isinstance(stmt, Simple):
            return [stmt]
        toks = stmt.toks
        texts = [t.text for t in toks]
        # x op= e;  <->  x = x op (e);
        if len(toks) >= 4 and toks[0].kind == "name" and texts[1] in ops and rng.random() < 0.8:
            name, op = toks[0], texts[1][:-1]
            value = toks[2:-1]
            paren = [Tok("op", "("), *value, Tok("op", ")")] if len(value) > 1 else value
            return [Simple([name, Tok("op", "="), name, Tok("op", op), *paren, toks[-1]])]
        # i++;  ->  i += 1;  or  i = i + 1;
        if len(toks) == 3 and texts[2] == ";" and {texts[0], texts[1]} & {"++", "--"}:
            name = toks[0] if toks[0].kind == "name" else toks[1]
            sign = "+" if "++" in texts else "-"
            if name.kind == "name":
                if rng.random() < 0.5:
                    return [Simple([name, Tok("op", sign + "="), Tok("num", "1"), toks[2]])]
                return [
                    Simple([name, Tok("op", "="), name, Tok("op", sign), Tok("num", "1"), toks[2]])
                ]
        # T x = e;  ->  T x; x = e;
        at = _assignment(toks)
        if at is not None and at >= 2 and toks[at - 1].kind == "name" and rng.random() < 0.8:
            decl = toks[:at]
            first = decl[0]
            bad = {".", "->", "::", "(", "[", "const", "static", "auto", "var", ","}
            is_type = first.text in TYPE_WORDS or (
                (first.kind == "name" and first.text not in keywords | {"return"})
                or first.text == "final"
            )
            if is_type and not bad & {t.text for t in decl} and texts[at + 1] != "{":
                rest = toks[at:]
                if not any(t.text == "," for t in _top_level(rest)):
                    return [Simple([*decl, Tok("op", ";")]), Simple([toks[at - 1], *rest])]
        return [stmt]

    for function in functions:
        for block in list(_walk_blocks(function.body)):
            new: list[Stmt] = []
            for stmt in block.stmts:
                new += statement(stmt)
            block.stmts = new
        _map_tokens(function.body, literals)


def _top_level(toks: list[Tok]) -> Iterator[Tok]:
    depth = 0
    for tok in toks:
        if depth == 0:
            yield tok
        depth += (tok.text in "([{") - (tok.text in ")]}")


_JUMPS = {"return", "break", "continue", "goto", "case", "default", "throw", "yield"}


def _names(stmt: Stmt) -> tuple[set[str], set[str]]:
    """The names a simple statement writes (roughly) and all it mentions."""
    toks = list(_all_tokens(stmt))
    every = {t.text for t in toks if t.kind == "name"}
    written = set()
    at = _assignment(toks)
    for i, tok in enumerate(toks):
        if tok.text in ("++", "--", "+=", "-=", "*=", "/=", "|=", "&=", "^=", "%=") or (
            at is not None and i == at
        ):
            for near in (toks[i - 1] if i else None, toks[i + 1] if i + 1 < len(toks) else None):
                if near is not None and near.kind == "name":
                    written.add(near.text)
    return written, every


def _independent(one: Stmt, two: Stmt) -> bool:
    if not (isinstance(one, Simple) and isinstance(two, Simple)):
        return False
    if {t.text for t in one.toks + two.toks} & _JUMPS:
        return False
    written_1, names_1 = _names(one)
    written_2, names_2 = _names(two)
    return not (written_1 & names_2 or written_2 & names_1)


def _reorder(functions: list[Function], rng: random.Random) -> list[Function]:
    for function in functions:
        for block in _walk_blocks(function.body):
            if block.switch:
                continue
            i = 0
            while i + 1 < len(block.stmts):
                one, two = block.stmts[i], block.stmts[i + 1]
                if _independent(one, two) and rng.random() < 0.7:
                    block.stmts[i], block.stmts[i + 1] = two, one
                    i += 2
                else:
                    i += 1
    order = list(functions)
    if len(order) > 1:
        while order == functions:
            rng.shuffle(order)
    return order


def _junk(language: str, rng: random.Random) -> Simple:
    name = f"{rng.choice(WORDS)}_{rng.randrange(10, 99)}"
    word = rng.choice(WORDS)
    choices = {
        "java": [
            f"int {name} = {rng.randrange(100)} ;",
            f'System.out.println("{word}") ;',
            f"boolean {name} = false ;",
            f'String {name} = "{word}" ;',
        ],
        "c": [
            f"int {name} = {rng.randrange(100)} ;",
            f'printf("{word}\\n") ;',
            f"long {name} = 0 ;",
            "(void) 0 ;",
        ],
    }[language]
    return Simple(c_family_tokens(rng.choice(choices)))


def _insert_remove(functions: list[Function], language: str, rng: random.Random) -> None:
    blocks = [b for f in functions for b in _walk_blocks(f.body) if not b.switch]
    statements = sum(len(b.stmts) for b in blocks)
    removable = [
        (b, s)
        for b in blocks
        for s in b.stmts
        if isinstance(s, Simple) and not {t.text for t in s.toks} & _JUMPS and len(b.stmts) > 1
    ]
    rng.shuffle(removable)
    for block, stmt in removable[: max(1, statements // 10)]:
        if len(block.stmts) > 1:
            block.stmts.remove(stmt)
    for _ in range(max(2, statements // 4)):
        block = rng.choice(blocks)
        last = block.stmts[-1:]
        jump = bool(last) and bool({t.text for t in _all_tokens(last[0])} & _JUMPS)
        block.stmts.insert(rng.randrange(len(block.stmts) + (not jump)), _junk(language, rng))


def _split_top(toks: list[Tok], text: str) -> list[list[Tok]]:
    parts: list[list[Tok]] = [[]]
    depth = 0
    for tok in toks:
        if depth == 0 and tok.text == text:
            parts.append([])
            continue
        depth += (tok.text in "([{") - (tok.text in ")]}")
        parts[-1].append(tok)
    return parts


def _as_block(stmt: Stmt) -> Block:
    return stmt if isinstance(stmt, Block) else Block([stmt])


def _control(functions: list[Function], language: str) -> None:
    java = language == "java"

    def change(stmt: Stmt) -> Stmt:
        if isinstance(stmt, Block):
            stmt.stmts = [change(s) for s in stmt.stmts]
            return stmt
        if not isinstance(stmt, Compound):
            return stmt
        stmt.parts = [p if isinstance(p, Tok) else change(p) for p in stmt.parts]
        head = stmt.parts[0]
        assert isinstance(head, Tok)
        toks = [p for p in stmt.parts if isinstance(p, Tok)]
        subs = [p for p in stmt.parts if not isinstance(p, Tok)]
        if head.text == "for" and len(subs) == 1:
            inner = toks[2:-1]
            pieces = _split_top(inner, ";")
            body = subs[0]
            if len(pieces) != 3 or any(t.text == "continue" for t in _all_tokens(body)):
                return stmt
            init, cond, step = pieces
            if not cond:
                cond = [Tok("name", "true" if java else "1")]
            loop_body = _as_block(body)
            steps = [Simple([*s, Tok("op", ";")]) for s in _split_top(step, ",") if s]
            loop = Compound(
                [
                    Tok("name", "while"),
                    Tok("op", "("),
                    *cond,
                    Tok("op", ")"),
                    Block([*loop_body.stmts, *steps]),
                ]
            )
            if not init:
                return loop
            return Block([Simple([*init, Tok("op", ";")]), loop])
        if head.text == "while" and len(subs) == 1:
            cond = toks[1:]
            return Compound(
                [
                    Tok("name", "for"),
                    Tok("op", "("),
                    Tok("op", ";"),
                    *cond[1:-1],
                    Tok("op", ";"),
                    Tok("op", ")"),
                    subs[0],
                ]
            )
        if (
            head.text == "if"
            and len(subs) == 2
            and not (
                isinstance(subs[1], Compound)
                and isinstance(subs[1].parts[0], Tok)
                and subs[1].parts[0].text == "if"
            )
        ):
            cond = toks[2:-2]  # if ( c ) S else S: the tokens are if ( ... ) else
            return Compound(
                [
                    Tok("name", "if"),
                    Tok("op", "("),
                    Tok("op", "!"),
                    Tok("op", "("),
                    *cond,
                    Tok("op", ")"),
                    Tok("op", ")"),
                    _as_block(subs[1]),
                    Tok("name", "else"),
                    _as_block(subs[0]),
                ]
            )
        return stmt

    for function in functions:
        function.body = change(function.body)  # type: ignore[assignment]


@dataclass
class Style:
    indent: str
    allman: bool
    spaced: bool
    comments: float
    rng: random.Random = field(repr=False)


_TIGHT_AFTER = {"(", "[", ".", "->", "::", "!", "~", "@"}
_TIGHT_BEFORE = {")", "]", ";", ",", ".", "->", "::", "++", "--"}


_SPACED = {"=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=", "|=", "&=", "?", ":"}
_KEYWORDS = C_KEYWORDS | JAVA_KEYWORDS


def _space(prev: Tok, tok: Tok, spaced: bool) -> bool:
    """Whether ``_join`` writes a space between two tokens."""
    if prev.kind != "op" and tok.kind != "op":
        return True
    if prev.kind == "op" and tok.kind == "op" and _risky(prev.text, tok.text):
        return True
    if tok.text in _TIGHT_BEFORE or prev.text in _TIGHT_AFTER:
        return False
    if prev.kind == "name" and prev.text in _KEYWORDS:
        return True
    if tok.text == "(" and prev.kind == "name":
        return False
    if prev.text in (",", ";", ">") or prev.text in _SPACED or tok.text in _SPACED:
        return True
    return spaced


def _join(toks: list[Tok], style: Style) -> str:
    out = ""
    prev: Tok | None = None
    for tok in toks:
        if prev is not None and _space(prev, tok, style.spaced):
            out += " "
        out += tok.text
        prev = tok
    return out


def _risky(one: str, two: str) -> bool:
    """Whether two operator tokens written together could read as another."""
    return bool(one and two) and one[-1] in "+-&|<>=!*/%^:." and two[0] in "+-&|<>=*/%:."


def _render_stmt(stmt: Stmt, depth: int, style: Style, lines: list[str]) -> None:
    pad = style.indent * depth
    if style.comments and style.rng.random() < style.comments:
        comment = style.rng.choice(COMMENTS)
        lines.append(pad + (f"// {comment}" if style.rng.random() < 0.6 else f"/* {comment} */"))
    if isinstance(stmt, Simple):
        if stmt.toks and stmt.toks[0].text in ("case", "default"):
            pad = style.indent * max(0, depth - 1)
        lines.append(pad + _join(stmt.toks, style))
    elif isinstance(stmt, Block):
        _render_block(stmt, depth, style, lines, pad)
    else:
        run: list[Tok] = []
        for part in stmt.parts:
            if isinstance(part, Tok):
                run.append(part)
                continue
            text = _join(run, style)
            run = []
            if isinstance(part, Block):
                _render_block(part, depth, style, lines, pad, text)
            else:
                lines.append(pad + text)
                _render_stmt(part, depth + 1, style, lines)
        if run:
            lines.append(pad + _join(run, style))


def _render_block(
    block: Block, depth: int, style: Style, lines: list[str], pad: str, head: str = ""
) -> None:
    if (
        head
        and lines
        and lines[-1].strip() == "}"
        and head.split()[0] in ("else", "catch", "finally", "while")
        and not style.allman
    ):
        head = lines.pop() + " " + head
    if style.allman or not head:
        if head:
            lines.append(pad + head.strip())
        lines.append(pad + "{")
    else:
        lines.append(pad + head.strip() + " {")
    inner = depth + 1 + block.switch
    for stmt in block.stmts:
        _render_stmt(stmt, inner, style, lines)
    lines.append(pad + "}")


def render_c_family(functions: list[Function], language: str, style: Style) -> str:
    lines: list[str] = []
    depth = 1 if language == "java" else 0
    for function in functions:
        if lines and style.rng.random() < 0.5:
            lines.append("")
        lines.append("")
        _render_block(
            function.body, depth, style, lines, style.indent * depth, _join(function.header, style)
        )
    text = "\n".join(line.rstrip() for line in lines).strip("\n")
    if language == "java":
        return "public class Program {\n\n" + text + "\n}\n"
    return text + "\n"


def _disguise_c_family(program: Program, level: int, seed: int) -> str:
    functions = program_functions(program)
    key = program.key
    if level >= 6:
        _control(functions, program.language)
    if level >= 5:
        _insert_remove(functions, program.language, rng_for(seed, key, 5))
    if level >= 4:
        functions = _reorder(functions, rng_for(seed, key, 4))
    if level >= 3:
        _declarations_literals(functions, program.language, rng_for(seed, key, 3))
    if level >= 2:
        _rename(functions, program.language, seed, key)
    rng = rng_for(seed, key, 1)
    style = Style(
        rng.choice(["  ", "   ", "\t", "        "]),
        rng.random() < 0.5,
        rng.random() < 0.5,
        rng.uniform(0.1, 0.3),
        rng,
    )
    return render_c_family(functions, program.language, style)


# ---------------------------------------------------------------- Python


def python_programs(text: str, origin: str) -> list[Program]:
    """The programs of one Python module: runs of consecutive functions (at the top level
    or in one class), docstrings left out, of ``MIN_TOKENS`` to ``MAX_TOKENS`` tokens."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    lines = text.splitlines(keepends=True)
    programs = []
    bodies = [tree.body] + [n.body for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    for body in bodies:
        runs: list[list[ast.FunctionDef]] = [[]]
        for node in body:
            if isinstance(node, ast.FunctionDef) and _plain(node):
                runs[-1].append(node)
            else:
                runs.append([])
        for run in runs:
            i = 0
            while i < len(run):
                chosen, total = [], 0
                for node in run[i : i + MAX_FUNCTIONS]:
                    source = _source(node, lines)
                    size = code_tokens(source, "python") if source else MAX_TOKENS + 1
                    if total + size > MAX_TOKENS:
                        break
                    chosen.append(source)
                    total += size
                if chosen and total >= MIN_TOKENS:
                    written = "\n\n".join(chosen)
                    names = tuple(n.name for n in run[i : i + len(chosen)])
                    programs.append(Program("python", origin, names, written, total))
                    i += len(chosen)
                else:
                    i += max(1, len(chosen))
    return programs


def _plain(node: ast.FunctionDef) -> bool:
    """A function without decorators, nested functions or classes, whose docstring (if
    any) is not its only statement."""
    if node.decorator_list or (len(node.body) < 2 and ast.get_docstring(node) is not None):
        return False
    inner = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
    return not any(isinstance(n, inner) for n in ast.walk(node) if n is not node)


def _source(node: ast.FunctionDef, lines: list[str]) -> str | None:
    """The function's text, dedented, without its docstring."""
    assert node.end_lineno is not None
    chosen = lines[node.lineno - 1 : node.end_lineno]
    first = node.body[0]
    if ast.get_docstring(node) is not None:
        assert first.end_lineno is not None
        start, stop = first.lineno - node.lineno, first.end_lineno - node.lineno + 1
        chosen = chosen[:start] + chosen[stop:]
    text = textwrap.dedent("".join(chosen))
    try:
        ast.parse(text)
    except SyntaxError:
        return None
    return text.rstrip() + "\n"


class _Renamer(ast.NodeTransformer):
    def __init__(self, renames: dict[str, str]) -> None:
        self.renames = renames

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self.renames.get(node.id, node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.arg:
        node.arg = self.renames.get(node.arg, node.arg)
        self.generic_visit(node)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        node.name = self.renames.get(node.name, node.name)
        self.generic_visit(node)
        return node

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.ExceptHandler:
        if node.name:
            node.name = self.renames.get(node.name, node.name)
        self.generic_visit(node)
        return node


def _py_rename(tree: ast.Module, seed: int, key: str) -> None:
    keep = {"self", "cls", "__class__"}
    declared = {
        n for s in ast.walk(tree) if isinstance(s, (ast.Global, ast.Nonlocal)) for n in s.names
    }
    local: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            local.append(node.name)
        elif isinstance(node, ast.arg):
            local.append(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            local.append(node.id)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            local.append(node.name)
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | set(local)
    renames = {}
    for name in dict.fromkeys(local):
        if name not in keep | declared:
            renames[name] = fresh_name(seed, key, name, taken)
    _Renamer(renames).visit(tree)


class _Literals(ast.NodeTransformer):
    SWAP: ClassVar[dict[type[ast.cmpop], type[ast.cmpop]]] = {
        ast.Lt: ast.Gt,
        ast.Gt: ast.Lt,
        ast.LtE: ast.GtE,
        ast.GtE: ast.LtE,
        ast.Eq: ast.Eq,
        ast.NotEq: ast.NotEq,
    }
    OPS = (ast.Add, ast.Sub, ast.Mult, ast.BitOr, ast.BitAnd)

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.JoinedStr:
        return node  # its parts are constants that must stay constants

    def visit_Constant(self, node: ast.Constant) -> ast.AST:
        value = node.value
        if type(value) is int and value > 1 and self.rng.random() < 0.7:
            return ast.Name(id=hex(value), ctx=ast.Load())  # written as is by unparse
        if type(value) is str and len(value) >= 4 and self.rng.random() < 0.7:
            cut = self.rng.randrange(1, len(value))
            return ast.BinOp(ast.Constant(value[:cut]), ast.Add(), ast.Constant(value[cut:]))
        return node

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) == 1 and type(node.ops[0]) in self.SWAP and self.rng.random() < 0.7:
            return ast.Compare(node.comparators[0], [self.SWAP[type(node.ops[0])]()], [node.left])
        return node

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST:
        self.generic_visit(node)
        if isinstance(node.target, ast.Name) and self.rng.random() < 0.8:
            load = ast.Name(node.target.id, ast.Load())
            return ast.Assign([node.target], ast.BinOp(load, node.op, node.value))
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        self.generic_visit(node)
        value = node.value
        if (
            len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(value, ast.BinOp)
            and isinstance(value.left, ast.Name)
            and value.left.id == node.targets[0].id
            and isinstance(value.op, self.OPS)
            and self.rng.random() < 0.8
        ):
            return ast.AugAssign(node.targets[0], value.op, value.right)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.FunctionDef:
        self.generic_visit(node)
        for arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
            if arg.annotation is not None:
                arg.annotation = None
            elif arg.arg not in ("self", "cls") and self.rng.random() < 0.5:
                arg.annotation = ast.Name("object", ast.Load())
        node.returns = None if node.returns is not None else ast.Constant(None)
        return node


def _py_statement_names(stmt: ast.stmt) -> tuple[set[str], set[str]]:
    written, every = set(), set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name):
            every.add(node.id)
            if not isinstance(node.ctx, ast.Load):
                written.add(node.id)
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        written.add(stmt.target.id)
    return written, every


def _py_bodies(tree: ast.AST) -> Iterator[list[ast.stmt]]:
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                yield body
        if isinstance(node, ast.ExceptHandler):
            continue


_PY_SIMPLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr)


def _py_reorder(tree: ast.Module, rng: random.Random) -> None:
    for body in list(_py_bodies(tree)):
        i = 0
        while i + 1 < len(body):
            one, two = body[i], body[i + 1]
            if isinstance(one, _PY_SIMPLE) and isinstance(two, _PY_SIMPLE):
                w1, n1 = _py_statement_names(one)
                w2, n2 = _py_statement_names(two)
                if not (w1 & n2 or w2 & n1) and rng.random() < 0.7:
                    body[i], body[i + 1] = two, one
                    i += 2
                    continue
            i += 1
    functions = list(tree.body)
    if len(functions) > 1:
        while functions == tree.body:
            rng.shuffle(functions)
        tree.body = functions


def _py_junk(rng: random.Random) -> ast.stmt:
    name = f"{rng.choice(WORDS)}_{rng.randrange(10, 99)}"
    word = rng.choice(WORDS)
    choice = rng.choice(
        [
            f"{name} = {rng.randrange(100)}",
            f"print({word!r})",
            f"{name} = None",
            f"{name} = []",
            "pass",
        ]
    )
    return ast.parse(choice).body[0]


def _py_insert_remove(tree: ast.Module, rng: random.Random) -> None:
    bodies = [b for b in _py_bodies(tree) if b is not tree.body]
    statements = sum(len(b) for b in bodies)
    removable = [(b, s) for b in bodies for s in b if isinstance(s, _PY_SIMPLE) and len(b) > 1]
    rng.shuffle(removable)
    for body, stmt in removable[: max(1, statements // 10)]:
        if len(body) > 1:
            body.remove(stmt)
    for _ in range(max(2, statements // 4)):
        body = rng.choice(bodies)
        jump = isinstance(body[-1], (ast.Return, ast.Raise, ast.Break, ast.Continue))
        body.insert(rng.randrange(len(body) + (not jump)), _py_junk(rng))


class _Control(ast.NodeTransformer):
    def __init__(self) -> None:
        self.count = 0

    def fresh(self) -> str:
        self.count += 1
        return f"_iter{self.count}"

    def visit_For(self, node: ast.For) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        if node.orelse:
            return node
        has_continue = any(isinstance(n, ast.Continue) for n in ast.walk(node))
        call = node.iter
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "range"
            and 1 <= len(call.args) <= 2
            and not call.keywords
            and isinstance(node.target, ast.Name)
            and not has_continue
        ):
            start = call.args[0] if len(call.args) == 2 else ast.Constant(0)
            stop = call.args[-1]
            name = node.target.id
            init = ast.Assign([ast.Name(name, ast.Store())], start)
            test = ast.Compare(ast.Name(name, ast.Load()), [ast.Lt()], [stop])
            step = ast.AugAssign(ast.Name(name, ast.Store()), ast.Add(), ast.Constant(1))
            return [init, ast.While(test, [*node.body, step], [])]
        it = self.fresh()
        source = ast.parse(f"{it} = iter(x)").body[0]
        assert isinstance(source, ast.Assign)
        source.value = ast.Call(ast.Name("iter", ast.Load()), [node.iter], [])
        fetch = ast.Try(
            [
                ast.Assign(
                    [node.target],
                    ast.Call(ast.Name("next", ast.Load()), [ast.Name(it, ast.Load())], []),
                )
            ],
            [ast.ExceptHandler(ast.Name("StopIteration", ast.Load()), None, [ast.Break()])],
            [],
            [],
        )
        return [source, ast.While(ast.Constant(True), [fetch, *node.body], [])]

    def visit_While(self, node: ast.While) -> ast.AST:
        self.generic_visit(node)
        if node.orelse or isinstance(node.test, ast.Constant):
            return node
        stop = ast.If(ast.UnaryOp(ast.Not(), node.test), [ast.Break()], [])
        return ast.While(ast.Constant(True), [stop, *node.body], [])

    def visit_If(self, node: ast.If) -> ast.AST:
        self.generic_visit(node)
        if not node.orelse:
            return node
        test = (
            node.test.operand
            if isinstance(node.test, ast.UnaryOp) and isinstance(node.test.op, ast.Not)
            else ast.UnaryOp(ast.Not(), node.test)
        )
        return ast.If(test, node.orelse, node.body)

    def visit_Assign(self, node: ast.Assign) -> ast.AST | list[ast.stmt]:
        self.generic_visit(node)
        value = node.value
        if (
            len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(value, ast.ListComp)
            and len(value.generators) == 1
            and not value.generators[0].is_async
        ):
            name = node.targets[0].id
            gen = value.generators[0]
            append = ast.Expr(
                ast.Call(
                    ast.Attribute(ast.Name(name, ast.Load()), "append", ast.Load()), [value.elt], []
                )
            )
            inner: ast.stmt = append
            for condition in reversed(gen.ifs):
                inner = ast.If(condition, [inner], [])
            loop = ast.For(gen.target, gen.iter, [inner], [])
            return [ast.Assign([ast.Name(name, ast.Store())], ast.List([], ast.Load())), loop]
        if isinstance(value, ast.IfExp) and len(node.targets) == 1:
            target = node.targets[0]
            return ast.If(
                value.test,
                [ast.Assign([target], value.body)],
                [ast.Assign([copy.deepcopy(target)], value.orelse)],
            )
        return node


def _py_layout(text: str, rng: random.Random) -> str:
    indent = rng.choice(["  ", "   ", "\t", "        "])
    rate = rng.uniform(0.1, 0.3)
    out = []
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        depth = (len(line) - len(stripped)) // 4
        pad = indent * depth
        if rng.random() < rate and stripped:
            out.append(f"{pad}# {rng.choice(COMMENTS)}")
        if rng.random() < 0.1:
            out.append("")
        if stripped.startswith("def ") and out:
            out.append("")
        comment = f"  # {rng.choice(COMMENTS)}" if rng.random() < rate / 2 else ""
        out.append(pad + stripped + (comment if stripped else ""))
    return "\n".join(out).strip("\n") + "\n"


def _disguise_python(program: Program, level: int, seed: int) -> str:
    tree = ast.parse(program.text)
    key = program.key
    if level >= 6:
        tree = _Control().visit(tree)
    if level >= 5:
        _py_insert_remove(tree, rng_for(seed, key, 5))
    if level >= 4:
        _py_reorder(tree, rng_for(seed, key, 4))
    if level >= 3:
        tree = _Literals(rng_for(seed, key, 3)).visit(tree)
    if level >= 2:
        _py_rename(tree, seed, key)
    ast.fix_missing_locations(tree)
    return _py_layout(ast.unparse(tree), rng_for(seed, key, 1))


def disguise(program: Program, level: int, seed: int) -> str:
    """The program disguised at ``level`` (1 to 6; cumulative).
    :raises ValueError: where a transformation cannot follow the program."""
    if program.language == "python":
        return _disguise_python(program, level, seed)
    return _disguise_c_family(program, level, seed)
