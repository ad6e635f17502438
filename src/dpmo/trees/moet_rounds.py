"""What each private step of a DP-MOET fit gets: the scores of a selection round and the budget shares.

* :func:`selection_scores`: the scores and sensitivity one private pick hands to :func:`dpmo.select`
  (the exact distribution of a pick, used by the privacy audit in the tests).
* :func:`fit_shares`: how a fit divides its ``epsilon`` between the ``k`` generations, the final
  selection and the noisy leaf counts of the output trees (:mod:`dpmo.trees.leaf_counts`), exactly.
"""

from __future__ import annotations

import numpy as np

from .. import selection as _selection
from .._validation import check_choice
from ..epsilons import exact_epsilon
from ..selection import approaches, get_approach
from .budget_params import check_share
from .objectives import NEIGHBOURING, tnr_objective, tpr_objective

__all__ = ["SENSITIVITIES", "selection_scores", "fit_shares", "check_tree_weights"]

SENSITIVITIES = ("local", "global")


def tpr_tnr_objectives(tp, p, tn, n, neighbouring: str):
    """The (TPR, TNR) objectives of trees: ``tp`` of ``p`` positives, ``tn`` of ``n`` negatives."""
    return [tpr_objective(tp, p, neighbouring=neighbouring), tnr_objective(tn, n, neighbouring=neighbouring)]


def selection_scores(
    tp,
    p,
    tn,
    n,
    *,
    approach: str = "pareto",
    sensitivity: str = "local",
    weights=(3.0, 2.0),
    neighbouring: str = "add_remove",
) -> tuple[np.ndarray, float]:
    """Scores and sensitivity that one private pick of DP-MOET hands to :func:`dpmo.select`.

    For ``approach="pareto"`` this is :func:`dpmo.pareto.pareto_selection_scores` on the TPR and TNR
    objectives (dampened Pareto scores with sensitivity 1, or the Pareto scores with ``n_trees - 1``); for
    ``"agg"`` :func:`dpmo.aggregate.aggregate_selection_scores` of ``w_tpr TPR + w_tnr TNR`` (dampened with
    sensitivity 1, or raw with ``w_tpr + w_tnr``). The exact output distribution of the pick is
    ``dpmo.probabilities(*selection_scores(...), mechanism=...)``; the privacy audit in the tests uses it.

    Parameters
    ----------
    tp, tn : array_like of int, shape (T,)
        True positives and true negatives of every tree.
    p, n : int
        Positive and negative records.
    approach, sensitivity, weights, neighbouring
        As in :class:`DPMOETClassifier`.

    Returns
    -------
    (scores, sensitivity) : (ndarray of float64 (T,), float)

    Notes
    -----
    Cost of one round of :func:`dpmo.priv_pareto` or :func:`dpmo.priv_agg` without the sampling.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo.trees import selection_scores
    >>> tp, tn = np.array([8, 5, 2]), np.array([1, 5, 9])
    >>> scores, sens = selection_scores(tp, 10, tn, 10, approach="agg", sensitivity="global")
    >>> bool(np.allclose(scores, 3 * tp / 10 + 2 * tn / 10)), sens  # 3 TPR + 2 TNR, sensitivity 3 + 2
    (True, 5.0)
    """
    appr = get_approach(check_choice(approach, approaches(), "approach"))
    sensitivity = check_choice(sensitivity, SENSITIVITIES, "sensitivity")
    neighbouring = check_choice(neighbouring, NEIGHBOURING, "neighbouring")
    objs = tpr_tnr_objectives(tp, p, tn, n, neighbouring)
    if len(objs[0]) < 2:
        raise ValueError("a private selection needs at least 2 trees")
    w = weights if appr.uses_weights else None
    return _selection.selection_scores(objs, approach=appr.name, sensitivity=sensitivity, weights=w)


def check_tree_weights(weights) -> np.ndarray:
    """DP-MOET's ``weights`` as a float array ``(w_tpr, w_tnr)``, refused (ValueError naming them) unless two
    finite numbers, not both 0. O(1)."""
    try:
        w = np.asarray(weights, dtype=np.float64) if not isinstance(weights, (str, bytes)) else None
    except (TypeError, ValueError):
        w = None
    if w is None or w.shape != (2,) or not np.all(np.isfinite(w)) or not np.any(w != 0):
        raise ValueError(f"weights must be two finite numbers (w_tpr, w_tnr), not both 0, got {weights!r}")
    return w


def fit_shares(epsilon, k: int, o: int, leaf_count_share=0.0, final_share=None):
    """The exact epsilon of one generation, of the final selection and of each output tree's leaf counts.

    ``leaf_count_share`` of ``epsilon`` goes to the leaf counts, in equal parts over the ``o`` output
    trees; the rest goes to the selections: ``final_share`` of it to the final selection and the other
    part equally to the ``k`` generations, or (``final_share`` None, or ``k = 0``) the same share to every
    one of the ``k + 1`` rounds. A round divides its share equally over its picks. The parts add up to
    ``epsilon`` exactly: ``k eps_round + eps_final + o eps_leaf = epsilon``.

    Parameters
    ----------
    epsilon : float, int, Fraction or None
        The fit's budget (read as :func:`dpmo.epsilons.exact_epsilon` does). None (the non-private fit):
        the shares are only validated, and None is returned for each.
    k, o : int
        Generations and output trees.
    leaf_count_share : float, 0 or in [1e-6, 1 - 1e-6] (:func:`dpmo.trees.budget_params.check_share`)
    final_share : float in [1e-6, 1 - 1e-6] or None

    Returns
    -------
    (eps_round, eps_final, eps_leaf) : Fraction or None each
        ``eps_round`` is None when ``k = 0``, ``eps_leaf`` when ``leaf_count_share = 0``.

    Notes
    -----
    O(1) exact arithmetic (fractions.Fraction).

    Examples
    --------
    >>> from dpmo.trees.moet_rounds import fit_shares
    >>> [str(x) for x in fit_shares(1.0, 2, 1, leaf_count_share=0.1)]  # 0.9 over 3 rounds, 0.1 for counts
    ['3/10', '3/10', '1/10']
    >>> [str(x) for x in fit_shares(1.0, 2, 1, final_share=0.5)[:2]]  # half to the final, 1/4 a generation
    ['1/4', '1/2']
    """
    check_share(leaf_count_share, "leaf_count_share", may_be_zero=True)
    leaf = exact_epsilon(leaf_count_share, "leaf_count_share", allow_zero=True)
    if final_share is not None:
        check_share(final_share, "final_share")
    final = None if final_share is None else exact_epsilon(final_share, "final_share")
    if epsilon is None:
        return None, None, None
    total = exact_epsilon(epsilon)
    selections = total * (1 - leaf)
    eps_final = selections / (k + 1) if final is None or k == 0 else selections * final
    eps_round = (selections - eps_final) / k if k else None
    eps_leaf = total * leaf / o if leaf else None
    return eps_round, eps_final, eps_leaf
