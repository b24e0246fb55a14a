"""Private: how far two token sequences agree, from a point, forwards or backwards.

Slices of ``array`` compare in C, so a match of ``L`` tokens costs ``O(L)`` in C and
``O(log L)`` steps of Python (chunks that double, then a halving search in the last).
"""

from __future__ import annotations

from array import array

__all__ = ["common_prefix", "common_suffix"]


def common_prefix(a: array[int], b: array[int], i: int, j: int) -> int:
    """The largest ``n`` with ``a[i : i + n] == b[j : j + n]``.

    >>> common_prefix(array("Q", [1, 2, 3, 4]), array("Q", [9, 2, 3, 5]), 1, 1)
    2
    """
    limit = min(len(a) - i, len(b) - j)
    done, step = 0, 8
    while done < limit:
        take = min(step, limit - done)
        if a[i + done : i + done + take] == b[j + done : j + done + take]:
            done += take
            step *= 2
            continue
        low, high = 0, take  # a[.. + low] agrees; a[.. + high] does not
        while high - low > 1:
            middle = (low + high) // 2
            x, y = i + done + low, j + done + low
            if a[x : x + middle - low] == b[y : y + middle - low]:
                low = middle
            else:
                high = middle
        return done + low
    return done


def common_suffix(a: array[int], b: array[int], i: int, j: int) -> int:
    """The largest ``n`` with ``a[i - n : i] == b[j - n : j]``.

    >>> common_suffix(array("Q", [1, 2, 3, 4]), array("Q", [9, 2, 3, 5]), 3, 3)
    2
    """
    limit = min(i, j)
    done, step = 0, 8
    while done < limit:
        take = min(step, limit - done)
        if a[i - done - take : i - done] == b[j - done - take : j - done]:
            done += take
            step *= 2
            continue
        low, high = 0, take
        while high - low > 1:
            middle = (low + high) // 2
            x, y = i - done - low, j - done - low
            if a[x - (middle - low) : x] == b[y - (middle - low) : y]:
                low = middle
            else:
                high = middle
        return done + low
    return done
