"""Virtual environments for the peers that benchmarks and cross-checks compare against.

A peer such as SameCode 0.5.1 has the import name ``samecode``, like this project, so it
can never share an environment with us: each peer gets a virtual environment of its own
under ``.bench-venvs/`` at the top of the repository, made on first use and reused after.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

__all__ = ["HERE", "peer_python", "run_worker"]

HERE = Path(__file__).resolve().parent
_VENVS = HERE.parent / ".bench-venvs"


def peer_python(name: str, requirement: str) -> Path:
    """Return the interpreter of a virtual environment holding ``requirement``."""
    home = _VENVS / name
    python = home / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    marker = home / ".installed"
    if marker.exists() and marker.read_text() == requirement:
        return python
    print(f"[setting up {requirement} in {home}]", file=sys.stderr)
    venv.EnvBuilder(with_pip=True, clear=True).create(home)
    subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", requirement],
        check=True,
    )
    marker.write_text(requirement)
    return python


def run_worker(python: Path | str, request: dict[str, Any], script: str = "_worker.py") -> Any:
    """Run ``script`` under ``python`` with ``request`` and return its JSON answer.

    The worker runs from this folder with the interpreter's isolated-mode rules (no
    current directory on ``sys.path``), so it imports whichever ``samecode`` that
    interpreter has installed.
    """
    result = subprocess.run(
        [str(python), "-I", str(HERE / script)],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode:
        raise RuntimeError(f"worker under {python} failed:\n{result.stderr}")
    return json.loads(result.stdout)


def simhash_worker(python: Path | str, request: dict[str, Any]) -> Any:
    """Run ``_simhash_worker.py`` (simhash cases and timings) under ``python``."""
    return run_worker(python, request, "_simhash_worker.py")
