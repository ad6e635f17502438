"""One multi-objective selection pipeline: :func:`select_multiobjective`.

Every private multi-objective selection of ``dpmo`` goes through :func:`select_multiobjective`:
:func:`dpmo.priv_pareto`, :func:`dpmo.priv_agg`, :func:`dpmo.priv_chebyshev`, :func:`dpmo.graphs.top_k`,
:func:`dpmo.graphs.top_k_two_stage` and :class:`dpmo.trees.DPMOETClassifier` (and through them the
experiments and the CLI). It owns, in one place:

* the **approach**: how the objectives become one score per candidate (``"pareto"``: the Pareto score,
  :mod:`dpmo.pareto`; ``"agg"``: a weighted sum, :mod:`dpmo.aggregate`). Approaches are objects registered
  by name with :func:`register_approach`, so a new one (another Pareto method, say) plugs in without
  touching the applications;
* the **sensitivity**: ``"local"`` (local dampening, scores with sensitivity 1) or ``"global"``;
* the **weights** (approaches that use them), the **base mechanism** of :func:`dpmo.select`, and
* the **k rounds** without replacement and their **budget**: the whole epsilon is checked against the
  :class:`dpmo.Budget` up front, then each round's ``epsilon / k`` (exact; or the approach's public
  shares, :meth:`Approach.round_shares`, as PrivChebyshev's) is recorded right before the round's
  sampling.

The approaches and their registry live in :mod:`dpmo.registry` (re-exported here).

Layering: this module sits below :mod:`dpmo.pareto`, :mod:`dpmo.aggregate` and :mod:`dpmo.chebyshev`,
which register their approaches in it when they are imported; it imports only the core. It knows the
built-in approaches' names and modules as data (:data:`dpmo._choices.BUILTIN_APPROACHES`) and imports
those modules by name the first time a built-in name is asked for (:func:`approaches`,
:func:`get_approach`), so that ``from dpmo.selection import select_multiobjective`` alone can select by
``"pareto"`` (``import dpmo`` loads nothing eagerly).

Caches that exist for speed (PrivPareto's round scores, the aggregate's dampened scores) live in a
:class:`SelectionCache`, which is bound to the very objectives it was made for: the pipeline refuses a
cache made for other objectives, so a second set of objectives can never get the first one's scores.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np

from . import _choices, _defaults
from ._validation import check_choice, check_epsilon, check_exact, check_k, check_random_state
from .accounting import check_delta
from .calls import check_budget_first, delta_for_plan, releases_on_error, resolve_call
from .epsilons import float_at_most
from .mechanisms import MECHANISMS, select
from .registry import Approach, Rounds, approaches, get_approach, register_approach
from .sensitivity import Objective
from .steps import Step, check_steps, step_parts

__all__ = [
    "SENSITIVITIES",
    "Approach",
    "Rounds",
    "SelectionCache",
    "Step",
    "approaches",
    "check_objectives",
    "get_approach",
    "register_approach",
    "plan_selections",
    "round_parts",
    "selection_plan",
    "step_parts",
    "argmax_multiobjective",
    "select_multiobjective",
    "selection_scores",
]

#: Values of ``sensitivity``.
SENSITIVITIES = _choices.SENSITIVITIES


def check_objectives(objectives, name: str = "objectives") -> list[Objective]:
    """Return ``objectives`` as a non-empty list of :class:`dpmo.Objective` over the same candidates."""
    if isinstance(objectives, Objective):
        raise TypeError(f"{name} must be a sequence of dpmo.Objective (wrap a single one in a list)")
    if not isinstance(objectives, Sequence) or isinstance(objectives, (str, bytes)):
        raise TypeError(
            f"{name} must be a sequence (list or tuple) of dpmo.Objective, got {type(objectives).__name__}"
        )
    objs = list(objectives)
    if not objs:
        raise ValueError(f"{name} must contain at least one dpmo.Objective")
    for i, o in enumerate(objs):
        if not isinstance(o, Objective):
            raise TypeError(f"{name}[{i}] must be a dpmo.Objective, got {type(o).__name__}")
    sizes = {o.n for o in objs}
    if len(sizes) != 1:
        detail = ", ".join(f"{o.name!r}: {o.n}" for o in objs)
        raise ValueError(f"all {name} must have the same number of candidates, got {detail}")
    return objs


# ------------------------------------------------------------------------------------------ approaches
# ------------------------------------------------------------------------------------------ the cache
class SelectionCache:
    """Speed caches of repeated selections on one fixed list of objectives.

    Parameters
    ----------
    objectives : sequence of dpmo.Objective
        The objectives this cache is for. :func:`select_multiobjective` accepts the cache only with these
        very objects (same objects, same order): scores cached for one set of objectives can never be
        handed out for another.

    Notes
    -----
    Each approach keeps what it wants under its own keys (:meth:`slot`); what it keeps must be a
    deterministic function of the objectives and the key (so caching changes the running time only, never
    an output or its distribution). Thread-safe.
    """

    def __init__(self, objectives):
        self.objectives = tuple(check_objectives(objectives))
        self._slots: dict = {}
        self._lock = threading.Lock()

    def matches(self, objectives) -> bool:
        """True when ``objectives`` are the very objects this cache was made for."""
        objs = list(objectives)
        return len(objs) == len(self.objectives) and all(
            a is b for a, b in zip(objs, self.objectives, strict=True)
        )

    def slot(self, key, factory: Callable[[], object]):
        """The object kept under ``key``, made by ``factory()`` on first use."""
        with self._lock:
            if key not in self._slots:
                self._slots[key] = factory()
            return self._slots[key]


def _check_cache(cache, objs) -> SelectionCache | None:
    if cache is None:
        return None
    if not isinstance(cache, SelectionCache):
        raise TypeError(f"cache must be a dpmo.selection.SelectionCache or None, got {type(cache).__name__}")
    if not cache.matches(objs):
        raise ValueError(
            "cache was made for other objectives (a SelectionCache serves only its own objectives)"
        )
    return cache


# ------------------------------------------------------------------------------------------ pipeline
def selection_scores(
    objectives, *, approach: str = "pareto", sensitivity: str = "local", weights=None, cache=None
) -> tuple[np.ndarray, float]:
    """``(scores, sensitivity)`` the first round of :func:`select_multiobjective` hands to
    :func:`dpmo.select`: ``select_multiobjective(..., k=1)`` draws from
    ``dpmo.select(*selection_scores(...), ...)``. Exposed for privacy audits.

    Needs at least 2 candidates. Cost: one round of the approach without the sampling.
    """
    objs = check_objectives(objectives)
    appr = _resolved(get_approach(approach), objs)
    sensitivity = check_choice(sensitivity, SENSITIVITIES, "sensitivity")
    w = appr.check_weights(weights, len(objs))
    cache = _check_cache(cache, objs)
    n = objs[0].n
    if n < 2:
        raise ValueError("a private selection needs at least 2 candidates to have a positive sensitivity")
    return appr.rounds(objs, w, sensitivity, cache).scores([], np.arange(n, dtype=np.intp))


def _resolved(appr, objs):
    """The approach for these objectives (:meth:`dpmo.staircase.StaircaseApproach.resolved`: a choice made
    from public declarations only, the objectives' bounds), or the approach itself."""
    resolve = getattr(appr, "resolved", None)
    return appr if resolve is None else resolve(objs)


@releases_on_error
def select_multiobjective(
    objectives,
    epsilon=None,
    *,
    approach: str = "pareto",
    sensitivity: str = "local",
    weights=None,
    mechanism: str = "exponential",
    k: int = 1,
    rng=None,
    budget=None,
    cache: SelectionCache | None = None,
    what: str | None = None,
    exact: bool = _defaults.EXACT,
    delta: float = 0.0,
) -> np.ndarray:
    """Pick ``k`` candidates good in several objectives under epsilon-differential privacy.

    Parameters
    ----------
    objectives : sequence of dpmo.Objective
        ``m >= 1`` utilities over the same ``n`` candidates (larger is better), with global sensitivities
        and, for ``"local"``, admissible local functions, all for the same neighbouring relation.
    epsilon : float, fractions.Fraction or None
        Budget of the call, > 0. None (only with ``budget``): all that ``budget`` has left.
    approach : str or Approach, default "pareto"
        A registered approach (:func:`approaches`): ``"pareto"`` (PrivPareto, :func:`dpmo.priv_pareto`),
        ``"agg"`` (PrivAgg, :func:`dpmo.priv_agg`) or ``"chebyshev"`` (PrivChebyshev with its defaults,
        :func:`dpmo.priv_chebyshev`); or an :class:`Approach` object (e.g. a configured
        :class:`dpmo.chebyshev.ChebyshevApproach`).
    sensitivity : {"local", "global"}
        Local dampening of the approach's score (sensitivity 1) or its global sensitivity.
    weights : sequence of float, optional
        One per objective, for approaches that use them (``"agg"``: required); others ignore them.
    mechanism : {"exponential", "permute_and_flip", "laplace", "gumbel"}
        Base mechanism of :func:`dpmo.select`.
    k : int, default 1
        Number of distinct candidates, ``1 <= k <= n``: k rounds without replacement, ``epsilon / k`` each.
    rng : None, int or numpy.random.Generator
        Randomness (SPEC 7).
    budget : dpmo.Budget, optional
        Spend from it (a new ``Budget(epsilon)`` when None). The whole epsilon is checked first
        (:class:`dpmo.BudgetExceededError` before anything is computed); then one record of ``epsilon / k``
        (or the approach's share, :meth:`Approach.round_shares`; or one per step of its plan,
        :meth:`Approach.steps`) per round, made right before the round's sampling (for a static approach,
        all k right before the one sampling call). A round with a single candidate left returns it
        without looking at the data and still records its share, so the call always spends exactly
        ``epsilon``.
    cache : SelectionCache, optional
        Speed cache for repeated calls on the same objectives (it must have been made for these very
        objects). Outputs are the same with or without it.
    what : str, optional
        Label of the budget records (default: the approach's name).
    exact : bool, default True
        Sample every round exactly (the default; ``False`` opts in to the floating-point sampler):
        :func:`dpmo.select` with ``exact=True``, given the exact share ``epsilon / k`` that is
        recorded; rng None then reads the OS's secure source.
    delta : float, default 0
        ``0``: pure epsilon-DP (basic composition of the rounds). ``> 0``: the k rounds are together
        ``(epsilon, delta)``-DP; the accountant (:func:`dpmo.accounting.scaled_epsilons`) scales the
        rounds' shares (equal, or the approach's :meth:`Approach.round_shares`; with a plan,
        :meth:`Approach.steps`, its releases too, as pure steps) as far as the composition allows, the
        rounds of ``mechanism``'s kind; each step records and runs at its scaled epsilon, and
        ``budget`` is charged ``(epsilon, delta)`` before anything is computed.

    Returns
    -------
    numpy.ndarray of intp, shape (k,)
        Indices of the chosen candidates, in selection order.

    Notes
    -----
    Privacy: every round is an ``epsilon / k``-DP selection (the approach's score has the sensitivity
    handed to :func:`dpmo.select`, or the dampened score sensitivity 1), and which candidates remain depends
    only on earlier private outputs; basic sequential composition gives epsilon. An approach with a plan
    (:meth:`Approach.steps`, e.g. the staircase) also makes private releases between rounds; every step
    runs at its exact part of epsilon, recorded right before it, and is DP given the earlier outputs
    (adaptive sequential composition). Cost: that of the approach's rounds (see :func:`dpmo.priv_pareto`,
    :func:`dpmo.priv_agg`) plus k calls of :func:`dpmo.select` (one for a static approach).

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> objs = [dpmo.Objective(np.array([3.0, 1.0, 2.0, 0.0]), 1.0),
    ...         dpmo.Objective(np.array([0.0, 2.0, 1.0, 0.0]), 1.0)]
    >>> b = dpmo.Budget(1.0)
    >>> picks = dpmo.select_multiobjective(objs, 0.5, approach="pareto", sensitivity="global", k=2,
    ...                                    rng=0, budget=b)
    >>> len(set(picks.tolist())), [float(r.epsilon) for r in b.ledger], b.remaining
    (2, [0.25, 0.25], 0.5)
    """
    check_budget_first(epsilon, budget, delta)  # before anything reads the objectives (issue 37, point 11)
    objs = check_objectives(objectives)
    if epsilon is not None or budget is None:
        check_epsilon(epsilon)
    n = objs[0].n
    k = check_k(k, n)
    appr = _resolved(get_approach(approach), objs)
    sensitivity = check_choice(sensitivity, SENSITIVITIES, "sensitivity")
    mechanism = check_choice(mechanism, MECHANISMS, "mechanism")
    w = appr.check_weights(weights, len(objs))
    shares = appr.round_shares(k, len(objs))
    plan = check_steps(appr.steps(k, len(objs)), k, appr.name)
    exact = check_exact(exact, mechanism)
    rng = None if exact and rng is None else check_random_state(rng)  # None: the OS's secure source
    cache = _check_cache(cache, objs)
    label = what if what is not None else appr.name
    if not isinstance(label, str):
        raise TypeError(f"what must be a str, got {type(label).__name__}")
    # up front: raises before anything is computed; delta > 0: the accountant's epsilons of every
    # mechanism call of the selection (its rounds, and its plan's releases)
    steps = selection_plan(appr, k, len(objs)) if plan is None else plan
    kinds = [st.mechanism or mechanism for st in steps]
    relative = k if plan is None and shares is None else [st.share for st in steps]
    check_delta(delta)  # and kept as given (a Fraction reaches the budget exactly), or 0 (delta_for_plan)
    move = 0.0 if plan is None else appr.reallocable_share(k, len(objs))
    delta = delta_for_plan(epsilon, budget, delta, relative, kinds, move)
    budget, total, every = resolve_call(epsilon, budget, delta, relative, kinds, label)
    adaptive = False
    if every is None:
        planned = budget.planned(len(steps))  # inside a planned call (a DP-MOET fit with delta > 0)
        if planned is not None and sum(planned, Fraction(0)) == total:
            every = planned
        elif plan is None:
            every = round_parts(total, k, shares)  # exact; equal shares: each is epsilon / k
        else:  # the approach's releases and rounds, each its exact part (the last step the exact rest)
            every = step_parts(total, [st.share for st in plan])
            # pure epsilon-DP with the plan's own parts: the approach may move epsilon between its later
            # rounds after a release, the parts' sum fixed (adaptive composition, _reallocated)
            adaptive = True
    parts = [p for p, st in zip(every, steps, strict=True) if st.kind == "round"]
    releases = {st.round: p for p, st in zip(every, steps, strict=True) if st.kind == "release"}
    rounds = appr.rounds(objs, w, sensitivity, cache)
    adaptive = adaptive and callable(getattr(rounds, "reallocate", None))
    begin = getattr(rounds, "begin_selection", None)
    if begin is not None:  # the public number of picks (the private greedy hypervolume's reference point)
        begin(k)
    if rounds.static:
        if shares is not None or plan is not None:
            raise ValueError(f"approach {appr.name!r} draws its k picks at once: it takes equal shares only")
        if n == 1:
            budget.spend(total, f"{label}: the only candidate, no data used")
            return np.zeros(1, dtype=np.intp)
        scores, sens = rounds.scores([], np.arange(n, dtype=np.intp))
        budget.spend_rounds(
            total, k, f"{label} ({rounds.score_name})", mechanism=mechanism, sensitivity=sens, candidates=n
        )
        return select(scores, total, sens, mechanism=mechanism, k=k, rng=rng, exact=exact)
    remaining = np.arange(n, dtype=np.intp)  # original indices of the candidates still in play
    chosen: list[int] = []
    for r in range(k):
        share = parts[r]
        if r in releases:  # a private release the later rounds use, recorded right before it is made
            if remaining.size == 1:
                budget.spend(
                    releases[r], f"{label}: release before round {r + 1} of {k} (skipped, no data used)"
                )
            else:
                what_released, rel_sens, count = rounds.release_spec(r, chosen)
                budget.spend(
                    releases[r],
                    f"{label}: release before round {r + 1} of {k} ({what_released})",
                    mechanism="laplace",
                    sensitivity=rel_sens,
                    candidates=count,
                )
                rounds.release(r, chosen, releases[r], rng)
                if adaptive:
                    parts[r:] = _reallocated(rounds, r, parts[r:], label)
                    share = parts[r]
        if remaining.size == 1:
            budget.spend(share, f"{label}: round {r + 1} of {k} (one candidate left, no data used)")
            chosen.append(int(remaining[0]))
            break
        rounds.begin(r, float_at_most(share))
        scores, sens = rounds.scores(chosen, remaining)
        budget.spend(
            share,
            f"{label}: round {r + 1} of {k} ({rounds.score_name})",
            mechanism=mechanism,
            sensitivity=sens,
            candidates=remaining.size,
        )
        # select gets the exact share that was recorded: the exact sampler runs at it, the float one at
        # the largest float not above it (what spend returned)
        pick = int(select(scores, share, sens, mechanism=mechanism, rng=rng, exact=exact)[0])
        c = int(remaining[pick])
        chosen.append(c)
        rounds.chosen(c)
        remaining = np.delete(remaining, pick)
    return np.asarray(chosen, dtype=np.intp)


def _reallocated(rounds, r: int, parts: list, label: str) -> list:
    """The epsilons of rounds ``r .. k - 1`` after the release before round ``r``: ``rounds.reallocate(r,
    parts)`` (a function of public values: the plan, ``n`` and the releases so far), or ``parts`` when it
    returns None. The new parts must be exact ``Fraction`` s > 0 with exactly the same sum, so that every
    history spends exactly the call's epsilon: the transcript's probability ratio between neighbours is a
    product of per-step ratios, each at most ``e^(eps_s)`` with ``eps_s`` fixed by the earlier outputs, and
    the ``eps_s`` sum to epsilon on every path (basic composition with adaptively chosen epsilons, pure DP;
    ``docs/pareto.md``, "With change 1"; measured: ``docs/staircase-measurements.md``, "Where epsilon 50 is
    lost on 10^4 nodes")."""
    new = rounds.reallocate(r, list(parts))
    if new is None:
        return parts
    new = list(new)
    if (
        len(new) != len(parts)
        or not all(isinstance(p, Fraction) and p > 0 for p in new)
        or sum(new, Fraction(0)) != sum(parts, Fraction(0))
    ):
        raise RuntimeError(f"{label}: a reallocation must keep {len(parts)} exact parts > 0 and their sum")
    return new


def plan_selections(
    epsilon, budget, delta, approach, sizes, mechanism, what: str, *, weights=None, releases=()
):
    """Plan a call made of several selections, and releases after them, with ``delta > 0`` (a DP-MOET fit:
    its generations, its output and its leaf counts).

    Selection ``i`` gets the relative share ``weights[i]`` (``1 / len(sizes)`` each when ``weights`` is
    None), split over its ``sizes[i]`` picks as ``approach`` splits a selection
    (:meth:`Approach.round_shares`; equal by default), each of ``mechanism``'s kind; ``releases`` are the
    relative shares and kinds (``(share, kind)``) of the mechanism calls that follow the selections, in
    the order they run. The accountant scales all of them together (:func:`dpmo.accounting.scaled_epsilons`)
    and the call's ``(epsilon, delta)`` is reserved in ``budget`` before anything is computed (refused
    otherwise). Each selection then runs :func:`select_multiobjective` with its epsilon and the call's
    budget (its rounds take the plan's epsilons, :meth:`dpmo.Budget.planned`), and each release records
    its epsilon in the call's budget when it runs.

    Returns
    -------
    (Budget, list of Fraction, list of Fraction)
        The call's budget, the exact epsilon of each selection (the sum of its picks') and of each release.

    Notes
    -----
    The accountant's cost (:func:`dpmo.accounting.scaled_epsilons`) for ``sum(sizes) + len(releases)``
    mechanism calls; nothing else.
    """
    appr = get_approach(approach)
    if weights is None:
        weights = [1.0 / len(sizes)] * len(sizes)
    if len(weights) != len(sizes):
        raise ValueError(f"weights must give one share per selection ({len(sizes)}), got {len(weights)}")
    relative: list[float] = []
    kinds: list[str] = []
    counts: list[int] = []  # mechanism calls of each selection: its rounds, and its plan's releases
    for count, weight in zip(sizes, weights, strict=True):
        steps = selection_plan(appr, count, 2)
        relative.extend(st.share * float(weight) for st in steps)
        kinds.extend(st.mechanism or mechanism for st in steps)
        counts.append(len(steps))
    relative.extend(float(share) for share, _ in releases)
    kinds.extend(kind for _, kind in releases)
    call, total, parts = resolve_call(epsilon, budget, delta, relative, kinds, what)
    ends = np.cumsum(counts).tolist()
    picks = [sum(parts[e - c : e], Fraction(0)) for e, c in zip(ends, counts, strict=True)]
    return call, picks, parts[len(parts) - len(releases) :] if releases else []


def round_parts(total: Fraction, k: int, shares=None) -> list[Fraction]:
    """The exact epsilon of each of ``k`` rounds: ``total / k`` each (``shares`` None), or
    ``total * shares[j]`` for the first ``k - 1`` rounds and the exact rest for the last one, so that the
    rounds always spend exactly ``total``. ``shares`` are public floats (positive, summing to 1)."""
    if shares is None:
        share = total / k
        return [share] * k
    return step_parts(total, shares)


def selection_plan(approach, k: int, m: int) -> tuple[Step, ...]:
    """Every private mechanism call of a selection of ``k`` picks over ``m`` objectives with
    ``approach``, in order, each with its public share of epsilon: the one place where the split of a
    selection's budget is decided (:meth:`Approach.steps`, or the ``k`` rounds of
    :meth:`Approach.round_shares`; equal shares when that is None).

    Examples
    --------
    >>> from dpmo.selection import selection_plan
    >>> [(s.kind, s.round, round(s.share, 3)) for s in selection_plan("pareto", 2, 2)]
    [('round', 0, 0.5), ('round', 1, 0.5)]
    """
    appr = get_approach(approach)
    k, m = int(k), int(m)
    shares = appr.round_shares(k, m)
    plan = check_steps(appr.steps(k, m), k, appr.name)
    if plan is not None:
        return plan
    s = np.full(k, 1.0 / k) if shares is None else np.asarray(shares, dtype=np.float64)
    return tuple(Step("round", j, float(s[j]), None) for j in range(k))


def _argmax_random_ties(values: np.ndarray, rng: np.random.Generator) -> int:
    best = np.flatnonzero(values == values.max())
    return int(best[rng.integers(best.size)]) if best.size > 1 else int(best[0])


def argmax_multiobjective(objectives, *, approach: str = "pareto", weights=None, k: int = 1, rng=None):
    """The NON-private counterpart of :func:`select_multiobjective`: k rounds of the argmax of the
    approach's exact score (recomputed on the remaining candidates), ties broken at random.

    Not differentially private (NODP-MOET uses it). O(k) evaluations of the approach's score.
    """
    objs = check_objectives(objectives)
    n = objs[0].n
    k = check_k(k, n)
    appr = _resolved(get_approach(approach), objs)
    w = appr.check_weights(weights, len(objs))
    rng = check_random_state(rng)
    if hasattr(appr, "_argmax_k"):  # the staircase's reference point depends on the public k
        appr = copy.copy(appr)
        appr._argmax_k = k
    remaining = np.arange(n, dtype=np.intp)
    chosen = []
    for _ in range(k):
        if remaining.size == 1:
            j = 0
        else:
            j = _argmax_random_ties(appr.utility(objs, w, remaining), rng)
        chosen.append(int(remaining[j]))
        remaining = np.delete(remaining, j)
    return np.asarray(chosen, dtype=np.intp)
