"""Single-objective private selection: :func:`select`, :func:`probabilities` and, for audits of many inputs,
:func:`probabilities_by_row`.

One mechanism per small module: :mod:`.exponential`, :mod:`.permute_and_flip`, :mod:`.noisy_max`.
All of them are epsilon-DP for a utility whose global sensitivity is at most ``sensitivity`` (for every
candidate ``r`` and neighbouring inputs ``x, y``: ``|u(x, r) - u(y, r)| <= sensitivity``), whatever the
neighbouring relation of the application is.
"""

from __future__ import annotations

import numpy as np

from .. import _defaults
from .._choices import MECHANISMS
from .._validation import (
    check_choice,
    check_epsilon,
    check_exact,
    check_k,
    check_random_state,
    check_scores,
    check_sensitivity,
)
from ..accounting import check_delta
from ..budget import resolve_budget
from ..calls import check_budget_first, releases_on_error, resolve_call
from ..epsilons import exact_epsilon, float_at_most
from ._common import needs_rounds as needs_rounds  # for dpmo.graphs.spark (not in __all__)
from ._common import scaled_scores as scaled_scores  # for dpmo.graphs.spark (not in __all__)
from .exponential import log_probabilities_exponential, sample_exponential
from .noisy_max import sample_noisy_max
from .permute_and_flip import log_probabilities_permute_and_flip
from .row_laws import check_law_arguments, probabilities_by_row

__all__ = ["MECHANISMS", "select", "probabilities", "probabilities_by_row"]


@releases_on_error
def select(
    scores,
    epsilon: float,
    sensitivity: float,
    *,
    mechanism: str = "exponential",
    k: int = 1,
    rng=None,
    budget=None,
    exact: bool = _defaults.EXACT_SELECT,
    delta: float = 0.0,
) -> np.ndarray:
    """Choose ``k`` distinct candidates with large scores under epsilon-differential privacy.

    Parameters
    ----------
    scores : array_like, shape (n,)
        Utility ``u(x, r)`` of every candidate (larger is better), finite.
    epsilon : float, fractions.Fraction or None
        Total privacy budget of the call, > 0. None (only with ``budget``): all that remains of ``budget``.
        Counted as :class:`dpmo.Budget` counts it (a float as the decimal it prints as, a Fraction as it
        is); each round's float sampler runs at the largest float not above the exact share
        ``epsilon / k`` (:func:`dpmo.epsilons.float_at_most`), the exact sampler at that share itself.
    sensitivity : float
        Global sensitivity ``Delta u`` of the scores, > 0.
    mechanism : {"exponential", "permute_and_flip", "laplace", "gumbel"}
        * ``"exponential"``: ``P(r) ~ exp(eps u(r) / (2 Delta u))``, sampled by Gumbel-max in log space.
        * ``"permute_and_flip"``: McKenna and Sheldon 2020, as report-noisy-max with exponential noise of
          scale ``2 Delta u / eps``. Never worse than the exponential mechanism in expected utility.
        * ``"laplace"``: report-noisy-max with Laplace noise of scale ``2 Delta u / eps``.
        * ``"gumbel"``: report-noisy-max with Gumbel noise of scale ``2 Delta u / eps`` (the same
          distribution as ``"exponential"``).
    k : int, default 1
        Number of distinct candidates, ``1 <= k <= n``. They are chosen in k rounds without replacement,
        each with budget ``epsilon / k``, so the whole call is epsilon-DP by basic sequential composition.
        For the exponential and Gumbel mechanisms the k rounds are done at once by the Gumbel top-k trick,
        which has exactly the same distribution.
    rng : None, int or numpy.random.Generator
        Randomness (SPEC 7): None draws fresh OS entropy; the same seed gives the same output. With
        ``exact=True``, None reads the operating system's secure source (:mod:`secrets`) for every bit;
        an int seed or a Generator makes the exact sampler reproducible, which is for tests only (a
        seeded pseudo-random generator is not a secure source).
    budget : dpmo.Budget, optional
        Spend ``epsilon`` from this budget: ``k`` records of ``epsilon / k`` (exact), all made before the
        sampling, after checking that the whole ``epsilon`` fits (:class:`dpmo.BudgetExceededError`
        otherwise, before anything is computed). Without it the call spends ``epsilon`` of its own.
    exact : bool, default False
        The one entry point whose default is the float sampler: a call of ``select`` is nothing but the
        sampling, and the exact sampler costs 2.7-10 times the float one at n = 37,700 (``docs/core.md``,
        "Floating point and exact sampling"); every entry point built on it samples exactly by default.
        ``True``: sample the mechanism's distribution exactly (:mod:`dpmo.mechanisms.exact`): the float
        scores, epsilon and sensitivity are read as the exact rationals they are (each round uses exactly the
        share ``epsilon / k`` that is recorded), every random decision is an exact coin, and the result
        has exactly the distribution of the mechanism (no floating-point leak, Mironov 2012, Ilvento
        2020). ``"exponential"`` and ``"gumbel"`` (the same distribution) and ``"permute_and_flip"``
        have exact samplers; ``"laplace"`` has none and is refused. The k picks are k sequential rounds
        (the same distribution as the float sampler's). Costs O(k n) vectorised work plus O(k) expected
        exact steps (a few ms per round at n = 37,700; see ``benchmarks/test_core.py``).
    delta : float, default 0
        ``0``: pure epsilon-DP, each round at ``epsilon / k``. ``> 0``: the k rounds are together
        ``(epsilon, delta)``-DP, each run at :func:`dpmo.per_pick_epsilon` ``(epsilon, k, delta=delta,
        mechanism=mechanism)`` (bounded-range credit for ``"exponential"`` / ``"gumbel"``, pure credit
        otherwise; ``docs/privacy-accounting.md``, "Approximate DP"); a ``budget`` is charged
        ``(epsilon, delta)`` and records the k rounds at that epsilon.

    Returns
    -------
    numpy.ndarray of intp, shape (k,)
        Indices of the chosen candidates, in selection order; always k distinct indices.

    Notes
    -----
    Complexity: O(n + k log k) for exponential/gumbel, O(k n) for permute_and_flip/laplace; O(n) memory.
    Every valid input works, including epsilon up to 1.8e308, sensitivities down to 5e-324 and scores
    whose differences exceed the float range: the log-weights are formed without overflow (a candidate
    whose weight underflows is never picked before one whose weight does not), ties stay exact ties
    broken uniformly at random, and in the float samplers each round's log-weights are taken relative to
    the best remaining candidate when they would otherwise swallow the noise.

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> scores = np.array([0.0, 5.0, 1.0, 9.0, 2.0])
    >>> picks = dpmo.select(scores, epsilon=1.0, sensitivity=1.0, k=3, rng=0)
    >>> picks.shape, len(set(picks.tolist())) == 3  # k distinct candidates
    ((3,), True)
    >>> # with a very large budget the exponential mechanism picks the best scores
    >>> sorted(dpmo.select(scores, epsilon=1e4, sensitivity=1.0, k=2, rng=1).tolist())
    [1, 3]
    """
    mechanism = check_choice(mechanism, MECHANISMS, "mechanism")
    check_budget_first(epsilon, budget, delta)  # before the scores are read (issue 37, point 11)
    # the public arguments first: which error a call gets never says whether the scores are finite
    if budget is None or epsilon is not None:
        check_epsilon(epsilon)
    sensitivity = check_sensitivity(sensitivity)
    exact = check_exact(exact, mechanism)
    check_random_state(rng)  # refused before anything is spent; the draw makes its generator
    check_delta(delta)
    n = int(np.size(scores))  # the number of candidates is public (none: check_scores says so)
    k = check_k(k, n) if n else k
    scores = check_scores(scores)
    if check_delta(delta) > 0:
        budget, total, _ = resolve_call(epsilon, budget, delta, k, mechanism, "select")
    if budget is not None:
        if not delta:
            budget, total = resolve_budget(epsilon, budget)
        eps_round = budget.spend_rounds(
            total, k, "select", mechanism=mechanism, sensitivity=sensitivity, candidates=scores.size
        )
        exact_round = total / k
    else:  # as a budget would record it (a float as its decimal), run at the largest float not above
        exact_round = exact_epsilon(epsilon) if k == 1 else exact_epsilon(epsilon) / k
        eps_round = float_at_most(exact_round)
    return draw(scores, exact_round, eps_round, sensitivity, k, rng, exact=exact, mechanism=mechanism)


def draw(
    scores, exact_round, eps_round: float, sensitivity: float, k: int, rng, *, exact: bool, mechanism: str
):
    """The draw of :func:`select` once its arguments are checked and its epsilon accounted: ``k`` rounds at
    ``exact_round`` each (the Fraction recorded; ``eps_round`` its largest float not above, for the float
    samplers). For entry points that record their own spending (:func:`dpmo.local_dampening`), so that a
    recorded call runs at what it recorded whatever its size (a share of ``10^-400`` is no float: ``select``
    with it as ``epsilon`` refused it after the record). ``rng`` as given (None: the exact sampler reads
    the OS's secure source). Cost: that of :func:`select`'s samplers.
    """
    if exact:
        from .exact import sample_exact  # its compiled kernel loads on first use, not with dpmo.select

        source = None if rng is None else check_random_state(rng)  # None: the OS's secure source
        return sample_exact(scores, exact_round, sensitivity, k, source, mechanism)
    rng = check_random_state(rng)
    if mechanism in ("exponential", "gumbel"):
        return sample_exponential(scores, eps_round, sensitivity, k, rng)
    noise = "exponential" if mechanism == "permute_and_flip" else "laplace"
    return sample_noisy_max(scores, eps_round, sensitivity, k, rng, noise)


def probabilities(
    scores, epsilon: float, sensitivity: float, *, mechanism: str, log: bool = False
) -> np.ndarray:
    """Exact output distribution of one private pick (k = 1), for privacy audits.

    Parameters
    ----------
    scores, epsilon, sensitivity
        As in :func:`select`.
    mechanism : {"exponential", "gumbel", "permute_and_flip"}
        Report-noisy-max with Laplace noise has no closed form and is refused.
    log : bool, default False
        Return natural-log probabilities (exact even where the probabilities underflow).

    Returns
    -------
    numpy.ndarray of float64, shape (n,)

    Notes
    -----
    O(n) for exponential/gumbel; O(n^2) for permute_and_flip (exact Gauss-Legendre quadrature of its
    closed form, see :mod:`dpmo.mechanisms.permute_and_flip`).

    Examples
    --------
    >>> import numpy as np
    >>> import dpmo
    >>> scores = np.array([0.0, 1.0, 3.0])
    >>> p = dpmo.probabilities(scores, epsilon=2.0, sensitivity=1.0, mechanism="exponential")
    >>> bool(np.isclose(p.sum(), 1.0))
    True
    >>> # the exponential mechanism: p_r proportional to exp(epsilon u_r / (2 sensitivity))
    >>> w = np.exp(2.0 * scores / 2)
    >>> bool(np.allclose(p, w / w.sum()))
    True
    """
    mechanism, epsilon, sensitivity = check_law_arguments(mechanism, log, epsilon, sensitivity)
    scores = check_scores(scores)
    if mechanism == "permute_and_flip":
        logp = log_probabilities_permute_and_flip(scores, epsilon, sensitivity)
    else:
        logp = log_probabilities_exponential(scores, epsilon, sensitivity)
    return logp if log else np.exp(logp)
