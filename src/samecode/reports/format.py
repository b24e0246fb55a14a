"""The one way a report format is declared, and the registry of each result kind's formats.

A :class:`Format` writes one kind of result (a scan's :class:`~samecode.reports.pairs.Report`,
a :class:`~samecode.reports.fragments.FragmentReport`, a comparison) to an :class:`Output`:
as text (:meth:`Output.text`, whole or in pieces) or as a ``rich`` drawing
(:meth:`Output.drawing`, which a terminal shows with its width and styles). Everything a
format needs travels in the result (or the report object that wraps it), never beside it.
Each kind has one :class:`Formats` registry, looked up by name:
:data:`~samecode.reports.pairs.PAIR_FORMATS`,
:data:`~samecode.reports.fragments.FRAGMENT_FORMATS`,
:data:`~samecode.reports.comparison.COMPARISON_FORMATS` and
:data:`~samecode.reports.fragments.FRAGMENT_COMPARISON_FORMATS`.

>>> shout = TextFormat("shout", lambda text: text.upper())
>>> formats = Formats("greeting", [shout])
>>> formats.lookup("shout").render("hello")
'HELLO'
>>> try:
...     formats.lookup("whisper")
... except UnknownFormatError as error:
...     print(error)
greeting reports have no format 'whisper'; the formats are shout
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Generic, Protocol, TypeVar, runtime_checkable

from samecode.errors import SamecodeValueError

__all__ = [
    "Format",
    "Formats",
    "Output",
    "TextFormat",
    "TextOutput",
    "UnknownFormatError",
    "console",
]

R = TypeVar("R")
F = TypeVar("F", bound="Format[Any]")


class UnknownFormatError(SamecodeValueError):
    """A format name that a kind of report does not have.

    :param kind: the kind of report (``pairs``, ``fragments``, ...).
    :param name: the name asked for.
    :param allowed: the names the kind has.

    >>> UnknownFormatError("pairs", "xml", ("json", "csv")).allowed
    ('json', 'csv')
    """

    def __init__(self, kind: str, name: str, allowed: tuple[str, ...]) -> None:
        super().__init__(
            f"{kind} reports have no format {name!r}; the formats are {', '.join(allowed)}"
        )
        self.kind = kind
        self.name = name
        self.allowed = allowed


@runtime_checkable
class Output(Protocol):
    """Where a format writes: :class:`TextOutput` keeps the text; the command line writes
    to standard output or a file.

    >>> isinstance(TextOutput(), Output)
    True
    """

    def text(self, text: str | Iterable[str]) -> None:
        """Write ``text`` (whole, or in pieces to be written as they come), without its
        last newline."""

    def drawing(self, drawing: Any) -> None:
        """Draw a ``rich`` renderable (a terminal shows it with its width and styles)."""


def console(file: Any) -> Any:
    """A ``rich`` console that prints to ``file`` as reports are drawn: no highlighting
    of numbers or paths, long lines not wrapped as soft text.

    :raises ImportError: without ``rich`` (the ``cli`` extra).

    >>> out = TextOutput()
    >>> console(out).print("[bold]3[/bold] files")
    >>> out.getvalue()
    '3 files\\n'
    """
    from rich.console import Console

    return Console(file=file, highlight=False, soft_wrap=False)


class TextOutput:
    """An :class:`Output` that keeps what is written as text (:meth:`getvalue`); a drawing
    is drawn as a console that is no terminal draws it (80 columns unless ``COLUMNS``
    says otherwise, no styles).

    >>> out = TextOutput()
    >>> out.text(iter(["a", "b"]))
    >>> out.getvalue()
    'ab'
    """

    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        """Take ``text`` as a file takes it (for ``rich``)."""
        self.parts.append(text)
        return len(text)

    def flush(self) -> None:
        """Nothing to flush (for ``rich``)."""

    def isatty(self) -> bool:
        """No terminal (for ``rich``)."""
        return False

    def text(self, text: str | Iterable[str]) -> None:
        """Keep ``text``."""
        self.parts.extend([text] if isinstance(text, str) else text)

    def drawing(self, drawing: Any) -> None:
        """Keep the text of ``drawing``, but for its last newline.

        :raises ImportError: without ``rich`` (the ``cli`` extra).
        """
        buffer = TextOutput()
        console(buffer).print(drawing)
        self.parts.append(buffer.getvalue().rstrip("\n"))

    def getvalue(self) -> str:
        """Everything written, as one string."""
        return "".join(self.parts)


class Format(ABC, Generic[R]):
    """One way to write a kind of result, by its :attr:`name`: a subclass says how in
    :meth:`write` (see :class:`TextFormat` for a format made by one function).

    :param name: the name the format is looked up by.

    >>> class Loud(Format[str]):
    ...     def write(self, report, out):
    ...         out.text(report.upper() + "!")
    >>> Loud("loud").render("hello")
    'HELLO!'
    """

    def __init__(self, name: str) -> None:
        self.name = name

    @abstractmethod
    def write(self, report: R, out: Output) -> None:
        """Write ``report`` to ``out``."""

    def render(self, report: R) -> str:
        """``report`` as text, as :meth:`write` would write it to a file (no last newline).

        >>> TextFormat("plain", str).render(12)
        '12'
        """
        out = TextOutput()
        self.write(report, out)
        return out.getvalue()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class TextFormat(Format[R]):
    """A format whose text one function makes (as one string, or in pieces).

    :param name: the format's name.
    :param make: the function making the text of a report.

    >>> TextFormat("lines", lambda numbers: (f"{n}\\n" for n in numbers)).render([1, 2])
    '1\\n2\\n'
    """

    def __init__(self, name: str, make: Callable[[R], str | Iterable[str]]) -> None:
        super().__init__(name)
        self.make = make

    def write(self, report: R, out: Output) -> None:
        """Write the text :attr:`make` makes of ``report``."""
        out.text(self.make(report))


class Formats(Mapping[str, F]):
    """The registry of one kind of result's formats: a mapping of name to :class:`Format`,
    in the order given (the first is the kind's default).

    :param kind: the kind of result, as errors name it.
    :param formats: the formats, each with its own name.
    :raises ValueError: for two formats of one name.

    >>> formats = Formats("numbers", [TextFormat("plain", str), TextFormat("hex", hex)])
    >>> list(formats), formats.lookup("hex").render(255)
    (['plain', 'hex'], '0xff')
    """

    def __init__(self, kind: str, formats: Iterable[F]) -> None:
        self.kind = kind
        self._formats: dict[str, F] = {}
        for chosen in formats:
            if chosen.name in self._formats:
                raise SamecodeValueError(f"{kind} reports have two formats {chosen.name!r}")
            self._formats[chosen.name] = chosen

    def lookup(self, name: str) -> F:
        """The format called ``name``.

        :raises UnknownFormatError: if the kind has none of that name (the error names the
            kind, ``name`` and the names there are).
        """
        found = self._formats.get(name)
        if found is None:
            raise UnknownFormatError(self.kind, name, tuple(self._formats))
        return found

    def __getitem__(self, name: str) -> F:
        return self._formats[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._formats)

    def __len__(self) -> int:
        return len(self._formats)

    def __repr__(self) -> str:
        return f"Formats({self.kind!r}, {list(self._formats.values())!r})"
