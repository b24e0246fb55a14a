"""A Spark session for samecode's jobs: the master from the caller, ``SPARK_MASTER`` or
``local[*]``, the executors running this Python.

>>> spark = session("local[2]")
>>> spark.sparkContext.master
'local[2]'
"""

from __future__ import annotations

import os
import sys
from typing import Any

from samecode._validation import describe
from samecode.errors import SamecodeTypeError

__all__ = ["master_of", "session"]


def master_of(master: str | None = None) -> str:
    """The master a job runs on: ``master``, else ``$SPARK_MASTER``, else ``local[*]``.

    >>> master_of("local[2]")
    'local[2]'
    """
    if master is not None and not isinstance(master, str):
        raise SamecodeTypeError(f"master must be a str; got {describe(master)}")
    return master or os.environ.get("SPARK_MASTER") or "local[*]"


def session(master: str | None = None, shuffle_partitions: int | None = None) -> Any:
    """The active Spark session, or a new one on :func:`master_of` ``(master)`` (no web
    UI, warnings and errors only in the log). Python workers run the interpreter that
    runs this (unless ``PYSPARK_PYTHON`` says otherwise).

    :param master: a Spark master URL (``local[2]``, ``spark://host:7077``, ``yarn``).
    :param shuffle_partitions: ``spark.sql.shuffle.partitions`` of a new session.
    :raises ImportError: without pyspark (``pip install samecode[spark]``).
    """
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master(master_of(master))
        .appName("samecode")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
    )
    if shuffle_partitions is not None:
        builder = builder.config("spark.sql.shuffle.partitions", str(shuffle_partitions))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
