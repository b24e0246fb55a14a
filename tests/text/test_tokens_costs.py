"""code_tokens (issue 20, item 12): linear time on unterminated quotes and escapes, and the
same tokens as the plain regular expression it replaces."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

from hypothesis import given, settings
from hypothesis import strategies as st

from samecode.text.tokens import _OPERATORS, code_tokens


def reference_tokens(text, line_comments=("#", "//"), block_comments=(("/*", "*/"),)):
    """The tokens by the plain regular expression of before (quadratic on some lines)."""
    blocks = [f"{re.escape(a)}(?s:.*?)(?:{re.escape(b)}|\\Z)" for a, b in block_comments]
    lines = [f"{re.escape(marker)}[^\\n]*" for marker in line_comments]
    dropped = "|".join([*blocks, *lines, r"\s+"])
    strings = (
        r'"""(?s:.*?)(?:"""|\Z)|'
        r"'''(?s:.*?)(?:'''|\Z)|"
        r'"(?:\\.|[^"\\\n])*(?:"|$)|'
        r"'(?:\\.|[^'\\\n])*(?:'|$)"
    )
    kept = "|".join(
        [
            strings,
            r"\.?\d(?:[eEpP][+-]|[\w.])*",
            r"(?:[^\W\d]|\$)[\w$]*",
            *map(re.escape, _OPERATORS),
            r"[^\s]",
        ]
    )
    pattern = re.compile(f"({dropped})|({kept})", re.MULTILINE)
    return [k for _, k in pattern.findall(text) if k]


QUOTEY = st.text(alphabet="'\"\\\n ab1#/*.", max_size=60)


@given(QUOTEY)
@settings(max_examples=600, deadline=None)
def test_the_same_tokens_as_the_plain_expression(text):
    assert code_tokens(text) == reference_tokens(text)
    python = {"line_comments": ("#",), "block_comments": ()}
    assert code_tokens(text, **python) == reference_tokens(text, **python)
    odd = {"line_comments": ("'",), "block_comments": (('"', "\\"),)}
    assert code_tokens(text, **odd) == reference_tokens(text, **odd)


def test_unterminated_quotes_and_escapes():
    assert code_tokens("a '\\'\\' b\\") == ["a", "'", "\\", "'", "\\", "'", "b", "\\"]
    assert code_tokens("x = '\\'\\\\\n y") == ["x", "=", "'\\'\\\\", "y"]
    assert code_tokens("'a\\\n'b'") == ["'", "a", "\\", "'b'"]


def test_a_line_of_quotes_and_escapes_takes_linear_time():
    # 'x'x'x...\ at the end: every quote's string fails at the last backslash; scanning
    # from each of them again was quadratic (80 KB: two minutes).
    script = textwrap.dedent(
        """
        from samecode.text.tokens import code_tokens
        for line in ["'" + "\\\\'" * 100_000 + "\\\\", '"' + '\\\\"' * 100_000 + "\\\\\\n",
                     "'\\\\\\"" * 60_000 + "\\\\"]:
            print(len(code_tokens(line)))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["200002", "200002", "90001"]
