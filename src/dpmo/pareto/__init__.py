"""PrivPareto: private selection near the Pareto front (the paper's section "PrivPareto Mechanism").

Vocabulary (the paper's section "Pareto Score"): ``m`` utilities ``u_1 .. u_m`` (larger is better) over
``n`` candidates. Candidate ``a`` *dominates* ``b`` (the paper's ``a >=^x b``) when ``u_i(x, a) >= u_i(x, b)``
for every ``i``: **weak** dominance, so two identical candidates dominate each other. The Pareto score
(Definition "Pareto Score") is minus the number of *other* candidates that dominate ``r``:

    PS(x, r) = -#{r' != r : u_i(x, r') >= u_i(x, r) for all i},

0 on the Pareto front and at least ``-(n - 1)``, so its global sensitivity is ``n - 1``.

The local sensitivity function (Definition "Admissible Function for Pareto Score") is
``delta^PS(x, t, r) = |dom^-_{x,t,r}| + |ndom^+_{x,t,r}|`` with ``u_i^{+-t}(x, r) = u_i(x, r) +- sum_{j=0}^{t}
delta^{u_i}(x, j, r)``. It is computed through the identity (proved in ``docs/pareto.md`` and checked by
brute force in the tests)

    delta^PS(x, t, r) = #{r' != r : u^{+t}(r') >= u^{-t}(r) in every objective}
                        - #{r' : u^{-t}(r') > u^{+t}(r) in every objective},

i.e. two offline dominance counts, instead of enumerating the sets.

Neighbouring relation: whatever the objectives' sensitivities are stated for (their admissible functions
and global sensitivities must all refer to the same relation); the Pareto score's guarantees hold for
that relation.

Layout of the package:

* :mod:`dpmo.pareto.score`: :func:`pareto_score`;
* :mod:`dpmo.pareto.mechanism`: :func:`pareto_sensitivity`, :func:`pareto_selection_scores`,
  :func:`priv_pareto` and :class:`ParetoApproach` (registered as ``approach="pareto"``);
* :mod:`dpmo.pareto.state`: the counting state of ``delta^PS`` (running sums, kept counts, removals);
* :mod:`dpmo.pareto.rounds`: the rounds of PrivPareto and their cache (:class:`RoundCache`);
* :mod:`dpmo.pareto.dominance`: offline dominance counting (any ``m``, any sizes);
* :mod:`dpmo.pareto.sweep`: the counts of one distance over all candidates for ``m <= 2`` (radix sorts
  and one sweep per count, shared between the two counts) and the corrections for removed candidates.

Every public name of this package is importable from ``dpmo.pareto``.
"""

from __future__ import annotations

from ..selection import check_objectives
from .mechanism import (
    SENSITIVITY_MODES,
    ParetoApproach,
    pareto_selection_scores,
    pareto_sensitivity,
    priv_pareto,
)
from .rounds import RoundCache
from .score import pareto_score

__all__ = [
    "pareto_score",
    "pareto_sensitivity",
    "pareto_selection_scores",
    "priv_pareto",
    "ParetoApproach",
    "RoundCache",
    "SENSITIVITY_MODES",
    "check_objectives",
]
