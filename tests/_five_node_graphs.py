"""Every graph on 5 labelled nodes and its one-edge neighbours, for the exact privacy audits.

Edge-level neighbours: two graphs on the same 5 nodes that differ in one edge (added or removed). A graph is
a 10-bit code, bit ``p`` set when the pair ``PAIRS[p]`` is an edge; ``FLIPS[p][code]`` is its neighbour
through pair ``p``. So ``CODES`` (all 1,024 graphs) with ``FLIPS`` lists every neighbouring pair twice.
Also: the degrees of a random graph on ``n`` nodes and of its neighbour through one drawn pair
(:func:`draw_degrees_and_neighbour`, for hypothesis), the scores of variants of one round on every graph
(:func:`scores_on_every_graph`), public histories of the graph staircase (:func:`round_scores`,
:func:`round_two_scores`), and the law of any function of the released graph under randomized response on
every pair (:func:`released_law`, :func:`worst_log_ratio`).
"""

from __future__ import annotations

import functools
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


@functools.cache
def _objectives(code: int, low_degree: float, formula: str) -> tuple:
    return tuple(graphs.objectives(graph(code), low_degree=low_degree, formula=formula))


def objectives(code: int, low_degree: float = 0.0, formula: str = "paper") -> list:
    """``graphs.objectives(graph(code), low_degree=, formula=)`` as a new list, its objectives built once per
    process (a :class:`dpmo.Objective` is immutable: read-only values, local functions of the degrees and
    ``formula`` only)."""
    return list(_objectives(int(code), float(low_degree), formula))


@functools.cache
def _distinct(low_degree: float, formula: str) -> tuple[tuple[int, ...], np.ndarray]:
    first: dict[tuple, int] = {}
    group = np.empty(CODES.size, dtype=np.intp)
    for c in CODES:
        key = tuple(o.values.tobytes() for o in objectives(c, low_degree, formula))
        group[c] = first.setdefault(key, len(first))
    reps = [0] * len(first)
    for c in CODES[::-1]:
        reps[group[c]] = int(c)  # the first code of each group
    return tuple(reps), group


def distinct_objectives(low_degree: float = 0.0, formula: str = "paper") -> tuple[list[list], np.ndarray]:
    """The objectives of one graph per distinct objectives among ``CODES`` (698 of 1,024), and the index of
    every code's group: ``rows[group]`` gives every code a row computed on its own objectives' equal.

    A round's scores are a function of the objectives it is given (the rounds never see the graph), and two
    graphs with the same objective values have equal objectives (the same values, global sensitivities and
    local functions, which read the degrees and ``formula`` only), so computing a row once per group and
    copying it to the group's codes gives the same array as computing it on every code; the audits still
    compare all 1,024 rows with their neighbours'."""
    reps, group = _distinct(float(low_degree), formula)
    return [objectives(c, low_degree, formula) for c in reps], group


def audit_scores(S, epsilons=(0.5, 4.0), acts: float = 0.3) -> None:
    """The exact audit of one round's scores ``S`` (one row per code of ``CODES``): every candidate's score
    moves by at most 1 between one-edge neighbours, and by more than ``acts`` somewhere (the audit is not of
    a constant); the exact log-probabilities of the exponential mechanism and permute-and-flip (sensitivity
    1) at each of ``epsilons`` differ by at most epsilon between neighbours."""
    from dpmo.mechanisms import probabilities_by_row

    S = np.asarray(S, dtype=np.float64)
    change = max(np.abs(S - S[f]).max() for f in FLIPS)
    assert acts < change <= 1.0 + 1e-9
    rows, inv = np.unique(S, axis=0, return_inverse=True)
    for mechanism in ("exponential", "permute_and_flip"):
        for eps in epsilons:
            lp = probabilities_by_row(rows, eps, 1.0, mechanism=mechanism, log=True)
            lp = lp[inv.ravel()]
            assert max(np.abs(lp - lp[f]).max() for f in FLIPS) <= eps + 1e-9


def draw_degrees_and_neighbour(n: int, data) -> tuple[np.ndarray, np.ndarray]:
    """The degrees of a random graph on ``n`` nodes (each pair an edge or not, drawn from hypothesis's
    ``data``) and those of its edge-level neighbour through one drawn pair (that edge added or removed)."""
    from hypothesis import strategies as st

    pairs = list(combinations(range(n), 2))
    mask = data.draw(st.lists(st.booleans(), min_size=len(pairs), max_size=len(pairs)))
    flip = data.draw(st.integers(0, len(pairs) - 1))

    def degrees(m) -> np.ndarray:
        deg = np.zeros(n, dtype=np.int64)
        for (a, b), on in zip(pairs, m, strict=True):
            if on:
                deg[a] += 1
                deg[b] += 1
        return deg

    other = list(mask)
    other[flip] = not other[flip]
    return degrees(mask), degrees(other)


def round_two_scores(appr, objs, sensitivity: str, cache, released, x: float, eps2: float) -> np.ndarray:
    """Round 2's scores of nodes 1..4 under :class:`~dpmo.graphs.chebyshev.GraphStaircaseApproach` ``appr``
    after one public history: the degrees of the ranks released as 4, 3, 2, 1; round 1 at epsilon 0.64
    picks node 0, released as ``released`` (degree, ``floor(q D_ego)``) at the release's ``x``; round 2 at
    ``eps2``. Asserts the round's declared sensitivity is 1."""
    rounds = appr.rounds(objs, None, sensitivity, cache)
    rounds.receive(0, [], np.array([4, 3, 2, 1]), 1.0)
    rounds.begin(0, 0.64)
    rounds.receive(1, [0], np.asarray(released), x)
    rounds.begin(1, eps2)
    s, sens = rounds.scores([0], np.arange(1, 5))
    assert sens == 1.0
    return s


def scores_on_every_graph(variants, score_of) -> list[np.ndarray]:
    """``score_of(variant, objs, cache)`` for each of ``variants`` on the graph of every code of ``CODES``
    (its objectives ``objs`` and one new ``dpmo.selection.SelectionCache`` shared by the variants): one
    array per variant, a row per code (computed once per distinct objectives, :func:`distinct_objectives`)."""
    from dpmo.selection import SelectionCache

    out: list[list] = [[] for _ in variants]
    reps, group = distinct_objectives()
    for objs in reps:
        cache = SelectionCache(objs)
        for rows, variant in zip(out, variants, strict=True):
            rows.append(score_of(variant, objs, cache))
    return [np.array(rows)[group] for rows in out]


def round_scores(appr, objs, sensitivity: str, cache, r: int, eps: float, chosen=(), x: float = 1.0):
    """Round ``r``'s scores of the nodes not in ``chosen`` under ``appr`` after the degrees of the ranks
    are released as 4, 3, 2, 1 at the release's ``x``, the round at ``eps``. Asserts the round's declared
    sensitivity is 1."""
    rounds = appr.rounds(objs, None, sensitivity, cache)
    rounds.receive(0, [], np.array([4, 3, 2, 1]), x)
    rounds.begin(r, eps)
    s, sens = rounds.scores(list(chosen), np.setdiff1d(np.arange(5), list(chosen)))
    assert sens == 1.0
    return s


@functools.cache
def pair_distances() -> np.ndarray:
    """The number of pairs in which two 5-node graphs differ, for every two graphs (1,024 x 1,024)."""
    diff = CODES[:, None] ^ CODES[None, :]
    d = np.zeros(diff.shape, dtype=np.int64)
    for p in range(len(PAIRS)):
        d += (diff >> p) & 1
    return d


def released_law(out: np.ndarray, n_out: int, r: float) -> np.ndarray:
    """``P(output | G)`` for every graph ``G`` (rows) when each pair is flipped independently with
    probability ``r`` and the output is ``out[H]`` (one of ``n_out`` output numbers) of the released graph
    ``H``: ``P(H | G) = r^d (1 - r)^(10 - d)``, ``d`` the pairs where ``H`` and ``G`` differ."""
    d = pair_distances()
    P = np.exp(d * np.log(r) + (len(PAIRS) - d) * np.log1p(-r))  # P(H | G), rows G
    M = np.zeros((CODES.size, n_out))
    M[CODES, out] = 1.0
    return P @ M


def worst_log_ratio(law: np.ndarray) -> float:
    """The largest ``ln P(o | G) - ln P(o | G')`` over every output ``o`` and one-pair neighbours."""
    return max(float(np.max(np.log(law) - np.log(law[f]))) for f in FLIPS)


def assert_first_pick_follows(law_row: np.ndarray, first: dict, draw, draws: int) -> None:
    """``draw()`` (the first pick of one call, a node 0..4) follows the law of the first pick given by
    ``law_row`` (the probability of each output number) and ``first`` (output number -> its first pick):
    every node's frequency over ``draws`` calls within 5 standard deviations."""
    node_law = np.zeros(5)
    for j, p in enumerate(law_row):
        node_law[first[j]] += p
    got = np.bincount([int(draw()) for _ in range(draws)], minlength=5)
    sd = np.sqrt(node_law * (1 - node_law) / draws)
    assert np.all(np.abs(got / draws - node_law) <= 5 * sd + 1e-12)
