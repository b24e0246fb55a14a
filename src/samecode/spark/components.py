"""Connected components of a graph held in a Spark RDD, by alternating large-star and
small-star rounds (Kiveris, Lattanzi, Mirrokni, Rastogi and Vassilvitskii, "Connected
Components in MapReduce and Beyond", 2014), in plain RDD operations (no GraphFrames).

Each round is two shuffles of the edges; the number of edges never grows, and the rounds
end, in ``O(log(n)**2)`` of them, with every node linked to the smallest node of its
component. Each round's edges are checkpointed locally, so the lineage (and the plan
Spark keeps) does not grow with the rounds, and no result depends on an input being
cached (the answer is a function of the set of edges only).

>>> from samecode.spark.session import session
>>> spark = session("local[2]")
>>> edges = spark.sparkContext.parallelize([(3, 2), (2, 1), (7, 8), (8, 8)])
>>> sorted(connected_components(edges, 2).collect())
[(1, 1), (2, 1), (3, 1), (7, 7), (8, 7)]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["connected_components"]

Edge = tuple[int, int]


def _large_star(item: tuple[int, Iterable[int]]) -> Iterator[Edge]:
    # Every larger neighbour of u is linked to the smallest node u sees (itself included).
    node, neighbours = item
    seen = set(neighbours)
    smallest = min(min(seen), node)
    for other in seen:
        if other > node:
            yield other, smallest


def _small_star(item: tuple[int, Iterable[int]]) -> Iterator[Edge]:
    # u and its smaller neighbours are linked to the smallest of them.
    node, neighbours = item
    seen = set(neighbours)
    smallest = min(seen)
    for other in seen | {node}:
        if other != smallest:
            yield other, smallest


def _both_ways(edge: Edge) -> tuple[Edge, Edge]:
    return edge, (edge[1], edge[0])


def _larger_first(edge: Edge) -> Edge:
    return (edge[0], edge[1]) if edge[0] > edge[1] else (edge[1], edge[0])


def _settled(rdd: Any) -> tuple[Any, int]:
    rdd.persist()
    rdd.localCheckpoint()
    return rdd, rdd.count()  # the checkpoint is taken as the RDD is computed


def connected_components(edges: Any, partitions: int) -> Any:
    """Label every node of ``edges`` (an RDD of ``(u, v)`` int pairs, in either
    direction, repeats and loops allowed) with the smallest node of its component.

    :param edges: the graph's edges.
    :param partitions: partitions of every shuffle.
    :returns: an RDD of ``(node, label)``, one per node of an edge between two nodes
        (a loop alone labels nothing).

    Runtime complexity: ``O(log(n)**2)`` rounds of ``O(e)`` work and shuffled edges each,
    for ``n`` nodes and ``e`` edges (Kiveris et al.); memory per task: the neighbours of
    one node.
    """
    current, size = _settled(
        edges.filter(lambda e: e[0] != e[1]).map(_larger_first).distinct(partitions)
    )
    while True:
        large = current.flatMap(_both_ways).groupByKey(partitions).flatMap(_large_star)
        small, now = _settled(
            large.groupByKey(partitions).flatMap(_small_star).distinct(partitions)
        )
        # The edges are a set: a round that changes none (as many edges, none new) is
        # the last.
        same = now == size and small.subtract(current, partitions).isEmpty()
        current.unpersist()
        current, size = small, now
        if same:
            break
    return current.flatMap(lambda e: ((e[0], e[1]), (e[1], e[1]))).reduceByKey(min, partitions)
