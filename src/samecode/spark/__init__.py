"""``samecode scan`` on Apache Spark, with the answers of one machine (``pip install
samecode[spark]``; Spark needs a Java runtime).

* :mod:`~samecode.spark.job`: :func:`scan_files` (trees, walked by the scan's rules) and
  :func:`scan_dataframe` (a DataFrame of paths and contents), each returning DataFrames
  of pairs, classes and a keep/remove list (:class:`SparkScan`);
* :mod:`~samecode.spark.components`: connected components in plain RDD operations;
* :mod:`~samecode.spark.session`: a session on a master from the caller or
  ``SPARK_MASTER`` (:class:`SparkStartError` when it cannot start).

Nothing here imports pyspark until a job runs.

>>> sorted(name for name in __all__ if name.startswith("scan"))
['scan_dataframe', 'scan_documents', 'scan_files']
"""

from samecode.spark.components import connected_components
from samecode.spark.job import (
    CLASS_SCHEMA,
    DECISION_SCHEMA,
    DOCUMENTS_PER_PARTITION,
    PAIR_SCHEMA,
    SKIPPED_SCHEMA,
    Collected,
    SparkScan,
    path_id,
    scan_dataframe,
    scan_documents,
    scan_files,
)
from samecode.spark.session import SparkStartError, master_of, session

__all__ = [
    "CLASS_SCHEMA",
    "DECISION_SCHEMA",
    "DOCUMENTS_PER_PARTITION",
    "PAIR_SCHEMA",
    "SKIPPED_SCHEMA",
    "Collected",
    "SparkScan",
    "SparkStartError",
    "connected_components",
    "master_of",
    "path_id",
    "scan_dataframe",
    "scan_documents",
    "scan_files",
    "session",
]
