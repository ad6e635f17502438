"""Every graph on 5 labelled nodes and its one-edge neighbours, for the exact privacy audits.

Edge-level neighbours: two graphs on the same 5 nodes that differ in one edge (added or removed). A graph is
a 10-bit code, bit ``p`` set when the pair ``PAIRS[p]`` is an edge; ``FLIPS[p][code]`` is its neighbour
through pair ``p``. So ``CODES`` (all 1,024 graphs) with ``FLIPS`` lists every neighbouring pair twice.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from dpmo import graphs

PAIRS = list(combinations(range(5), 2))
CODES = np.arange(1 << len(PAIRS))
FLIPS = [CODES ^ (1 << p) for p in range(len(PAIRS))]  # the one-edge neighbours of every graph


def graph(code: int) -> graphs.Graph:
    """The graph of ``code`` on the public nodes 0..4."""
    edges = np.array([PAIRS[p] for p in range(len(PAIRS)) if (code >> p) & 1], dtype=np.int64)
    return graphs.Graph.from_edges(edges.reshape(-1, 2), nodes=np.arange(5))
