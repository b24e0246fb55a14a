"""The former home of :mod:`samecode.hamming.plan`, kept so that existing imports and
pickles go on working; new code imports from :mod:`samecode.hamming.plan`."""

from samecode.hamming.plan import (
    MAX_TABLES,
    MAX_WIDTH,
    Plan,
    batch_key_bits,
    choose_plan,
    covering_tables,
    dense_table,
    even_blocks,
    key_of,
    keys_of,
    resolve_plan,
    table_bytes,
)

__all__ = [
    "MAX_TABLES",
    "MAX_WIDTH",
    "Plan",
    "batch_key_bits",
    "choose_plan",
    "covering_tables",
    "dense_table",
    "even_blocks",
    "key_of",
    "keys_of",
    "resolve_plan",
    "table_bytes",
]
