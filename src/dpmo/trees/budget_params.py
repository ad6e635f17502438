"""The budget parameters of a tree fit: the total epsilon and the shares that split it, checked up front.

A tree fit divides its epsilon among many mechanisms (levels, rounds, leaves, a record count), each of
which adds noise of scale ``1 / eps`` to counts or scores. Two public rules keep every such scale inside
the floats, so that a fit at a tiny budget returns a (useless but valid) model and never a NaN, an
overflow or a division by zero from deep inside:

* the total ``epsilon`` is at least :data:`MIN_FIT_EPSILON` (``1e-100``). No budget anywhere near it can
  tell two tables apart; a mechanism's share of it is at least ``1e-100 x 1e-6 / (levels x rounds)``, so
  its noise scale stays below about ``1e120`` for any fit that ends, and sums of such noise stay finite;
* a share (``leaf_count_share``, ``final_share``, ``leaf_share``) is 0 where a share may be off, or in
  ``[SHARE_RESOLUTION, 1 - SHARE_RESOLUTION]`` (``1e-6``): ``PrivateTreeClassifier`` reads its share to
  six decimals, and a share below that is a mechanism run at no budget.

Both are rules on public parameters only (``docs/trees.md``); they are checked before any data is read.
"""

from __future__ import annotations

from .._validation import check_epsilon, check_real

__all__ = ["MIN_FIT_EPSILON", "SHARE_RESOLUTION", "check_fit_epsilon", "check_share", "check_parameters"]

#: The smallest total epsilon a tree fit accepts (module notes).
MIN_FIT_EPSILON = 1e-100
#: The smallest positive budget share of a fit, and one minus the largest (module notes).
SHARE_RESOLUTION = 1e-6


def check_fit_epsilon(epsilon) -> float:
    """``epsilon`` as a float, refused unless a finite number of at least :data:`MIN_FIT_EPSILON`. O(1).

    Examples
    --------
    >>> from dpmo.trees.budget_params import check_fit_epsilon
    >>> check_fit_epsilon(0.5)
    0.5
    >>> try:
    ...     check_fit_epsilon(1e-300)
    ... except ValueError as exc:
    ...     print(str(exc)[:46])
    epsilon must be at least 1e-100 for a tree fit
    """
    value = check_epsilon(epsilon)
    if value < MIN_FIT_EPSILON:
        raise ValueError(
            f"epsilon must be at least {MIN_FIT_EPSILON:g} for a tree fit (a fit splits it over many "
            "mechanisms, each adding noise of scale 1 / its share: below 1e-100 that leaves the floats, and "
            f"no fit could tell two tables apart), got {epsilon!r}"
        )
    return value


def check_share(value, name: str, *, may_be_zero: bool = False) -> float:
    """``value`` as a float, refused unless in ``[SHARE_RESOLUTION, 1 - SHARE_RESOLUTION]`` (or 0 when
    ``may_be_zero``), with a message naming ``name``. O(1).

    Examples
    --------
    >>> from dpmo.trees.budget_params import check_share
    >>> check_share(0.05, "leaf_share"), check_share(0, "leaf_count_share", may_be_zero=True)
    (0.05, 0.0)
    >>> check_share(1e-9, "final_share")
    Traceback (most recent call last):
    ...
    ValueError: final_share must be in [1e-06, 0.999999], got 1e-09
    """
    share = check_real(value, name)
    if may_be_zero and share == 0:
        return 0.0
    if not SHARE_RESOLUTION <= share <= 1.0 - SHARE_RESOLUTION:
        allowed = f"[{SHARE_RESOLUTION:g}, {1.0 - SHARE_RESOLUTION:g}]"
        raise ValueError(f"{name} must be {'0 or in ' if may_be_zero else 'in '}{allowed}, got {value!r}")
    return share


def check_parameters(estimator) -> None:
    """Check a tree estimator's public parameters as its ``fit`` does first, without any data: the command
    line calls it before it reads the table, so that which error a bad option gets never depends on the
    table (a record outside its declared domain). ValueError/TypeError naming the parameter. O(1)."""
    # DiffP-ID3, LocalDiffPID3 and PrivateTree check in _check_params, DP-MOET in _validate_params
    (getattr(estimator, "_check_params", None) or estimator._validate_params)()
