"""A corpus of known files in one SQLite file, above the scan and the fragments it serves:
the store (:mod:`samecode.corpus.store`: create, open, add, sync, match, check), the
fragment records it keeps of each file (:mod:`samecode.corpus.records`), and fragments
matched against it (:mod:`samecode.corpus.fragments`).

>>> import os, tempfile
>>> from samecode.corpus import Corpus
>>> with Corpus.create(os.path.join(tempfile.mkdtemp(), "known.db")) as corpus:
...     len(corpus)
0
"""

from samecode.corpus.store import Corpus, StoredFile, SyncReport

__all__ = ["Corpus", "StoredFile", "SyncReport"]
