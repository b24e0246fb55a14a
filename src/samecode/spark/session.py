"""A Spark session for samecode's jobs: the master from the caller, ``SPARK_MASTER`` or
``local[*]``, the executors running this Python, and the driver's memory from the caller
or ``SPARK_DRIVER_MEMORY``.

A session that cannot start says why in one :class:`SparkStartError` (no Java, a Java too
old for the installed pyspark, a standalone master that cannot be reached, a JVM that
exited), and a master that is not one Spark takes is refused before anything starts.
Spark's own log (the JVM's output) goes to a file, ``$SAMECODE_SPARK_LOG`` or a temporary
one removed at exit unless an error names it; ``SAMECODE_SPARK_LOG=-`` leaves it on the
terminal.

>>> spark = session("local[2]")
>>> spark.sparkContext.master
'local[2]'
>>> memory_of("4g"), memory_of("1536m")
('4g', '1536m')
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import socket
import sys
import tempfile
from importlib import metadata
from typing import IO, Any

from samecode._validation import describe
from samecode.errors import SamecodeError, SamecodeTypeError, SamecodeValueError

__all__ = ["CONNECT_TIMEOUT", "SparkStartError", "master_of", "memory_of", "session"]


class SparkStartError(SamecodeError, RuntimeError):
    """Spark could not start: no Java, a Java too old, a master that cannot be reached or
    did not take the application, or a JVM that exited; the message says which, and where
    Spark's log is."""


# A JVM's memory size as Spark reads it: a whole number and a unit (k, m, g, t).
_MEMORY = re.compile(r"[1-9][0-9]{0,8}[kmgt]", re.ASCII | re.IGNORECASE)


# The master URLs Spark takes (SparkContext.createTaskScheduler, and the cluster managers
# pyspark bundles): a local master with N threads (N >= 1) and F task failures allowed,
# a local cluster of N workers of C cores and M MiB, standalone masters, YARN, Kubernetes.
_ADDRESS = re.compile(r"(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):([0-9]{1,5})", re.ASCII)
_MASTER = re.compile(
    r"local(?:\[(?:[1-9][0-9]*|\*)(?:\s*,\s*[0-9]+)?\])?"
    r"|local-cluster\[\s*[0-9]+\s*,\s*[0-9]+\s*,\s*[0-9]+\s*\]"
    r"|spark://.*|yarn|k8s://\S+",
    re.ASCII,
)
# Mesos went with Spark 4.
_MESOS = re.compile(r"mesos://\S+", re.ASCII)
#: Seconds a standalone master's address is tried before the start gives up (Spark's own
#: registration waits 3 x 20 s, fixed in its StandaloneAppClient, not a setting).
CONNECT_TIMEOUT = 10.0


def _pyspark_version() -> tuple[int, int] | None:
    try:
        found = re.match(r"([0-9]+)\.([0-9]+)", metadata.version("pyspark"))
    except metadata.PackageNotFoundError:
        return None
    return (int(found[1]), int(found[2])) if found else None


def _addresses(master: str) -> list[tuple[str, int]] | None:
    """The host and port of each standalone master of ``spark://HOST:PORT[,HOST:PORT]``,
    ``None`` if one is not such an address."""
    found = [_ADDRESS.fullmatch(part) for part in master[len("spark://") :].split(",")]
    if not all(found) or any(int(part[2]) > 65535 for part in found if part):
        return None
    return [(part[1].strip("[]"), int(part[2])) for part in found if part]


def master_of(master: str | None = None) -> str:
    """The master a job runs on: ``master``, else ``$SPARK_MASTER``, else ``local[*]``,
    checked to be a master URL Spark takes: ``local``, ``local[N]``, ``local[*]``,
    ``local[N,F]`` (``F`` task failures allowed), ``local-cluster[N,C,M]``,
    ``spark://HOST:PORT`` (standalone; several masters comma-separated), ``yarn``,
    ``k8s://URL``, and ``mesos://URL`` with pyspark 3.

    :raises TypeError: if ``master`` is not a str; ``ValueError`` if it (or the
        environment's) is not such a URL.

    >>> master_of("local[2]"), master_of("spark://head-1:7077,head-2:7077")
    ('local[2]', 'spark://head-1:7077,head-2:7077')
    >>> try:
    ...     master_of("foo://bar")
    ... except ValueError as error:
    ...     print(error)
    the Spark master must be local, local[N], local[*], ..., yarn or k8s://URL; got 'foo://bar'
    """
    if master is not None and not isinstance(master, str):
        raise SamecodeTypeError(f"master must be a str; got {describe(master)}")
    chosen = master or os.environ.get("SPARK_MASTER") or "local[*]"
    mesos = (_pyspark_version() or (4, 0)) < (4, 0)
    if _MASTER.fullmatch(chosen) and (
        not chosen.startswith("spark://") or _addresses(chosen) is not None
    ):
        return chosen
    if mesos and _MESOS.fullmatch(chosen):
        return chosen
    forms = ["local", "local[N]", "local[*]", "local[N,F]", "local-cluster[N,C,M]"]
    forms += ["spark://HOST:PORT[,HOST:PORT...]", "yarn", "k8s://URL"]
    forms += ["mesos://URL"] if mesos else []
    where = "" if master else " (from SPARK_MASTER)"
    raise SamecodeValueError(
        f"the Spark master must be {', '.join(forms[:-1])} or {forms[-1]}; got {chosen!r}{where}"
    )


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


def _java_needed() -> str:
    version = _pyspark_version()
    if version is None or version >= (4, 0):
        return "Java 17 or later"
    return "Java 8, 11 or 17" if version >= (3, 3) else "Java 8 or 11"


def _pyspark_named() -> str:
    try:
        return f"pyspark {metadata.version('pyspark')}"
    except metadata.PackageNotFoundError:  # pragma: no cover - pyspark from a path
        return "pyspark"


def _check_java() -> str:
    """The java Spark's launcher will run (``$JAVA_HOME/bin/java``, else ``java`` on the
    ``PATH``), or :class:`SparkStartError` saying there is none and which Java pyspark
    needs."""
    home = os.environ.get("JAVA_HOME")
    needed = f"{_pyspark_named()} needs {_java_needed()}"
    if home:
        java = shutil.which(os.path.join(home, "bin", "java"))
        if java is None:
            raise SparkStartError(f"Java was not found: JAVA_HOME={home} has no bin/java; {needed}")
        return java
    java = shutil.which("java")
    if java is None:
        raise SparkStartError(
            f"Java was not found (no java on PATH and JAVA_HOME is not set); {needed}"
        )
    return java


def _reach(master: str) -> None:
    """:class:`SparkStartError` unless one standalone master of ``master`` takes a
    connection within :data:`CONNECT_TIMEOUT` seconds (each address in turn, once its
    name is resolved)."""
    failed = []
    for host, port in _addresses(master) or []:
        try:
            with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT):
                return
        except OSError as error:
            reason = "timed out" if isinstance(error, TimeoutError) else error.strerror
            failed.append(f"{host}:{port}: {reason or error}")
    if failed:
        raise SparkStartError(f"cannot reach the Spark master {master} ({'; '.join(failed)})")


# Temporary folders of Spark's logs, removed at exit unless an error names them.
_TEMPORARY: list[str] = []


@atexit.register
def _remove_temporary() -> None:
    for folder in _TEMPORARY:
        shutil.rmtree(folder, ignore_errors=True)


def _open_log() -> tuple[IO[bytes] | None, str | None]:
    """The file the JVM writes to and its path: ``$SAMECODE_SPARK_LOG`` (appended), else
    one in a new temporary folder; ``(None, None)`` for this process's own outputs
    (``SAMECODE_SPARK_LOG=-``)."""
    chosen = os.environ.get("SAMECODE_SPARK_LOG")
    if chosen == "-":
        return None, None
    if chosen:
        try:
            return open(chosen, "ab"), chosen  # closed by the caller
        except OSError as error:
            raise SparkStartError(
                f"cannot write Spark's log to {chosen} (SAMECODE_SPARK_LOG): {error.strerror}"
            ) from None
    folder = tempfile.mkdtemp(prefix="samecode-spark-")
    _TEMPORARY.append(folder)
    path = os.path.join(folder, "spark.log")
    return open(path, "ab"), path  # closed by the caller


def _failure(path: str | None, start: int) -> tuple[str, str]:
    """What the log says since ``start``: its text, and the first line that reads as an
    error (a log4j ERROR or an exception's first line, its timestamp and logger dropped;
    the first, as the cause comes before what it makes fail), else its last line."""
    if path is None:
        return "", ""
    try:
        with open(path, "rb") as log:
            log.seek(start)
            text = log.read().decode("utf-8", "replace")
    except OSError:
        return "", ""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [
        line
        for line in lines
        if " ERROR " in line or re.match(r"(Error|Exception|[\w.$]+(Error|Exception))\b", line)
    ]
    first = errors[0] if errors else (lines or [""])[-1]
    return text, re.sub(r"^[0-9/]+ [0-9:]+ ERROR \S+: ", "", first)[:300]


def _failed(message: str, path: str | None) -> SparkStartError:
    """The error, naming the log that is now kept."""
    if path is None:
        return SparkStartError(message)
    folder = os.path.dirname(path)
    if folder in _TEMPORARY:
        _TEMPORARY.remove(folder)
    return SparkStartError(f"{message} (Spark's log: {path})")


def _start(options: dict[str, Any], master: str) -> Any:
    """A new session on ``master``: Java looked for, a standalone master's address tried,
    the JVM started writing to its log (:func:`_open_log`)."""
    from py4j.protocol import Py4JJavaError
    from pyspark import SparkConf, SparkContext, java_gateway
    from pyspark.sql import SparkSession

    java = _check_java()
    _reach(master)
    log, path = _open_log()
    start = log.tell() if log is not None else 0
    try:
        # The JVM's output goes to the log, not to this process's stdout (which carries
        # reports) or stderr; its options are spark-submit's, fixed now.
        conf = SparkConf().setAll(list(options.items()))
        redirect = None if log is None else {"stdout": log, "stderr": log}
        launch: Any = java_gateway.launch_gateway  # (untyped)
        gateway = launch(conf, popen_kwargs=redirect)
    except RuntimeError:  # pyspark's JAVA_GATEWAY_EXITED
        text, said = _failure(path, start)
        if "UnsupportedClassVersionError" in text:
            raise _failed(
                f"the Java found ({java}) is too old: {_pyspark_named()} needs {_java_needed()}",
                path,
            ) from None
        raise _failed(
            f"Spark's JVM exited before it started{': ' + said if said else ''}", path
        ) from None
    finally:
        if log is not None:
            log.close()
    SparkContext._ensure_initialized(gateway=gateway)
    try:
        return SparkSession.builder.config(map=options).getOrCreate()
    except Py4JJavaError as error:
        _, said = _failure(path, start)
        reason = said or str(error.java_exception).splitlines()[0]
        raise _failed(f"Spark did not start on {master}: {reason}", path) from None


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

    :param master: a Spark master URL (``local[2]``, ``spark://host:7077``, ``yarn``:
        :func:`master_of`).
    :param shuffle_partitions: ``spark.sql.shuffle.partitions`` of a new session.
    :param driver_memory: the driver's heap (:func:`memory_of`: this, else
        ``$SPARK_DRIVER_MEMORY``, else Spark's 1 GiB).
    :raises ImportError: without pyspark (``pip install samecode[spark]``).
    :raises TypeError, ValueError: for a bad ``master`` or ``driver_memory``;
        ``ValueError`` if the memory is given and differs from the driver's of a session
        already running (which cannot change).
    :raises SparkStartError: if a new session cannot start: no Java (``JAVA_HOME``, else
        ``java`` on the ``PATH``), a Java too old for pyspark, a standalone master whose
        address takes no connection within :data:`CONNECT_TIMEOUT` seconds, or a JVM
        that exited or a master that did not take the application (the message names
        Spark's log, kept).
    """
    memory = memory_of(driver_memory)
    chosen = master_of(master)
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
    options: dict[str, Any] = {
        "spark.master": chosen,
        "spark.app.name": "samecode",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
    }
    if memory is not None:
        options["spark.driver.memory"] = memory
    if shuffle_partitions is not None:
        options["spark.sql.shuffle.partitions"] = str(shuffle_partitions)
    if SparkContext._gateway is None and "PYSPARK_GATEWAY_PORT" not in os.environ:
        spark = _start(options, chosen)
    else:  # a JVM already runs this process's Spark (a session here, or spark-submit's)
        spark = SparkSession.builder.config(map=options).getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
