"""Text into tokens: words, code tokens (with each language's comments), character
shingles, and the decoding of bytes (:mod:`samecode.text.tokens`); which language a file
is in, by its name (:mod:`samecode.text.languages`).

>>> from samecode.text import code_tokens
>>> list(code_tokens("x = f(y)  # why"))
['x', '=', 'f', '(', 'y', ')']
"""

from samecode.text.languages import Language, language_of
from samecode.text.tokens import char_shingles, code_tokens, decode, words

__all__ = ["Language", "char_shingles", "code_tokens", "decode", "language_of", "words"]
