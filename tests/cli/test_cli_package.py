"""The cli package: parser, commands and output apart; defaults and choices read from the
library; configuration errors as one line naming the file and key."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from samecode.cli import main
from samecode.cli.commands import COMMANDS
from samecode.cli.parser import DEFAULTS, build_parser
from samecode.corpus.store import Corpus
from samecode.reports.fragments import FORMATS as FRAGMENT_FORMATS
from samecode.reports.pairs import FORMATS
from samecode.scan.candidates import method_names
from samecode.scan.pipeline import ScanOptions
from samecode.text.shingling import Shingling

SRC = str(Path(__file__).resolve().parents[2] / "src")


def run(*args: str, cwd: Path | None = None, stdout=subprocess.PIPE):
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run(
        [sys.executable, "-m", "samecode", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env=env,
        check=False,
    )


def _choices(command: str, option: str) -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    action = next(a for a in sub.choices[command]._actions if option in a.option_strings)
    return list(action.choices)


def test_defaults_and_choices_are_the_librarys():
    options = ScanOptions()
    rules = Shingling()
    assert DEFAULTS["threshold"] == options.exact_threshold
    assert DEFAULTS["min_tokens"] == options.walk.min_tokens
    assert DEFAULTS["max_size"] == options.walk.max_size
    assert DEFAULTS["batch_size"] == options.run.batch_size
    assert DEFAULTS["gitignore"] == options.walk.gitignore
    assert DEFAULTS["num_perm"] == options.num_perm
    assert (DEFAULTS["shingle"], DEFAULTS["tokens"]) == (rules.size, rules.tokens)
    assert DEFAULTS["min_threshold"] == Corpus.create.__kwdefaults__["min_threshold"]
    assert _choices("scan", "--format") == [*FORMATS, "html"]
    assert set(FORMATS) | set(FRAGMENT_FORMATS) == set(_choices("scan", "--format"))
    assert _choices("match", "--format") == _choices("scan", "--format")
    assert _choices("scan", "--method") == method_names()
    assert set(COMMANDS) == {"scan", "match", "index", "fingerprint", "compare"}


def test_the_entry_point_and_module_run():
    from importlib.metadata import entry_points

    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "samecode"]
    assert script.value == "samecode.cli:main"
    assert script.load() is main
    assert run("--version").returncode == 0


@pytest.mark.parametrize(
    ("config", "said"),
    [
        ('tool.samecode = "x"', "tool.samecode must be a table"),
        ('tool = "x"', "tool must be a table"),
        (
            "[tool.samecode]\ninclude = [1, {a=1}]",
            "include in [tool.samecode] must be a list of strings",
        ),
        (
            '[tool.samecode]\nexclude = "docs"',
            "exclude in [tool.samecode] must be a list of strings",
        ),
        ("[tool.samecode]\njobs = 0", "jobs in [tool.samecode] jobs must be from 1 to 1024"),
        ("[tool.samecode]\nmax-size = 0.5", "max-size in [tool.samecode] a size must be a whole"),
        ("[tool.samecode]\nthreshold = true", "threshold in [tool.samecode] must be a number"),
    ],
)
def test_configuration_errors_are_one_line_naming_file_and_key(tmp_path, config, said):
    (tmp_path / "pyproject.toml").write_text(config + "\n")
    for command in (["scan", "."], ["match", "."], ["compare", "a", "b"]):
        done = run(*command, cwd=tmp_path)
        assert done.returncode == 2
        lines = done.stderr.splitlines()
        assert len(lines) == 1, done.stderr
        assert str(tmp_path / "pyproject.toml") in lines[0]
        assert said in lines[0]


def test_a_fraction_of_a_byte_is_refused(tmp_path):
    done = run("scan", str(tmp_path), "--max-size", "0.5")
    assert done.returncode == 2
    assert "whole number of bytes" in done.stderr
    assert run("scan", str(tmp_path), "--max-size", "0.5k", "-q").returncode == 0


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_help_to_a_full_device_fails(tmp_path):
    with open("/dev/full", "w") as full:
        done = run("--help", stdout=full)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "samecode: cannot write the output: No space left on device"
    ]


def test_a_library_refusal_is_one_line(tmp_path, capsys):
    (tmp_path / "c.db").write_text("not a corpus")
    assert main(["index", "stats", "--db", str(tmp_path / "c.db")]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1
    assert "not a samecode corpus" in err
