"""The ``samecode`` command: fingerprint files and compare two texts.

``samecode fingerprint FILE...`` prints one halo hash per file; ``samecode compare A B``
prints both and how far apart they are. A text's features are its words (runs of
non-white-space bytes), or with ``--ngram N`` its runs of ``N`` consecutive words.

>>> import contextlib, io, pathlib, tempfile
>>> with tempfile.TemporaryDirectory() as tmp:
...     a, b = pathlib.Path(tmp, "a.txt"), pathlib.Path(tmp, "b.txt")
...     _ = a.write_text("the quick brown fox jumps over the lazy dog")
...     _ = b.write_text("the quick brown fox jumps over the lazy cat")
...     out = io.StringIO()
...     with contextlib.redirect_stdout(out):
...         status = main(["compare", str(a), str(b), "--size", "64"])
>>> status
0
>>> "similarity" in out.getvalue()
True
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

from samecode import __version__
from samecode.chunking import ngrams
from samecode.halohash import SIZES_IN_BITS, BitAverageHaloHash

__all__ = ["features", "fingerprint_file", "main"]


def features(data: bytes, ngram: int = 1) -> Iterator[bytes]:
    """Return the features of a text: its words, or its runs of ``ngram`` words.

    Words are runs of bytes between ASCII white space; an ngram is its words joined by
    one space, so that re-flowed text keeps its features.

    :raises ValueError: if ``ngram`` < 1.

    >>> list(features(b"a  b\\nc"))
    [b'a', b'b', b'c']
    >>> list(features(b"a b c", ngram=2))
    [b'a b', b'b c']
    """
    if ngram < 1:
        raise ValueError(f"ngram must be >= 1; got {ngram!r}")
    words = data.split()
    if ngram == 1:
        return iter(words)
    return (b" ".join(gram) for gram in ngrams(words, ngram))


def fingerprint_file(
    path: str | Path, size_in_bits: int = 128, ngram: int = 1
) -> BitAverageHaloHash:
    """Return the halo hash of a file's features (see :func:`features`).

    :raises OSError: if the file cannot be read.
    :raises ValueError: for an unsupported size or ``ngram`` < 1.
    """
    return BitAverageHaloHash(features(Path(path).read_bytes(), ngram), size_in_bits=size_in_bits)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="samecode",
        description="Find near-duplicate text and code with halo hashes.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--size",
        type=int,
        default=128,
        choices=SIZES_IN_BITS,
        help="hash size in bits (default 128)",
    )
    common.add_argument(
        "--ngram", type=int, default=1, metavar="N", help="features are runs of N words (default 1)"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    fp = commands.add_parser(
        "fingerprint", parents=[common], help="print the halo hash of each file"
    )
    fp.add_argument("files", nargs="+", type=Path, metavar="FILE")
    cmp = commands.add_parser("compare", parents=[common], help="compare two files")
    cmp.add_argument("first", type=Path, metavar="A")
    cmp.add_argument("second", type=Path, metavar="B")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0 ok, 2 bad usage or unreadable file)."""
    parser = _parser()
    args = parser.parse_args(argv)
    if args.ngram < 1:
        parser.error(f"--ngram must be >= 1; got {args.ngram}")
    paths = args.files if args.command == "fingerprint" else [args.first, args.second]
    hashes = []
    for path in paths:
        try:
            hashes.append(fingerprint_file(path, args.size, args.ngram))
        except OSError as error:
            print(f"samecode: cannot read {path}: {error.strerror or error}", file=sys.stderr)
            return 2
    for path, h in zip(paths, hashes):
        print(f"{h.hexdigest().decode()}  {path}  ({h.elements_count} features)")
    if args.command == "compare":
        distance = hashes[0].distance(hashes[1])
        print(
            f"distance: {distance} of {args.size} bits; similarity {1 - distance / args.size:.3f}"
        )
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
