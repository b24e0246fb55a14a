"""What pytest leaves out where an extra is missing: the Spark engine's examples (its
modules and page) without pyspark (``tox -e spark`` runs them)."""

import importlib.util

collect_ignore_glob = []
if importlib.util.find_spec("pyspark") is None:
    collect_ignore_glob += ["src/samecode/spark/*.py", "docs/spark.rst"]
