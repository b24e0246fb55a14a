"""The former home of :mod:`samecode.scan.shingling`, kept so that existing imports and
pickles go on working; new code imports from :mod:`samecode.scan.shingling`."""

from samecode.scan.shingling import (
    TOKEN_KINDS,
    Shingling,
    exact_threshold,
    jaccard,
    shingle_hash,
    token_id,
)

__all__ = [
    "TOKEN_KINDS",
    "Shingling",
    "exact_threshold",
    "jaccard",
    "shingle_hash",
    "token_id",
]
