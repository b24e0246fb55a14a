"""Private table of programming languages, known from file extensions: comment syntax and
keywords, for dropping comments (``--tokens code``) and keeping keywords when names are
replaced by placeholders (``--normalize``)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Language", "language_of"]


@dataclass(frozen=True)
class Language:
    """What the tokenizers need to know of a language."""

    name: str
    line_comments: tuple[str, ...]
    block_comments: tuple[tuple[str, str], ...]
    keywords: frozenset[str]


_C_KEYWORDS = """auto break case char const continue default do double else enum extern float for
goto if inline int long register restrict return short signed sizeof static struct switch
typedef union unsigned void volatile while bool true false NULL"""
_CPP_KEYWORDS = (
    _C_KEYWORDS
    + """ class namespace template typename public private protected
virtual override final new delete this throw try catch using operator friend explicit mutable
constexpr nullptr noexcept static_cast dynamic_cast reinterpret_cast const_cast decltype"""
)
_JAVA_KEYWORDS = """abstract assert boolean break byte case catch char class const continue default
do double else enum extends final finally float for goto if implements import instanceof int
interface long native new package private protected public return short static strictfp super
switch synchronized this throw throws transient try void volatile while true false null var
record sealed permits yield"""
_JS_KEYWORDS = """break case catch class const continue debugger default delete do else export
extends finally for function if import in instanceof let new return super switch this throw try
typeof var void while with yield async await of true false null undefined static get set
interface type enum implements private protected public readonly declare namespace"""
_PY_KEYWORDS = """False None True and as assert async await break class continue def del elif else
except finally for from global if import in is lambda nonlocal not or pass raise return try
while with yield match case self cls print"""
_GO_KEYWORDS = """break case chan const continue default defer else fallthrough for func go goto if
import interface map package range return select struct switch type var true false nil"""
_RUST_KEYWORDS = """as async await break const continue crate dyn else enum extern false fn for if
impl in let loop match mod move mut pub ref return self Self static struct super trait true type
unsafe use where while"""
_RUBY_KEYWORDS = """BEGIN END alias and begin break case class def defined do else elsif end ensure
false for if in module next nil not or redo rescue retry return self super then true undef
unless until when while yield"""
_SHELL_KEYWORDS = """if then else elif fi case esac for while until do done in function select
time return local export"""
_CS_KEYWORDS = (
    _JAVA_KEYWORDS
    + """ namespace using struct delegate event internal override
readonly ref out params sizeof typeof unchecked checked virtual sealed base lock object string
decimal"""
)
_PHP_KEYWORDS = """abstract and array as break callable case catch class clone const continue
declare default do echo else elseif empty enddeclare endfor endforeach endif endswitch endwhile
extends final finally fn for foreach function global goto if implements include instanceof
insteadof interface isset list match namespace new or print private protected public require
return static switch throw trait try unset use var while xor yield true false null"""

_C_LIKE = (("//",), (("/*", "*/"),))
_HASH = (("#",), ())


def _language(
    name: str, comments: tuple[tuple[str, ...], tuple[tuple[str, str], ...]], keywords: str
) -> Language:
    return Language(name, comments[0], comments[1], frozenset(keywords.split()))


_PYTHON = _language("python", _HASH, _PY_KEYWORDS)
_C = _language("c", _C_LIKE, _C_KEYWORDS)
_CPP = _language("c++", _C_LIKE, _CPP_KEYWORDS)
_JAVA = _language("java", _C_LIKE, _JAVA_KEYWORDS)
_JS = _language("javascript", _C_LIKE, _JS_KEYWORDS)
_GO = _language("go", _C_LIKE, _GO_KEYWORDS)
_RUST = _language("rust", _C_LIKE, _RUST_KEYWORDS)
_CS = _language("c#", _C_LIKE, _CS_KEYWORDS)
_RUBY = _language("ruby", (("#",), (("=begin", "=end"),)), _RUBY_KEYWORDS)
_SHELL = _language("shell", _HASH, _SHELL_KEYWORDS)
_PHP = _language("php", (("//", "#"), (("/*", "*/"),)), _PHP_KEYWORDS)
_SQL = _language("sql", (("--",), (("/*", "*/"),)), "select from where insert update delete")
_HTML = _language("html", ((), (("<!--", "-->"),)), "")

_BY_EXTENSION = {
    **dict.fromkeys((".py", ".pyi", ".pyw", ".pyx", ".pxd"), _PYTHON),
    **dict.fromkeys((".c", ".h"), _C),
    **dict.fromkeys((".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".m", ".mm"), _CPP),
    **dict.fromkeys((".java", ".kt", ".kts", ".scala", ".groovy", ".swift", ".dart"), _JAVA),
    **dict.fromkeys((".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx"), _JS),
    ".go": _GO,
    ".rs": _RUST,
    ".cs": _CS,
    **dict.fromkeys((".rb", ".rake"), _RUBY),
    **dict.fromkeys((".sh", ".bash", ".zsh", ".ksh", ".pl", ".pm", ".r", ".R"), _SHELL),
    **dict.fromkeys((".yaml", ".yml", ".toml", ".cfg", ".ini", ".mk"), _SHELL),
    ".php": _PHP,
    ".sql": _SQL,
    **dict.fromkeys((".html", ".htm", ".xml", ".svg", ".vue"), _HTML),
}
# Files whose language is unknown: C-family and script comments, every keyword above.
_ANY = Language(
    "unknown",
    ("//", "#"),
    (("/*", "*/"),),
    frozenset().union(*(lang.keywords for lang in (_PYTHON, _CPP, _JAVA, _JS, _GO, _RUST, _RUBY))),
)


def language_of(path: str) -> Language:
    """The language of a file, from its extension (``unknown`` when it is not known)."""
    dot = path.rfind(".")
    slash = max(path.rfind("/"), path.rfind("\\"))
    if dot <= slash + 1:
        return _ANY
    return _BY_EXTENSION.get(path[dot:], _BY_EXTENSION.get(path[dot:].lower(), _ANY))
