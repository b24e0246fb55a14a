"""The former home of :mod:`samecode.text.tokens`, kept so that existing imports and
pickles go on working; new code imports from :mod:`samecode.text.tokens`."""

from samecode.text.tokens import (
    char_shingles,
    code_tokens,
    decode,
    words,
)

__all__ = [
    "char_shingles",
    "code_tokens",
    "decode",
    "words",
]
