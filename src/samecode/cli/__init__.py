"""The ``samecode`` command: near-duplicate files in trees, and against a stored corpus.

Commands (``samecode COMMAND --help`` for each):

* ``samecode scan PATH...``: the near-copies among the files under the paths;
* ``samecode index add|remove|stats|check``: a corpus of known files in one SQLite file
  (``./samecode.db`` unless ``--db`` says otherwise);
* ``samecode match PATH... --db FILE``: the corpus files each file matches (also ``scan
  --against FILE``);
* ``samecode fingerprint PATH...``: a JSON line per file with its size, SHA-256 and
  fingerprints;
* ``samecode compare A B``: the similarity of two files.

Defaults come from ``[tool.samecode]`` in the nearest ``pyproject.toml`` (keys are the
long options, ``min-tokens = 20``); the command line overrides them; the rest are the
library's.

The package: :mod:`~samecode.cli.parser` (the options, their defaults, the
configuration), :mod:`~samecode.cli.commands` (a function per command, calling the
library), :mod:`~samecode.cli.output` (reports, progress, escaping, errors as one line);
here, :func:`main`.

Exit status: 0 done; 1 only with ``--fail-on-match`` when something matched; 2 for a usage
or input/output error (one line on stderr, never a traceback); 130 when interrupted; 141,
quietly, when the output pipe is closed early (as ``head`` does), as for a process that
``SIGPIPE`` ended.

The command line needs the ``cli`` extra (``pip install 'samecode[cli]'``: ``rich`` for
the table and progress, ``pathspec`` for ``.gitignore`` rules); without it, it says so in
one line.

>>> import contextlib, io, pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> text = " ".join(f"word{i}" for i in range(60))
>>> _ = (folder / "a.txt").write_text(text)
>>> _ = (folder / "b.txt").write_text(text.replace("word30", "changed"))
>>> out = io.StringIO()
>>> with contextlib.redirect_stdout(out):
...     status = main(["scan", str(folder), "--format", "csv", "--quiet", "--jobs", "1"])

Sixty words make 56 shingles of five; the changed word is in five of them, so the files
share 51 of 61:

>>> status, out.getvalue().splitlines()[1].split(",")[2] == repr(51 / 61)
(0, True)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

from samecode.cli.commands import COMMANDS
from samecode.cli.output import (
    OutputError,
    describe_error,
    one_line,
    silence_stdout,
    to_stdout,
    tolerate_any_name,
)
from samecode.cli.parser import (
    UsageError,
    apply_config,
    apply_profile,
    build_parser,
    load_config,
)
from samecode.engine import terminate_on_sigterm
from samecode.errors import SamecodeError

__all__ = ["OutputError", "UsageError", "main"]

_EXTRA = "the command line needs its extra: pip install 'samecode[cli]'"
#: The parser (kept under its old name).
_parser = build_parser


def _missing_extra() -> bool:
    try:
        import pathspec  # noqa: F401
        import rich  # noqa: F401
    except ImportError:
        return True
    return False


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (``sys.argv[1:]`` by default); return the exit
    status (see the module's description)."""
    try:
        with terminate_on_sigterm():
            return _main(argv)
    except SystemExit as done:
        if done.code != 143:
            raise
        print("samecode: terminated", file=sys.stderr)
        return 143
    except BrokenPipeError:
        silence_stdout()
        return 141
    except KeyboardInterrupt:
        print("samecode: interrupted", file=sys.stderr)
        return 130
    except OutputError as error:
        # What could not be written stays in stdout's buffer: drop it, so that Python's
        # last flush on the way out does not fail again.
        silence_stdout()
        print(f"samecode: cannot write the output: {error.strerror}", file=sys.stderr)
        return 2
    except UsageError as error:
        print(
            one_line(str(error) if str(error).startswith("samecode") else f"samecode: {error}"),
            file=sys.stderr,
        )
        return 2
    except (SamecodeError, OSError, MemoryError) as error:
        if os.environ.get("SAMECODE_DEBUG"):
            raise
        print(one_line(f"samecode: {describe_error(error)}"), file=sys.stderr)
        return 2


def _main(argv: Sequence[str] | None) -> int:
    tolerate_any_name()
    try:
        args = _parser().parse_args(argv)
    except SystemExit as done:  # --help and --version: what they printed must get out
        to_stdout(sys.stdout.flush)
        return int(done.code or 0)
    if _missing_extra():
        raise UsageError(_EXTRA)
    config, where = load_config(Path.cwd())
    apply_config(args, config, where)
    apply_profile(args)
    return COMMANDS[args.command](args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
