"""The report formats: one interface (:class:`~samecode.reports.format.Format`), one
registry per result kind, looked up by name with one error naming the kind, the name and
the names there are."""

from __future__ import annotations

import pytest

from samecode.errors import SamecodeValueError
from samecode.reports.comparison import COMPARISON_FORMATS
from samecode.reports.format import Format, Formats, TextFormat, TextOutput, UnknownFormatError
from samecode.reports.fragments import (
    FORMATS as FRAGMENT_NAMES,
)
from samecode.reports.fragments import (
    FRAGMENT_COMPARISON_FORMATS,
    FRAGMENT_FORMATS,
)
from samecode.reports.pairs import FORMATS, PAIR_FORMATS, Report, render
from samecode.scan.model import CloneClass, Pair

REGISTRIES = {
    "pairs": (PAIR_FORMATS, ["table", "json", "jsonl", "csv", "sarif"]),
    "fragments": (FRAGMENT_FORMATS, ["table", "json", "jsonl", "csv", "sarif", "html"]),
    "comparison": (COMPARISON_FORMATS, ["text", "json"]),
    "fragment comparison": (FRAGMENT_COMPARISON_FORMATS, ["text", "json"]),
}


@pytest.mark.parametrize("kind", sorted(REGISTRIES))
def test_each_kind_has_its_formats_each_found_by_its_name(kind):
    registry, names = REGISTRIES[kind]
    assert registry.kind == kind
    assert list(registry) == names
    for name in names:
        found = registry.lookup(name)
        assert isinstance(found, Format)
        assert found.name == name
        assert registry[name] is found


@pytest.mark.parametrize("kind", sorted(REGISTRIES))
def test_an_unknown_name_is_an_error_naming_the_kind_the_name_and_the_names(kind):
    registry, names = REGISTRIES[kind]
    with pytest.raises(UnknownFormatError) as raised:
        registry.lookup("xml")
    assert isinstance(raised.value, SamecodeValueError)
    assert isinstance(raised.value, ValueError)
    assert str(raised.value) == (
        f"{kind} reports have no format 'xml'; the formats are {', '.join(names)}"
    )
    assert (raised.value.kind, raised.value.name, raised.value.allowed) == (
        kind,
        "xml",
        tuple(names),
    )


def test_the_names_the_modules_export_are_the_registries():
    assert tuple(PAIR_FORMATS) == FORMATS
    assert tuple(FRAGMENT_FORMATS) == FRAGMENT_NAMES


def test_two_formats_of_one_name_are_refused():
    with pytest.raises(SamecodeValueError, match="two formats 'a'"):
        Formats("things", [TextFormat("a", str), TextFormat("a", repr)])


def _report() -> Report:
    pair = Pair("src/a.py", "src/b.py", 9, 10, 10)
    return Report({"threshold": 0.8}, [pair], [CloneClass(("src/a.py", "src/b.py"), "src/a.py",
                  0.8, 0.8, 0.8)], [], 2)  # fmt: skip


@pytest.mark.parametrize("name", FORMATS)
def test_render_writes_every_pair_format_as_its_format_does(name):
    if name == "table":
        pytest.importorskip("rich")
    out = TextOutput()
    PAIR_FORMATS[name].write(_report(), out)
    assert render(_report(), name) == out.getvalue() != ""


def test_render_refuses_another_format_by_the_registrys_error():
    with pytest.raises(UnknownFormatError, match="pairs reports have no format 'html'"):
        render(_report(), "html")


def test_a_format_is_added_by_writing_it_and_registering_it():
    class Upper(Format[str]):
        def write(self, report, out):
            out.text(report.upper())

    formats = Formats("words", [Upper("upper"), TextFormat("pieces", lambda w: iter(w))])
    assert formats.lookup("upper").render("abc") == "ABC"
    assert formats.lookup("pieces").render("abc") == "abc"
