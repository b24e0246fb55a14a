"""A corpus of known files in one SQLite file, above the scan and the fragments it serves:
the store (:mod:`samecode.corpus.store`: create, open, add, remove, match, check), what
it was made with (:mod:`samecode.corpus.settings`), how it finds candidates
(:mod:`samecode.corpus.candidates`), bringing it up to date with files on disk
(:mod:`samecode.corpus.sync`), the fragment records it keeps of each file
(:mod:`samecode.corpus.records`), and fragments matched against it
(:mod:`samecode.corpus.fragments`).

>>> import os, tempfile
>>> from samecode.corpus import Corpus
>>> with Corpus.create(os.path.join(tempfile.mkdtemp(), "known.db")) as corpus:
...     len(corpus)
0
"""

from samecode.corpus.entries import StoredFile
from samecode.corpus.settings import CorpusSettings, CorpusSettingsError
from samecode.corpus.store import Corpus
from samecode.corpus.sync import SyncReport

__all__ = ["Corpus", "CorpusSettings", "CorpusSettingsError", "StoredFile", "SyncReport"]
