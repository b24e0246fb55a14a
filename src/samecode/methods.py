"""The former home of :mod:`samecode.scan.candidates`, kept so that existing imports and
pickles go on working; new code imports from :mod:`samecode.scan.candidates`."""

from samecode.scan.candidates import (
    Method,
    default_lsh_threshold,
    loose_distance,
    method,
    method_names,
)

__all__ = [
    "Method",
    "default_lsh_threshold",
    "loose_distance",
    "method",
    "method_names",
]
