"""What the Spark engine checks before it starts anything (no pyspark needed): the master
URL is one Spark takes, and Java is there, or a clear error says which Java pyspark
needs. The start itself is tested as processes in tests/spark/test_start.py."""

from __future__ import annotations

import importlib
import re

import pytest

from samecode.errors import SamecodeError, SamecodeTypeError, SamecodeValueError
from samecode.spark import SparkStartError, master_of

# The module (the package's ``session`` is the function).
module = importlib.import_module("samecode.spark.session")

ACCEPTED = [
    "local",
    "local[1]",
    "local[16]",
    "local[*]",
    "local[4,2]",
    "local[*, 3]",
    "local-cluster[2, 1, 1024]",
    "spark://head:7077",
    "spark://10.0.0.1:7077,10.0.0.2:7077",
    "spark://[::1]:7077",
    "yarn",
    "k8s://https://api.example:6443",
    "k8s://api.example:443",
]
REFUSED = [
    "foo://bar",
    "local[0]",
    "local[]",
    "local[-1]",
    "local[2]x",
    "Local",
    "spark://",
    "spark://head",
    "spark://head:",
    "spark://head:70000",
    "spark://head:7077,",
    "spark://head:7077/path",
    "yarn-client",
    "k8s://",
    "mesos://head:5050",
    " local",
]


@pytest.mark.parametrize("master", ACCEPTED)
def test_a_master_spark_takes_is_kept(master, monkeypatch):
    monkeypatch.setenv("SPARK_MASTER", "junk")  # the argument wins
    assert master_of(master) == master


@pytest.mark.parametrize("master", REFUSED)
def test_a_master_spark_does_not_take_is_refused_clearly(master, monkeypatch):
    monkeypatch.setattr(module, "_pyspark_version", lambda: (4, 0))
    with pytest.raises(
        SamecodeValueError,
        match=r"the Spark master must be local, .*" + re.escape(repr(master)) + "$",
    ):
        master_of(master)


def test_the_master_comes_from_the_environment_else_every_local_core(monkeypatch):
    monkeypatch.delenv("SPARK_MASTER", raising=False)
    assert master_of() == "local[*]"
    monkeypatch.setenv("SPARK_MASTER", "spark://head:7077")
    assert master_of() == "spark://head:7077"
    monkeypatch.setenv("SPARK_MASTER", "head:7077")
    with pytest.raises(SamecodeValueError, match=r"got 'head:7077' \(from SPARK_MASTER\)$"):
        master_of()
    with pytest.raises(SamecodeTypeError, match="master must be a str"):
        master_of(7077)  # type: ignore[arg-type]


def test_mesos_is_a_master_of_pyspark_3_only(monkeypatch):
    monkeypatch.setattr(module, "_pyspark_version", lambda: (3, 5))
    assert master_of("mesos://head:5050") == "mesos://head:5050"
    with pytest.raises(SamecodeValueError, match=r"yarn, k8s://URL or mesos://URL; got"):
        master_of("foo://bar")
    monkeypatch.setattr(module, "_pyspark_version", lambda: (4, 1))
    with pytest.raises(SamecodeValueError, match=r"yarn or k8s://URL; got 'mesos://head:5050'"):
        master_of("mesos://head:5050")


@pytest.mark.parametrize(
    ("version", "needed"),
    [((4, 0), "Java 17 or later"), ((3, 5), "Java 8, 11 or 17"), ((3, 2), "Java 8 or 11")],
)
def test_without_java_the_error_says_which_java_pyspark_needs(
    version, needed, tmp_path, monkeypatch
):
    monkeypatch.setattr(module, "_pyspark_version", lambda: version)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SparkStartError, match=f"no java on PATH.* needs {needed}$") as caught:
        module._check_java()
    assert isinstance(caught.value, SamecodeError)
    assert isinstance(caught.value, RuntimeError)
