"""What a corpus keeps of a file for fragments: one compact record per file, from which
the file's regions with any query are found exactly as between two files on disk.

A record (:func:`encode`, :func:`decode`) holds the file's tokens, the lines each token
starts and ends on, and the positions of its fingerprints (the k-grams robust winnowing
selected); not its text, and no columns. Token ids are kept as a table of the file's
distinct ids (8 bytes each) and, per token, its number in that table (1, 2 or 4 bytes);
lines as differences; the masked ranges (tokens masked as boilerplate,
:mod:`~samecode.fragments.boilerplate`: their first and stop token and their reason); the
whole compressed with zlib. Masked tokens keep their ids, so a region grows through them as
between two files on disk, and their k-grams seed nothing. (Records of the first layout,
``SCF1``, written before 2026-11-27, keep masked tokens as the id 0 and no ranges: their
regions stop at masked text, as they did then.) Decoded, it is a
:class:`~samecode.fragments.tree.FileFingerprints` whose
:class:`~samecode.fragments.tokens.TokenSpans` places every line ``L`` at offset
``(L - 1) * (n + 1)`` of a virtual text (so each token's lines are its own, and the
columns are not kept): :func:`~samecode.fragments.regions.find_regions` then gives, for
a query and a stored file, the regions it gives for the two files on disk, line for line
(the stored file need not exist any more).

>>> from samecode.fragments.options import FragmentOptions
>>> from samecode.fragments.tree import fingerprint_text
>>> text = "".join(f"total_{i} = price_{i} * count\\n" for i in range(20))
>>> found = fingerprint_text("a.py", text, FragmentOptions(k=5, window=4))
>>> back = decode(encode(found), "a.py", k=5)
>>> back.tokens.ids == found.tokens.ids, back.kgrams.selected == found.kgrams.selected
(True, True)
>>> back.tokens.lines(7, 20) == found.tokens.lines(7, 20)
True
"""

from __future__ import annotations

import dataclasses
import struct
import sys
import zlib
from array import array
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from functools import partial
from itertools import accumulate

from samecode._kernels import use_numpy
from samecode._validation import describe
from samecode.corpus.entries import identity
from samecode.engine import Engine, Progress, RunOptions, Serial, progress_counter
from samecode.errors import SamecodeTypeError, SamecodeValueError
from samecode.fragments.boilerplate import BoilerplateFiles, kgram_masks
from samecode.fragments.ignored import REASONS, Ignored
from samecode.fragments.kgrams import Kgrams, mask_kgrams
from samecode.fragments.options import FragmentOptions
from samecode.fragments.tokens import TokenSpans
from samecode.fragments.tree import FileFingerprints, fingerprint_text
from samecode.scan.model import Document
from samecode.scan.pipeline import document_of
from samecode.sources.reading import decode_text, read_bytes
from samecode.sources.skipped import Skipped, too_few_tokens
from samecode.sources.walk import WalkOptions
from samecode.text.shingling import Shingling, kgram_array

__all__ = [
    "LAYOUT",
    "StoredDocument",
    "decode",
    "encode",
    "needed_dictionary",
    "pack_text",
    "read_all_stored",
    "read_stored",
    "read_stored_batches",
    "unpack_text",
]

#: The version of a record's layout (its first bytes say it).
LAYOUT = 1
_MAGIC = b"SCF2"
_MAGIC_1 = b"SCF1"  # no masked ranges: masked tokens stored as the id 0
_HEAD = struct.Struct("<4sIIIB")  # magic, tokens, distinct ids, fingerprints, id width
_MASKS = struct.Struct("<I")  # masked ranges, after the head in SCF2
_WIDTHS = {1: "B", 2: "H", 4: "I"}


def _packed(values: Sequence[int], code: str) -> bytes:
    packed = array(code, values)
    if sys.byteorder == "big":  # pragma: no cover - big-endian machines
        packed.byteswap()
    return packed.tobytes()


def _unpacked(data: bytes, code: str) -> array[int]:
    values = array(code)
    values.frombytes(data)
    if sys.byteorder == "big":  # pragma: no cover - big-endian machines
        values.byteswap()
    return values


def _uint32() -> str:
    return "I" if array("I").itemsize == 4 else "L"  # pragma: no branch


def encode(found: FileFingerprints) -> bytes:
    """A file's record: its tokens, their lines and its fingerprints' positions (see the
    module's description).

    Runtime complexity: ``O(n log lines)`` in C for ``n`` tokens, one dictionary step per
    token, and zlib over about ``3n`` bytes.
    """
    tokens = found.tokens
    table: dict[int, int] = {}
    numbers = [table.setdefault(value, len(table)) for value in tokens.ids]
    width = 1 if len(table) <= 1 << 8 else 2 if len(table) <= 1 << 16 else 4
    line_of = partial(bisect_right, tokens.line_starts)
    starts = list(map(line_of, tokens.starts))
    ends = list(map(line_of, [end - 1 for end in tokens.ends]))
    steps = [line - before for line, before in zip(starts, [1, *starts])]
    selected = found.kgrams.selected
    u32 = _uint32()
    masked = found.ignored
    body = b"".join(
        [
            _HEAD.pack(_MAGIC, len(numbers), len(table), len(selected), width),
            _MASKS.pack(len(masked)),
            _packed([REASONS.index(item.reason) for item in masked], "B"),
            _packed([item.first for item in masked], u32),
            _packed([item.stop for item in masked], u32),
            _packed(list(table), "Q"),
            _packed(numbers, _WIDTHS[width]),
            _packed(steps, u32),
            _packed([end - start for start, end in zip(starts, ends)], u32),
            _packed([p - q for p, q in zip(selected, [0, *selected])], u32),
        ]
    )
    return zlib.compress(body, 6)


def decode(data: bytes, path: str, k: int, *, copies: bool = False) -> FileFingerprints:
    """A record back as the :class:`~samecode.fragments.tree.FileFingerprints` of the
    file at ``path`` (see the module's description), its k-grams of ``k`` tokens, masked
    as :func:`~samecode.fragments.boilerplate.kgram_masks` masks them with ``copies``
    (the corpus's :attr:`~samecode.fragments.options.FragmentOptions.masks_msgid_copies`).

    :raises ValueError: if ``data`` is not a record of this layout, or is damaged.

    Runtime complexity: ``O(n)`` steps for ``n`` tokens, zlib and the k-grams' sort in C.
    """
    try:
        body = zlib.decompress(data)
        magic, count, distinct, chosen, width = _HEAD.unpack_from(body)
    except (zlib.error, struct.error, TypeError) as error:
        raise SamecodeValueError(f"a fragment record of {path!r} is damaged: {error}") from None
    u32 = _uint32()
    at = _HEAD.size
    ranges = 0
    if magic == _MAGIC and len(body) >= at + _MASKS.size:
        (ranges,) = _MASKS.unpack_from(body, at)
        at += _MASKS.size
    sizes = [ranges, 4 * ranges, 4 * ranges]
    sizes += [8 * distinct, width * count, 4 * count, 4 * count, 4 * chosen]
    if magic not in (_MAGIC, _MAGIC_1) or width not in _WIDTHS or len(body) != at + sum(sizes):
        raise SamecodeValueError(f"a fragment record of {path!r} is damaged or of another layout")
    parts = []
    for size, code in zip(sizes, ("B", u32, u32, "Q", _WIDTHS[width], u32, u32, u32)):
        parts.append(_unpacked(body[at : at + size], code))
        at += size
    reasons, firsts, stops, table, numbers, steps, spans, gaps = parts
    if (
        any(number >= distinct for number in numbers)
        or any(reason >= len(REASONS) for reason in reasons)
        or any(not 0 <= first < stop <= count for first, stop in zip(firsts, stops))
    ):
        raise SamecodeValueError(f"a fragment record of {path!r} is damaged")
    ids = array("Q", map(table.__getitem__, numbers))
    starts = list(accumulate(steps, initial=1))[1:]
    width_of_line = count + 1
    virtual_starts = array("q", [(line - 1) * width_of_line + i for i, line in enumerate(starts)])
    virtual_ends = array(
        "q",
        [(line + span - 1) * width_of_line + i + 1 for i, (line, span) in
         enumerate(zip(starts, spans))],
    )  # fmt: skip
    lines = max((line + span for line, span in zip(starts, spans)), default=1)
    line_starts = array("q", range(0, lines * width_of_line, width_of_line))
    tokens = TokenSpans(ids, virtual_starts, virtual_ends, line_starts)
    selected = array("q", list(accumulate(gaps))[:chosen])
    hashes = kgram_array(ids, k)
    if selected and (selected[-1] >= len(hashes) or any(g == 0 for g in gaps[1:])):
        raise SamecodeValueError(f"a fragment record of {path!r} is damaged")
    ignored = tuple(
        Ignored(path, REASONS[reason], *tokens.lines(first, stop), stop - first, first, stop)
        for reason, first, stop in zip(reasons, firsts, stops)
    )
    if ignored:
        mask_kgrams(hashes, kgram_masks(path, ids, ignored, k, copies), k, count)
    return FileFingerprints(path, tokens, Kgrams.selecting(hashes, selected), ignored)


class StoredDocument(tuple[Document, bytes, "array[int]", bytes]):
    """A file read for a corpus that keeps more than its shingles: its
    :class:`~samecode.scan.model.Document`, its record (:func:`encode`; empty where the
    corpus keeps the text instead), its fingerprints (the distinct hashes of the k-grams
    it selected, sorted: what the corpus's index holds of it, the same as :func:`decode`
    of the record gives; empty without fragments) and its bytes as read, compressed
    (:func:`pack_text`; empty where the corpus keeps records)."""

    __slots__ = ()

    @property
    def document(self) -> Document:
        """The file's document."""
        return self[0]

    @property
    def record(self) -> bytes:
        """The file's fragment record."""
        return self[1]

    @property
    def fingerprints(self) -> array[int]:
        """The distinct hashes of the file's fingerprints, sorted."""
        return self[2]

    @property
    def text(self) -> bytes:
        """The file's bytes, compressed (:func:`pack_text`)."""
        return self[3]


def pack_text(data: bytes, dictionary: bytes = b"") -> bytes:
    """A file's bytes as a corpus of format version 4 to 8 keeps them: zlib-compressed
    (:func:`unpack_text` gives them back), in versions 7 and 8 against the corpus's
    ``dictionary`` (:mod:`~samecode.corpus.text_dictionary`), whose strings a text's
    first lines then refer to instead of spelling them out. The zlib stream says whether
    it needs a dictionary, and which (its Adler-32), so a text packed without one reads
    back in any version.

    :param data: the bytes.
    :param dictionary: the corpus's dictionary; empty for none.
    :raises TypeError: if ``data`` or ``dictionary`` is not bytes.

    Runtime complexity: ``O(len(data) + len(dictionary))``, in C.

    >>> unpack_text(pack_text(b"x = 1"), "a.py")
    b'x = 1'
    >>> packed = pack_text(b"import os\\nx = 1", b"import os\\n")
    >>> unpack_text(packed, "a.py", b"import os\\n")
    b'import os\\nx = 1'
    """
    if not isinstance(data, bytes):
        raise SamecodeTypeError(f"data must be bytes; got {describe(data)}")
    if not isinstance(dictionary, bytes):
        raise SamecodeTypeError(f"dictionary must be bytes; got {describe(dictionary)}")
    if not dictionary:
        return zlib.compress(data, 6)
    packer = zlib.compressobj(6, zlib.DEFLATED, 15, 8, zlib.Z_DEFAULT_STRATEGY, dictionary)
    return packer.compress(data) + packer.flush()


def needed_dictionary(packed: bytes) -> int | None:
    """The Adler-32 of the dictionary a text :func:`pack_text` packed needs (from its
    zlib header: FLG's bit 5, then the four bytes of the dictionary's Adler-32, RFC 1950),
    or ``None`` if it needs none. ``-1`` for a header that says it needs one but is cut
    before saying which.

    Runtime complexity: ``O(1)``.

    >>> needed_dictionary(pack_text(b"x = 1")) is None
    True
    >>> needed_dictionary(pack_text(b"x = 1", b"x = ")) == zlib.adler32(b"x = ")
    True
    """
    if len(packed) < 2 or not packed[1] & 0x20:
        return None
    return int.from_bytes(packed[2:6], "big") if len(packed) >= 6 else -1


def unpack_text(packed: bytes, path: str, dictionary: bytes = b"") -> bytes:
    """The bytes :func:`pack_text` packed, against ``dictionary`` where it packed them
    against one.

    :param packed: what :func:`pack_text` gave.
    :param path: the file's path, for the messages.
    :param dictionary: the corpus's dictionary; empty for none.
    :raises TypeError: if ``packed`` is not bytes.
    :raises ValueError: if ``packed`` does not decompress, or needs a dictionary other
        than ``dictionary`` (a damaged text or dictionary).

    >>> unpack_text(pack_text(b"x = 1", b"x = "), "a.py")
    Traceback (most recent call last):
    ...
    samecode.errors.SamecodeValueError: the text of 'a.py' is damaged: it was packed against ...
    """
    if not isinstance(packed, bytes):
        raise SamecodeTypeError(f"the text of {path!r} must be bytes; got {describe(packed)}")
    wanted = needed_dictionary(packed)
    if wanted is not None:
        if not dictionary or wanted != zlib.adler32(dictionary):
            given = "none is given" if not dictionary else "the corpus's differs"
            raise SamecodeValueError(
                f"the text of {path!r} is damaged: it was packed against a dictionary "
                f"(Adler-32 0x{wanted:08x}) and {given}"
            )
        unpacker = zlib.decompressobj(zdict=dictionary)
        try:
            data = unpacker.decompress(packed) + unpacker.flush()
        except zlib.error as error:
            raise SamecodeValueError(f"the text of {path!r} is damaged: {error}") from None
        if not unpacker.eof or unpacker.unused_data:
            raise SamecodeValueError(f"the text of {path!r} is damaged: its stream is cut")
        return data
    try:
        return zlib.decompress(packed)
    except zlib.error as error:
        raise SamecodeValueError(f"the text of {path!r} is damaged: {error}") from None


def _same_tokens(shingling: Shingling, options: FragmentOptions) -> bool:
    """Whether the fragments' tokens are the shingles' (the same kind, normalized or
    not, and not characters): then one tokenization gives both."""
    return (
        shingling.tokens != "chars"
        and shingling.tokens == options.tokens
        and shingling.normalize == options.normalize
    )


def read_stored(
    paths: Sequence[str],
    shingling: Shingling,
    max_size: int | None,
    min_tokens: int,
    options: FragmentOptions | None,
    boilerplate: BoilerplateFiles | None = None,
    text: bool = False,
    dictionary: bytes = b"",
) -> list[StoredDocument | Skipped]:
    """Read a batch of files for a corpus: a stage, as
    :func:`~samecode.scan.pipeline.read_documents` (the same documents, and the same
    files skipped, for the same reasons), each document with its fragment record and
    fingerprints (by ``options``, where given), or, with ``text``, with its fingerprints
    and its bytes compressed (:func:`pack_text`, against ``dictionary``) instead of its
    record. Each document's
    shingles are ascending (an ``array("Q")``), as
    :meth:`Corpus.add <samecode.corpus.store.Corpus.add>` takes them with ``trusted``.

    Runtime complexity: ``O(size)`` per file: its shingles, its fingerprints, its record
    or its compressed bytes; the text is tokenized once where the fragments' tokens are
    the shingles' (as in a corpus).

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.py")
    >>> with open(path, "w") as f:
    ...     _ = f.write(" ".join(f"w{i}" for i in range(40)))
    >>> (item,) = read_stored([path], Shingling(), None, 10, FragmentOptions())
    >>> item.document.tokens, decode(item.record, path, 12).kgrams.selected.tolist()
    (40, [...])
    >>> item.fingerprints.tolist() == sorted(set(decode(item.record, path, 12).fingerprints))
    True
    >>> (kept,) = read_stored([path], Shingling(), None, 10, None, text=True)
    >>> kept.record, len(unpack_text(kept.text, path))
    (b'', 149)
    """
    out: list[StoredDocument | Skipped] = []
    none = array("Q")
    for path in paths:
        data = read_bytes(path, max_size)
        read = data if isinstance(data, Skipped) else decode_text(path, data)
        if isinstance(read, Skipped):
            out.append(read)
            continue
        if text:  # tokenized by the path it is kept under, as its text is again later
            read = dataclasses.replace(read, path=identity(path))
        found = None
        if options is not None and _same_tokens(shingling, options):
            # one tokenization for both: the shingles made of the fragments' token ids
            found = fingerprint_text(read.path, read.text, options, boilerplate)
            tokens, shingles = shingling.measure_ids(found.tokens.ids)
            short = too_few_tokens(path, tokens, min_tokens)
            document = short or Document(read.path, read.size, read.sha256, tokens, shingles)
        else:
            document = document_of(read, shingling, min_tokens)
        if isinstance(document, Skipped):
            out.append(dataclasses.replace(document, path=path))  # as it was found
            continue
        # ascending here, in the workers, so that the corpus need not sort them again
        document = dataclasses.replace(document, shingles=_ascending(document.shingles))
        record, distinct = b"", none
        if options is not None:
            if found is None:
                found = fingerprint_text(read.path, read.text, options, boilerplate)
            distinct = array("Q", sorted(set(found.fingerprints)))
            if not text:
                record = encode(found)
        packed = pack_text(data, dictionary) if text and isinstance(data, bytes) else b""
        out.append(StoredDocument((document, record, distinct, packed)))
    return out


def _ascending(shingles: array[int]) -> array[int]:
    """A document's shingles in ascending order (sorted in C where numpy is there)."""
    if shingles.typecode == "Q" and use_numpy(len(shingles)):
        import samecode._numpy_kernels as fast

        return fast.ascending(shingles)
    return array("Q", sorted(shingles))


def read_stored_batches(
    paths: Sequence[str],
    shingling: Shingling,
    walk: WalkOptions,
    run: RunOptions,
    fragments: FragmentOptions | None,
    progress: Progress | None = None,
    engine: Engine | None = None,
    text: bool = False,
    dictionary: bytes = b"",
) -> Iterator[list[StoredDocument | Skipped]]:
    """Read ``paths`` for a corpus (by the rules of ``shingling``, ``walk`` and
    ``fragments``; with ``text``, each file's bytes kept, compressed against
    ``dictionary``), in batches of
    ``run.batch_size`` (:func:`~samecode.corpus.records.read_stored`), on ``engine``
    (this process by default), and yield each batch's results as it comes, in the order
    of ``paths`` whatever the engine: what is done with one batch is done while the engine
    reads on.

    Runtime complexity: ``O(size)`` per file.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.py")
    >>> with open(path, "w") as f:
    ...     _ = f.write(" ".join(f"w{i}" for i in range(40)))
    >>> [[item.document.tokens for item in batch] for batch in read_stored_batches(
    ...     [path], Shingling(), WalkOptions(), RunOptions(), FragmentOptions())]
    [[40]]
    """
    rules = (shingling, walk.max_size, walk.min_tokens, fragments)
    tasks = [(batch, *rules, None, text, dictionary) for batch in run.batches(paths)]
    tick = progress_counter(progress, "read", len(paths))
    for task, read in zip(tasks, (engine or Serial()).map(read_stored, tasks)):
        tick(len(task[0]))
        yield read


def read_all_stored(
    paths: Sequence[str],
    shingling: Shingling,
    walk: WalkOptions,
    run: RunOptions,
    fragments: FragmentOptions,
    progress: Progress | None = None,
    engine: Engine | None = None,
) -> tuple[list[Document], list[Skipped], dict[str, bytes]]:
    """Read ``paths`` for a corpus that stores fragments (:func:`read_stored_batches`):
    the documents, the files skipped, and each document's fragment record by path, in
    the order of ``paths`` whatever the engine.

    Runtime complexity: ``O(size)`` per file.
    """
    documents: list[Document] = []
    skipped: list[Skipped] = []
    records: dict[str, bytes] = {}
    for read in read_stored_batches(paths, shingling, walk, run, fragments, progress, engine):
        for item in read:
            if isinstance(item, StoredDocument):
                documents.append(item.document)
                records[item.document.path] = item.record
            else:
                skipped.append(item)
    return documents, skipped, records
