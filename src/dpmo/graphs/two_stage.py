"""Two-stage private Pareto top-k on graphs: a noisy-degree shortlist, then PrivPareto among it.

Not in the paper (``docs/graphs.md``): :func:`two_stage_candidates` releases the degree vector with Laplace
noise (epsilon-edge-DP, L1 sensitivity 2) and keeps the largest noisy degrees; :func:`top_k_two_stage`
spends a share of epsilon on that shortlist and the rest on :func:`dpmo.priv_pareto`'s rounds among the
shortlisted nodes (basic sequential composition). Neighbouring relation: edge differential privacy on a
public node set, as in :mod:`dpmo.graphs.topk`.
"""

from __future__ import annotations

import numbers
from fractions import Fraction

import numpy as np

from .. import _defaults
from .._validation import (
    check_choice,
    check_epsilon,
    check_exact,
    check_fraction,
    check_k,
    check_random_state,
)
from ..calls import check_budget_first, releases_on_error, resolve_call
from ..mechanisms import MECHANISMS
from ..mechanisms.exact import radix_argsort, random_permutation, sample_discrete_laplace
from ..selection import select_multiobjective
from .centrality import check_convention
from .io import public_graph
from .objectives import objectives
from .topk import SENSITIVITIES

__all__ = ["two_stage_candidates", "top_k_two_stage"]


@releases_on_error
def two_stage_candidates(
    graph,
    epsilon: float,
    candidates: int,
    *,
    rng=None,
    budget=None,
    exact: bool = _defaults.EXACT_TWO_STAGE,
    nodes=None,
    delimiter: str | None = None,
    header: bool | None = None,
    ids: str = "int",
    delta: float = 0.0,
) -> np.ndarray:
    """Stage 1 of :func:`top_k_two_stage`: the ``candidates`` nodes of largest noisy degree (indices).

    Releases (internally) the whole degree vector with Laplace noise of scale ``2 / epsilon`` and keeps the
    ``candidates`` largest entries. One edge changes exactly two degrees by 1, so the degree vector has
    L1 sensitivity 2 and the noisy vector is epsilon-edge-DP (Laplace mechanism, Dwork et al. 2006); the
    choice of the top entries is post-processing. O(n) time (``argpartition``) and memory. ``graph`` and
    ``nodes`` (and ``delimiter``, ``header``, ``ids`` for a path) as in :func:`top_k` (a public node set is
    required; isolated nodes get a noisy degree too).

    ``budget`` (a :class:`dpmo.Budget`, optional): spend ``epsilon`` from it (one record, mechanism
    ``"laplace"``, sensitivity 2), right before the noise is drawn; None: all it has left. ``delta > 0``:
    the release is ``(epsilon, delta)``-DP at the accountant's epsilon for one pure mechanism
    (:func:`dpmo.per_pick_epsilon`; barely above ``epsilon``).

    ``exact=True``: the degrees are integers, and the noise is exact discrete Laplace noise with
    ``P(z) ~ exp(-epsilon |z| / 2)`` (the geometric mechanism, epsilon-edge-DP for L1 sensitivity 2;
    :func:`dpmo.mechanisms.exact.sample_discrete_laplace`) from the OS's secure source when rng is None;
    equal noisy degrees are ordered by a uniformly random permutation (post-processing); the noise, the
    permutation and the ranking do the same work whatever the degrees and the noise (``docs/core.md``).

    Returns
    -------
    numpy.ndarray of intp, shape (candidates,)
        Sorted by decreasing noisy degree.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> short = graphs.two_stage_candidates(g, epsilon=1.0, candidates=5, rng=0, nodes=34)
    >>> short.shape, len(set(short.tolist())) == 5
    ((5,), True)
    """
    check_budget_first(epsilon, budget, delta)  # before the edges are read (issue 37, point 11)
    g = public_graph(graph, nodes, "two_stage_candidates", delimiter=delimiter, header=header, ids=ids)
    if epsilon is not None or budget is None:
        check_epsilon(epsilon)
    m = _check_shortlist(candidates, g.n_nodes)
    exact = check_exact(exact)
    gen = None if exact and rng is None else check_random_state(rng)
    budget, total, _ = resolve_call(epsilon, budget, delta, 1, "laplace", "two_stage_candidates")
    epsilon = budget.spend(
        total,
        f"two_stage_candidates: noisy degree vector, shortlist of {m}",
        mechanism="laplace",
        sensitivity=2.0,
        candidates=g.n_nodes,
    )
    if exact:
        noise = sample_discrete_laplace(g.n_nodes, total / 2, gen)
        noisy = np.asarray(g.degree, dtype=np.int64) + noise
        order = random_permutation(g.n_nodes, gen)
        keys = -noisy[order]
        # a radix sort does the same work whatever the noisy degrees (a comparison sort would not);
        # int64 unless epsilon < 1e-16 (noise beyond int64: Python ints)
        rank = radix_argsort(keys) if keys.dtype == np.int64 else np.argsort(keys, kind="stable")
        return order[rank][:m].astype(np.intp)
    noisy = g.degree + gen.laplace(scale=2.0 / epsilon, size=g.n_nodes)
    if m < g.n_nodes:
        part = np.argpartition(-noisy, m - 1)[:m]
    else:
        part = np.arange(g.n_nodes)
    return part[np.argsort(-noisy[part], kind="stable")].astype(np.intp)


#: The default size of the shortlist of :func:`top_k_two_stage` (at most the public node count).
DEFAULT_CANDIDATES = 100


def _check_shortlist(candidates, n: int) -> int:
    """``candidates`` (the shortlist's size) as an int in ``1 .. n``, ``n`` the public node count."""
    if isinstance(candidates, (bool, np.bool_)) or not isinstance(candidates, (numbers.Integral, np.integer)):
        raise TypeError(
            f"candidates (the size of the shortlist) must be an int, got {type(candidates).__name__}"
        )
    if not 1 <= int(candidates) <= n:
        raise ValueError(
            f"candidates (the size of the shortlist) must be between 1 and the number of nodes of the public "
            f"node set ({n}), got {int(candidates)}"
        )
    return int(candidates)


@releases_on_error
def top_k_two_stage(
    graph,
    k: int,
    epsilon: float,
    *,
    candidates: int | None = None,
    degree_share: float = 0.1,
    sensitivity: str = "local",
    mechanism: str = "exponential",
    rng=None,
    low_degree: float = 0.0,
    formula: str = "paper",
    budget=None,
    exact: bool = _defaults.EXACT_TWO_STAGE,
    nodes=None,
    delimiter: str | None = None,
    header: bool | None = None,
    ids: str = "int",
    delta: float = 0.0,
) -> np.ndarray:
    """Private Pareto top-k in two stages: noisy-degree shortlist, then PrivPareto on the shortlist.

    Not in the paper. On the real graphs the Pareto score of a low-degree node is extremely sensitive (one
    edge can move its ego density from 0 to 1, past thousands of nodes), so the dampened scores of all
    nodes are squeezed into [-2, 0] and DP-MOTkIN-Pareto picks a Pareto-optimal node with probability about
    0.002 (``docs/graphs.md``). Restricting the candidates to high-degree nodes, whose ego density moves by
    at most ``2 / degree`` per edge, removes most of that noise:

    1. with ``epsilon_1 = degree_share * epsilon``: :func:`two_stage_candidates` keeps the ``candidates``
       nodes of largest noisy degree (Laplace mechanism on the degree vector);
    2. with ``epsilon_2 = epsilon - epsilon_1``: :func:`dpmo.priv_pareto` (``k`` rounds, ``epsilon_2 / k``
       each) on degree and ego density restricted to the shortlist; the Pareto score counts dominating nodes
       of the shortlist only.

    Privacy: epsilon-edge-DP by sequential composition (neighbours differ in one edge; the node set is
    public). Stage 2 is epsilon_2-DP for every fixed shortlist, because the element local sensitivities of
    degree and ego density do not depend on which other nodes are candidates and ``delta^PS`` is
    admissible for any candidate set; ``tests/test_graphs_sensitivity.py`` checks the exact output
    probabilities of stage 2 for every shortlist of every graph on 5 nodes, and that the degree vector's
    L1 sensitivity is 2.

    Parameters
    ----------
    graph, k, epsilon, sensitivity, mechanism, rng, low_degree, formula, nodes, delimiter, header, ids
        As in :func:`top_k` (``k <= candidates``; a public node set is required).
    candidates : int, optional
        Size of the shortlist (public), ``k <= candidates <= n``; default ``min(100, n)`` with ``n`` the
        public node count.
    degree_share : float in (0, 1), default 0.1
        Share of epsilon spent on the shortlist.
    budget : dpmo.Budget, optional
        Spend ``epsilon`` from it (None: all it has left), checked before anything is computed: one record
        for the shortlist (``degree_share * epsilon``, Laplace) and one per round of stage 2 (the rest,
        divided by ``k``). Without it the call spends ``epsilon`` of its own.
    exact : bool, default False
        The float sampler is the default here, unlike :func:`top_k`'s: exact discrete Laplace noise on
        every degree makes a call on GitHub about 9 times slower (``docs/core.md``). ``True``: both
        stages exact: discrete Laplace noise on the degrees (see :func:`two_stage_candidates`) and
        exact sampling in stage 2; rng None then reads the OS's secure source.
    delta : float, default 0
        ``> 0``: the shortlist (pure credit) and the ``k`` rounds (the mechanism's kind) are together
        ``(epsilon, delta)``-edge-DP; the accountant scales the shares ``degree_share`` and
        ``(1 - degree_share) / k`` together (:func:`dpmo.accounting.scaled_epsilons`).

    Returns
    -------
    numpy.ndarray, shape (k,)
        Original ids of the chosen nodes, in selection order.

    Notes
    -----
    Because a node's dominators have at least its degree, a shortlist that holds every node above some
    degree has the same Pareto front as the graph on it; the noisy shortlist is close to that. The output is
    biased towards the high-degree end of the front (it never returns a front node outside the shortlist).
    Cost: O(n) for stage 1, then ``k`` Pareto scores and dampening loops on ``candidates`` nodes.

    Examples
    --------
    >>> import networkx as nx
    >>> from dpmo import graphs
    >>> g = nx.karate_club_graph()
    >>> picks = graphs.top_k_two_stage(g, 3, epsilon=2.0, candidates=10, rng=0, nodes=34)
    >>> picks.shape, len(set(picks.tolist())) == 3, set(picks.tolist()) <= set(g.nodes)
    ((3,), True, True)
    """
    check_budget_first(epsilon, budget, delta)  # before the edges are read (issue 37, point 11)
    g = public_graph(graph, nodes, "top_k_two_stage", delimiter=delimiter, header=header, ids=ids)
    n = g.n_nodes
    if epsilon is not None or budget is None:
        check_epsilon(epsilon)
    m = _check_shortlist(min(DEFAULT_CANDIDATES, n) if candidates is None else candidates, n)
    if isinstance(k, (numbers.Integral, np.integer)) and not isinstance(k, (bool, np.bool_)) and k > m:
        raise ValueError(f"k ({int(k)}) must not exceed candidates, the size of the shortlist ({m})")
    k = check_k(k, m)
    share = check_fraction(degree_share, "degree_share")
    sensitivity = check_choice(sensitivity, SENSITIVITIES, "sensitivity")
    mechanism = check_choice(mechanism, MECHANISMS, "mechanism")
    low, formula = check_convention(low_degree, formula)
    exact = check_exact(exact, mechanism)
    gen = None if exact and rng is None else check_random_state(rng)  # None: the OS's secure source
    kinds = ["laplace"] + [mechanism] * k
    relative = [share] + [(1.0 - share) / k] * k
    budget, total, parts = resolve_call(epsilon, budget, delta, relative, kinds, "top_k_two_stage")
    if parts is None:
        # stage 1 gets the float share * epsilon (exactly, as a Fraction), stage 2 the exact rest
        eps1 = Fraction(float(Fraction(share) * total))
        eps2 = total - eps1
    else:  # delta > 0: the accountant's epsilons, stage 2's k equal
        eps1, eps2 = parts[0], total - parts[0]
    if not (float(eps1) > 0 and float(eps2 / k) > 0):  # a share below the smallest float: refused up front
        raise ValueError(
            f"epsilon * degree_share (the shortlist's epsilon) and epsilon * (1 - degree_share) / k (each "
            f"round's) must be at least the smallest positive float (5e-324); with epsilon={float(total)!r}, "
            f"degree_share={share!r} and k={k} one is below it: raise epsilon, or move degree_share "
            "away from 0 and 1"
        )
    shortlist = two_stage_candidates(g, eps1, m, rng=gen, budget=budget, exact=exact)
    if m == 1:
        budget.spend(eps2, "top_k_two_stage: stage 2, the only candidate, no data used")
        return g.ids[shortlist]
    objs = [o.take(shortlist) for o in objectives(g, low_degree=low, formula=formula)]
    idx = select_multiobjective(
        objs,
        eps2,
        approach="pareto",
        sensitivity=sensitivity,
        mechanism=mechanism,
        k=k,
        rng=gen,
        budget=budget,
        what="top_k_two_stage: stage 2",
        exact=exact,
    )
    return g.ids[shortlist[np.asarray(idx, dtype=np.intp)]]
