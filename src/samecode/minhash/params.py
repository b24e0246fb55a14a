"""The bands and rows of an LSH index: the pair datasketch chooses for a threshold.

Two signatures cut into ``b`` bands of ``r`` values become candidates with probability
``1 - (1 - s**r)**b`` for a pair of Jaccard ``s``. :func:`optimal_param` chooses ``b`` and
``r`` as datasketch does, computed without scipy: the integrands are polynomials of degree
``b * r``, which Gauss-Legendre quadrature with ``(b * r + 2) // 2`` nodes integrates
exactly.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache, lru_cache

from samecode._validation import check_int
from samecode.errors import SamecodeValueError

__all__ = ["MAX_OPTIMISED_PERM", "optimal_param"]


@cache
def _legendre(m: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Gauss-Legendre nodes and weights of order ``m`` on ``[-1, 1]`` (Newton iteration
    on the three-term recurrence)."""
    nodes: list[float] = []
    weights: list[float] = []
    for i in range(1, (m + 1) // 2 + 1):
        x = math.cos(math.pi * (i - 0.25) / (m + 0.5))
        for _ in range(100):
            p0, p1 = 1.0, x
            for k in range(2, m + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            step = p1 / (m * (x * p1 - p0) / (x * x - 1))
            x -= step
            if abs(step) < 1e-16:
                break
        p0, p1 = 1.0, x
        for k in range(2, m + 1):
            p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
        slope = m * (x * p1 - p0) / (x * x - 1)
        weight = 2 / ((1 - x * x) * slope * slope)
        nodes += [x, -x]
        weights += [weight, weight]
    if m % 2:  # the middle node, 0, was counted twice
        nodes.pop()
        weights.pop()
    return tuple(nodes), tuple(weights)


def _integral(f: Callable[[float], float], low: float, high: float, degree: int) -> float:
    """The integral of a polynomial ``f`` of at most ``degree`` over ``[low, high]``."""
    nodes, weights = _legendre(max(4, (degree + 2) // 2))
    half, middle = (high - low) / 2, (high + low) / 2
    return half * math.fsum(w * f(middle + half * x) for x, w in zip(nodes, weights))


#: The largest ``num_perm`` :func:`optimal_param` searches (about 9 s).
MAX_OPTIMISED_PERM = 1024


@lru_cache(maxsize=1024)
def optimal_param(
    threshold: float,
    num_perm: int,
    false_positive_weight: float = 0.5,
    false_negative_weight: float = 0.5,
) -> tuple[int, int]:
    """The bands and rows ``(b, r)``, ``b * r <= num_perm``, that datasketch chooses.

    For every ``b`` from 1 and ``r`` from 1 with ``b * r <= num_perm``, the error is
    ``false_positive_weight * fp + false_negative_weight * fn`` with ``fp`` the area under
    ``1 - (1 - s**r)**b`` from 0 to the threshold and ``fn`` the area under ``(1 -
    s**r)**b`` from the threshold to 1; the first pair of least error wins, as in
    datasketch. A cross-check (``benchmarks/compat_datasketch.py``) compares every
    threshold from 0.05 to 0.95 by 0.05 and every ``num_perm`` from 16 to 512.

    Runtime complexity: ``O(num_perm * log(num_perm))`` pairs, each two integrals of
    about ``b * r / 2`` points, so about ``num_perm**3`` in all: 0.2 s at 256, 1 s at
    512, 9 s at 1,024 (:data:`MAX_OPTIMISED_PERM`, the most it takes; give ``(b, r)``
    yourself above it); remembered for the last thousand arguments.

    :raises ValueError: for ``num_perm`` above :data:`MAX_OPTIMISED_PERM`.

    >>> optimal_param(0.8, 128)
    (9, 13)
    """
    if check_int(num_perm, "num_perm") > MAX_OPTIMISED_PERM:
        raise SamecodeValueError(
            f"bands and rows are chosen for num_perm up to {MAX_OPTIMISED_PERM} (the search "
            f"grows as num_perm**3); got {num_perm}: give params=(b, r) instead"
        )
    best = math.inf
    choice = (0, 0)
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            degree = b * r

            def candidate(s: float, r: int = r, b: int = b) -> float:
                return 1 - (1 - s**r) ** b

            def missed(s: float, r: int = r, b: int = b) -> float:
                return (1 - s**r) ** b

            fp = _integral(candidate, 0.0, threshold, degree)
            fn = _integral(missed, threshold, 1.0, degree)
            error = fp * false_positive_weight + fn * false_negative_weight
            if error < best:
                best = error
                choice = (b, r)
    return choice
