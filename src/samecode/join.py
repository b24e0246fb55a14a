"""The former home of :mod:`samecode.scan.join`, kept so that existing imports and
pickles go on working; new code imports from :mod:`samecode.scan.join`."""

from samecode.scan.join import (
    MEASURES,
    distinct_sets,
    prefix_candidates,
    reaches,
    verify,
)

__all__ = [
    "MEASURES",
    "distinct_sets",
    "prefix_candidates",
    "reaches",
    "verify",
]
