"""A Spark session for samecode's jobs: the master from the caller, ``SPARK_MASTER`` or
``local[*]``, the executors running this Python, and the driver's memory from the caller
or ``SPARK_DRIVER_MEMORY``.

>>> spark = session("local[2]")
>>> spark.sparkContext.master
'local[2]'
>>> memory_of("4g"), memory_of("1536m")
('4g', '1536m')
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

from samecode._validation import describe
from samecode.errors import SamecodeTypeError, SamecodeValueError

__all__ = ["master_of", "memory_of", "session"]

# A JVM's memory size as Spark reads it: a whole number and a unit (k, m, g, t).
_MEMORY = re.compile(r"[1-9][0-9]{0,8}[kmgt]", re.ASCII | re.IGNORECASE)


def master_of(master: str | None = None) -> str:
    """The master a job runs on: ``master``, else ``$SPARK_MASTER``, else ``local[*]``.

    >>> master_of("local[2]")
    'local[2]'
    """
    if master is not None and not isinstance(master, str):
        raise SamecodeTypeError(f"master must be a str; got {describe(master)}")
    return master or os.environ.get("SPARK_MASTER") or "local[*]"


def memory_of(memory: str | None = None) -> str | None:
    """The driver's memory a new session asks for: ``memory``, else
    ``$SPARK_DRIVER_MEMORY``, else ``None`` (Spark's default, 1 GiB), checked to be a
    size as Spark writes it (a whole number and ``k``, ``m``, ``g`` or ``t``).

    :param memory: such as ``"4g"`` or ``"1536m"``.
    :raises TypeError: if ``memory`` is not a str; ``ValueError`` if it (or the
        environment's) is not such a size.

    >>> memory_of("8G")
    '8G'
    >>> try:
    ...     memory_of("4 GB")
    ... except ValueError as error:
    ...     print(error)
    the driver's memory must be a whole number and k, m, g or t (such as '4g'); got '4 GB'
    """
    if memory is not None and not isinstance(memory, str):
        raise SamecodeTypeError(f"driver memory must be a str such as '4g'; got {describe(memory)}")
    chosen = memory if memory is not None else os.environ.get("SPARK_DRIVER_MEMORY") or None
    if chosen is not None and not _MEMORY.fullmatch(chosen):
        where = "" if memory is not None else " (from SPARK_DRIVER_MEMORY)"
        raise SamecodeValueError(
            "the driver's memory must be a whole number and k, m, g or t (such as '4g'); "
            f"got {chosen!r}{where}"
        )
    return chosen


def _bytes(memory: str) -> int:
    return int(memory[:-1]) << (10 * "kmgt".index(memory[-1].lower()) + 10)


def session(
    master: str | None = None,
    shuffle_partitions: int | None = None,
    *,
    driver_memory: str | None = None,
) -> Any:
    """The active Spark session, or a new one on :func:`master_of` ``(master)`` (no web
    UI, warnings and errors only in the log). Python workers run the interpreter that
    runs this (unless ``PYSPARK_PYTHON`` says otherwise).

    The driver's memory (``spark.driver.memory``) is fixed when its JVM starts: it is set
    by the first session of the process. On a local master (``local[N]``) the executors
    are threads of that JVM and share its heap, so this is the memory of the whole job.

    :param master: a Spark master URL (``local[2]``, ``spark://host:7077``, ``yarn``).
    :param shuffle_partitions: ``spark.sql.shuffle.partitions`` of a new session.
    :param driver_memory: the driver's heap (:func:`memory_of`: this, else
        ``$SPARK_DRIVER_MEMORY``, else Spark's 1 GiB).
    :raises ImportError: without pyspark (``pip install samecode[spark]``).
    :raises TypeError, ValueError: for a bad ``driver_memory``; ``ValueError`` if it is
        given and differs from the driver's of a session already running (which cannot
        change).
    """
    memory = memory_of(driver_memory)
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    running = SparkContext._active_spark_context
    if driver_memory is not None and running is not None:
        now = (
            running.getConf().get("spark.driver.memory")
            or os.environ.get("SPARK_DRIVER_MEMORY")
            or "1g"
        )
        if not _MEMORY.fullmatch(now) or _bytes(now) != _bytes(driver_memory):
            raise SamecodeValueError(
                f"the driver's memory is fixed when its JVM starts: this process runs one "
                f"with {now}; got {driver_memory!r} (stop that session first, or set it in "
                f"a new process)"
            )
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (
        SparkSession.builder.master(master_of(master))
        .appName("samecode")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
    )
    if memory is not None:
        builder = builder.config("spark.driver.memory", memory)
    if shuffle_partitions is not None:
        builder = builder.config("spark.sql.shuffle.partitions", str(shuffle_partitions))
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
