"""What the command line writes: reports to stdout or a file, progress and the summary
on stderr, paths made printable, errors as one line.

>>> files_text(1), files_text(2), one_line("a\\n  b")
('1 file', '2 files', 'a b')
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain
from typing import Any, TypeVar

from samecode.engine import paused_collection
from samecode.errors import SamecodeError, SamecodeValueError
from samecode.reports.format import Format, TextOutput, console
from samecode.sources.skipped import Skipped
from samecode.text.display import counted, visible

__all__ = [
    "Destination",
    "Feedback",
    "OutputError",
    "console",
    "describe_error",
    "emit",
    "files_text",
    "one_line",
    "shown",
    "silence_stdout",
    "skipped_text",
    "to_stdout",
    "tolerate_any_name",
    "write",
]

R = TypeVar("R")


def shown(path: str) -> str:
    """A path as people can read it (:func:`samecode.text.display.visible`)."""
    return visible(path)


#: What each stage of the pipeline is called on the progress bar.
STAGES = {
    "read": "reading files",
    "count": "counting shingles",
    "key": "keying documents",
    "join": "joining groups",
    "verify": "verifying candidates",
    "classes": "linking classes",
    "compare": "comparing pairs",
    "probe": "probing the corpus",
}


class Feedback:
    """Progress on stderr (on a terminal), a bar per stage with its own count, and the
    closing line."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.started = time.perf_counter()
        self.bar: Any = None
        self.tasks: dict[str, Any] = {}

    def __enter__(self) -> Feedback:
        if not self.quiet and sys.stderr.isatty():
            from rich.progress import Progress

            self.bar = Progress(transient=True, console=console(sys.stderr))
            self.bar.start()
        return self

    def __call__(self, stage: str, done: int, total: int) -> None:
        if self.bar is None:
            return
        task = self.tasks.get(stage)
        if task is None:
            task = self.tasks[stage] = self.bar.add_task(STAGES.get(stage, stage), total=total)
        self.bar.update(task, completed=done, total=total)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def summary(self, text: str) -> None:
        if not self.quiet:
            seconds = time.perf_counter() - self.started
            print(f"samecode: {text}, in {seconds:.1f} s", file=sys.stderr)


def skipped_text(skipped: Sequence[Skipped]) -> str:
    if not skipped:
        return "none skipped"
    reasons = Counter(s.kind.value for s in skipped)
    detail = ", ".join(f"{count:,} {reason}" for reason, count in sorted(reasons.items()))
    return f"skipped {len(skipped):,}: {detail}"


def files_text(count: int) -> str:
    """``1 file``, ``2 files``."""
    return counted(count, "file")


class OutputError(SamecodeError, OSError):
    """Standard output cannot be written (a full disk, a closed device)."""


def to_stdout(action: Callable[[], None]) -> None:
    """Run ``action`` (writing to stdout); a failure other than a closed pipe is an
    :class:`OutputError`."""
    try:
        action()
    except BrokenPipeError:
        raise
    except OSError as error:
        raise OutputError(error.errno, error.strerror) from error


def _chunks(pieces: Iterable[str], size: int = 1 << 16) -> Iterator[str]:
    """``pieces`` joined into chunks of about ``size`` characters or more."""
    held: list[str] = []
    count = 0
    for piece in pieces:
        held.append(piece)
        count += len(piece)
        if count >= size:
            yield "".join(held)
            held, count = [], 0
    if held:
        yield "".join(held)


def write(text: str | Iterable[str], output: str | None) -> None:
    """Write ``text`` and a newline to stdout, or to the file ``output`` (see
    :func:`_write_file`). ``text`` may come in pieces, written as they come (a long
    report need not be held whole): to stdout, an error while they are made leaves
    those already written; a file is replaced only once all are."""
    pieces = _chunks(chain([text] if isinstance(text, str) else text, ["\n"]))
    if output is None:
        for chunk in pieces:
            for start in range(0, len(chunk), 1 << 16):  # a closed pipe is seen at the next
                piece = chunk[start : start + (1 << 16)]

                def part(piece: str = piece) -> None:
                    sys.stdout.write(piece)
                    sys.stdout.flush()

                to_stdout(part)
        return
    _write_file(pieces, output)


def _write_file(pieces: Iterable[str], output: str) -> None:
    """Write ``pieces`` of text, in order, to the file ``output`` names, as people expect of ``-o``:

    * a regular file (or a new one) is replaced atomically (a temporary file beside it,
      renamed over it), keeping the mode of the file it replaces;
    * a symbolic link is followed: its target is replaced so, and the link kept;
    * a device or a pipe (``/dev/null``, a FIFO) is written to as it is, never replaced.

    Errors name ``output``, never the temporary file.
    """
    if output == "":
        raise SamecodeValueError("--output must name a file; got ''")
    target = os.path.realpath(output)
    try:
        info: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise OSError(error.errno, error.strerror, output) from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise OSError(errno.EISDIR, "is a folder", output)
    if info is not None and not stat.S_ISREG(info.st_mode):
        try:
            with open(target, "w", encoding="utf-8", errors="surrogateescape", newline="") as file:
                file.writelines(pieces)
        except OSError as error:
            raise OSError(error.errno, error.strerror, output) from None
        return
    folder = os.path.dirname(target)
    try:
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".samecode-", suffix=".tmp")
    except OSError as error:
        raise OSError(error.errno, error.strerror, output) from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", errors="surrogateescape", newline="") as file:
            file.writelines(pieces)
            if info is not None:
                os.fchmod(file.fileno(), stat.S_IMODE(info.st_mode))
            else:  # a new file gets the mode any new file gets (umask applied)
                mask = os.umask(0)
                os.umask(mask)
                os.fchmod(file.fileno(), 0o666 & ~mask)
        os.replace(temporary, target)
    except BaseException as error:
        with contextlib.suppress(OSError):
            os.remove(temporary)
        if isinstance(error, OSError) and not isinstance(error, OutputError):
            raise OSError(error.errno, error.strerror, output) from None
        raise


class Destination:
    """The :class:`~samecode.reports.format.Output` of ``--output``: text is written by
    :func:`write`; a drawing is drawn on stdout (a terminal's width and styles), or into
    the file as it is drawn where no terminal is.

    :param output: the file ``--output`` names, or ``None`` for stdout.
    """

    def __init__(self, output: str | None) -> None:
        self.output = output

    def text(self, text: str | Iterable[str]) -> None:
        """Write ``text`` (see :func:`write`)."""
        write(text, self.output)

    def drawing(self, drawing: Any) -> None:
        """Draw ``drawing`` on stdout, or write its text to the file."""
        if self.output is None:

            def draw() -> None:
                console(sys.stdout).print(drawing)
                sys.stdout.flush()

            to_stdout(draw)
            return
        out = TextOutput()
        out.drawing(drawing)
        write(out.getvalue(), self.output)


def emit(chosen: Format[R], report: R, output: str | None) -> None:
    """Write ``report`` in the ``chosen`` format to stdout or the file ``output`` (with
    collection paused: a report's records are made and let go in their hundreds of
    thousands beside the result they come from, which the collector would walk again
    and again; see :func:`~samecode.engine.paused_collection`)."""
    with paused_collection():
        chosen.write(report, Destination(output))


def tolerate_any_name() -> None:
    """Write names that are not UTF-8 back as their bytes, instead of failing."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):  # a stream that cannot
                reconfigure(
                    errors="surrogateescape" if stream is sys.stdout else "backslashreplace"
                )


def describe_error(error: BaseException) -> str:
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        filename = (
            error.filename if isinstance(error.filename, str) else os.fsdecode(error.filename)
        )
        if type(error).__str__ is not OSError.__str__:
            return str(error)
        return f"{shown(filename)}: {error.strerror}"
    if isinstance(error, OSError) and error.strerror:
        return f"cannot write the output: {error.strerror}" if error.errno == 28 else error.strerror
    if isinstance(error, MemoryError):
        return "out of memory (lower --jobs or --max-size, or scan fewer files at once)"
    return str(error) or type(error).__name__


def one_line(text: str) -> str:
    return " ".join(text.split())


def silence_stdout() -> None:
    """After a closed pipe: point stdout at /dev/null so that Python's last flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # pragma: no cover - stdout without a file descriptor
        pass
