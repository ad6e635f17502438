"""Arguments at the edges of the floats: numbers beyond the float64 range (an int or a Fraction above
1.8e308, a longdouble of 1e4000), subnormal epsilons and sensitivities in :mod:`dpmo.preview`, wrong types,
a complex local sensitivity, and scores of +-1.7e308 in ``probabilities_by_row``.

Every refusal is a ValueError or TypeError naming the argument (never a bare ``OverflowError``, never a
400-digit number in the message); every figure is checked against a closed form computed here.
"""

from __future__ import annotations

import math
import re
import warnings
from fractions import Fraction

import numpy as np
import pytest

import dpmo
from dpmo.mechanisms import probabilities_by_row

PREVIEW_MECHANISMS = ("exponential", "permute_and_flip", "laplace", "gumbel")
HUGE = 10**400


def _short(message: str) -> bool:
    """No run of more than 40 digits: a huge argument is described, not written out."""
    return re.search(r"\d{41,}", message) is None


# ------------------------------------------------------------------------- numbers beyond the floats
U = np.arange(5.0)


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: dpmo.select(U, HUGE, 1.0), "epsilon"),
        (lambda: dpmo.select(U, Fraction(HUGE), 1.0), "epsilon"),
        (lambda: dpmo.select(U, -HUGE, 1.0), "epsilon"),
        (lambda: dpmo.select(U, Fraction(HUGE, 3), 1.0), "epsilon"),
        (lambda: dpmo.select(U, np.longdouble("1e4000"), 1.0), "epsilon"),
        (lambda: dpmo.select(U, 1.0, HUGE), "sensitivity"),
        (lambda: dpmo.probabilities(U, HUGE, 1.0, mechanism="exponential"), "epsilon"),
        (lambda: dpmo.probabilities(U, 1.0, Fraction(HUGE), mechanism="exponential"), "sensitivity"),
        (lambda: dpmo.dampen(U, lambda t: np.ones(5), global_sensitivity=HUGE), "global_sensitivity"),
        (
            lambda: dpmo.dampen(U, lambda t: np.ones(5), global_sensitivity=1.0, min_sensitivity=HUGE),
            "min_sensitivity",
        ),
        (lambda: dpmo.local_dampening(U, HUGE, lambda t: np.ones(5), global_sensitivity=1.0), "epsilon"),
        (lambda: dpmo.lead_needed(10, HUGE), "epsilon"),
        (lambda: dpmo.lead_needed(10, Fraction(HUGE)), "epsilon"),
        (lambda: dpmo.lead_needed(10, epsilon_per_pick=HUGE), "epsilon_per_pick"),
        (lambda: dpmo.lead_needed(10, 1.0, sensitivity=HUGE), "sensitivity"),
        (lambda: dpmo.lead_needed(10, 1.0, Fraction(HUGE)), "probability"),
        (lambda: dpmo.lead_needed(10, 1.0, delta=HUGE), "delta"),
        (lambda: dpmo.pick_probability(HUGE, 10, 1.0), "lead"),
        (lambda: dpmo.pick_probability(1.0, 10, 1.0, sensitivity=HUGE), "sensitivity"),
        (lambda: dpmo.pick_probability(1.0, 10, np.longdouble("1e4000")), "epsilon"),
    ],
)
def test_a_number_beyond_the_floats_is_a_value_error_naming_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must be") as info:
        call()
    message = str(info.value)
    assert _short(message)
    assert "within the float" in message  # said to be beyond the floats, not "not finite": it is finite


def test_a_long_number_within_the_floats_is_described_not_written_out():
    with pytest.raises(
        ValueError, match="^epsilon must be a positive finite number, got about -1e300"
    ) as info:
        dpmo.pick_probability(1.0, 10, -(10**300))
    assert _short(str(info.value))


@pytest.mark.parametrize("mechanism", ["exponential", "permute_and_flip", "laplace"])
def test_more_candidates_than_the_floats_count_exactly_are_refused(mechanism):
    """``n`` above 2^53 (formerly an OverflowError for 10^400, in ``n p`` or ``(n - 1) ln 2``)."""
    for n in (2**53 + 1, HUGE):
        with pytest.raises(ValueError, match="^n must be at least 1 and at most 9007199254740992") as info:
            dpmo.pick_probability(1.0, n, 1.0, mechanism=mechanism)
        assert _short(str(info.value))
        with pytest.raises(ValueError, match="^n must be"):
            dpmo.lead_needed(n, 1.0, mechanism=mechanism)


def test_a_longdouble_score_beyond_float64_is_said_so():
    scores = np.array([np.longdouble("1e4000"), np.longdouble(1.0)])
    assert np.all(np.isfinite(scores))  # finite as longdouble
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # formerly "overflow encountered in cast", a RuntimeWarning
        with pytest.raises(ValueError, match="scores must lie within the float64 range"):
            dpmo.select(scores, 1.0, 1.0)
        with pytest.raises(ValueError, match="finite"):  # an infinite one is still "not finite"
            dpmo.select(np.array([np.longdouble("inf"), np.longdouble(1.0)]), 1.0, 1.0)
    # a longdouble scores array within the range is read as float64
    assert dpmo.probabilities(np.array([0.0, 0.0], dtype=np.longdouble), 1.0, 1.0, mechanism="exponential")[
        0
    ] == pytest.approx(0.5)


# ---------------------------------------------------------------------- subnormal epsilon, sensitivity
def test_a_subnormal_epsilon_gives_the_closed_form_lead():
    """``(2 sensitivity / epsilon) ln((n - 1) q / (1 - q))``: 2 ln(9) 1e10 for n = 10, q = 1/2 (was inf:
    ``2 a / epsilon`` overflowed before the sensitivity brought it back)."""
    want = 2.0 * math.log(9.0) * 1e10
    assert dpmo.lead_needed(10, 1e-310, sensitivity=1e-300) == pytest.approx(want, rel=1e-9)


def test_a_subnormal_epsilon_and_sensitivity_give_the_closed_form_probability():
    """``1 / (1 + (n - 1) e^-a)`` with ``a = epsilon lead / (2 sensitivity) = 1/2`` (was 1.0: lead /
    sensitivity overflowed)."""
    want = 1.0 / (1.0 + 9.0 * math.exp(-0.5))
    assert dpmo.pick_probability(1.0, 10, 1e-310, sensitivity=1e-310) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize("mechanism", PREVIEW_MECHANISMS)
def test_a_huge_lead_on_a_subnormal_per_pick_epsilon_is_certain(mechanism):
    """a = (5e-324 / 2) 1e308 / (2 1e-308) ~ 1e292: probability 1 (was NaN: epsilon / 2 rounded to 0,
    times an infinite lead / sensitivity)."""
    assert dpmo.pick_probability(1e308, 10, 5e-324, k=2, sensitivity=1e-308, mechanism=mechanism) == 1.0


@pytest.mark.parametrize("mechanism", PREVIEW_MECHANISMS)
@pytest.mark.parametrize("k", [1, 2])
def test_only_epsilon_over_sensitivity_matters(mechanism, k):
    """Epsilon and sensitivity scaled by the same power of two (into the subnormals: 2^-1040 is exact) give
    the same figures as at their normal values."""
    scale = 2.0**-1040
    for lead in (0.0, 0.7, 3.0):
        normal = dpmo.pick_probability(lead, 8, 1.0, k=k, sensitivity=0.5, mechanism=mechanism)
        tiny = dpmo.pick_probability(lead, 8, scale, k=k, sensitivity=0.5 * scale, mechanism=mechanism)
        assert tiny == normal
    normal = dpmo.lead_needed(8, 1.0, 0.6, k=k, sensitivity=0.5, mechanism=mechanism)
    tiny = dpmo.lead_needed(8, scale, 0.6, k=k, sensitivity=0.5 * scale, mechanism=mechanism)
    assert tiny == pytest.approx(normal, rel=1e-12)


def test_a_lead_beyond_the_floats_is_inf():
    """A per-pick epsilon far below the sensitivity: the lead needed, 2 ln(9) 1e310, has no float."""
    assert dpmo.lead_needed(10, 1e-310, sensitivity=1.0) == math.inf


# ---------------------------------------------------------------------------------- the range [k/n, 1]
@pytest.mark.parametrize("mechanism", PREVIEW_MECHANISMS)
def test_the_probability_never_falls_below_k_over_n(mechanism):
    """``P_k >= k / n`` (the best is at least as likely as a tied other): formerly ``1 / (1 + e^ln(m))``
    came out an ulp below ``1 / n`` (n = 3, 5, ...)."""
    for n in range(2, 13):
        for k in range(1, n + 1):
            for lead in (0.0, 1e-300):
                p = dpmo.pick_probability(lead, n, 1.0, k=k, mechanism=mechanism)
                assert k / n <= p <= 1.0


def test_a_tiny_probability_is_not_lost_in_one_minus_it():
    """n = 2^53, a = 1/2: ``1 / (1 + (n - 1) e^-1/2)`` ~ 1.8e-16, formerly ``1 - (1 - p)`` (0 or 2.2e-16)."""
    n = 2**53
    want = 1.0 / (1.0 + (n - 1) * math.exp(-0.5))
    assert dpmo.pick_probability(1.0, n, 1.0) == pytest.approx(want, rel=1e-12, abs=0.0)


# --------------------------------------------------------------------------------------- wrong types
@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: dpmo.pick_probability("1", 10, 1.0), "lead"),
        (lambda: dpmo.pick_probability(None, 10, 1.0), "lead"),
        (lambda: dpmo.pick_probability(1.0, 10, 1.0, delta="0"), "delta"),
        (lambda: dpmo.pick_probability(1.0, 10, 1.0, sensitivity="1"), "sensitivity"),
        (lambda: dpmo.lead_needed(10, 1.0, delta="0"), "delta"),
        (lambda: dpmo.lead_needed(10, 1.0, probability="0.5"), "probability"),
        (lambda: dpmo.lead_needed(10, 1.0, True), "probability"),
        (lambda: dpmo.lead_needed(10, epsilon_per_pick="0.5"), "epsilon_per_pick"),
    ],
)
def test_a_wrong_type_is_a_type_error_naming_the_argument(call, name):
    with pytest.raises(TypeError, match=rf"^{name} must be"):
        call()


# ---------------------------------------------------------------------------- complex local functions
def test_a_complex_local_sensitivity_is_refused():
    obj = dpmo.Objective([1.0, 2.0, 3.0], 1.0, local=lambda t: np.full(3, 0.5 + 1j))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # formerly a ComplexWarning, the imaginary part dropped
        with pytest.raises(TypeError, match="must return real numbers"):
            obj.sensitivity(0)
        with pytest.raises(TypeError, match="must return real numbers"):
            dpmo.Objective([1.0, 2.0], 1.0, local=lambda t: [0.5 + 0j, 0.5]).sensitivity(0)


# ------------------------------------------------------------------------ probabilities_by_row extremes
@pytest.mark.parametrize("mechanism", ["exponential", "gumbel", "permute_and_flip"])
def test_rows_beyond_the_float_spread_warn_nothing(mechanism):
    """max u - min u = 3.4e308 overflows: no RuntimeWarning; that row's law is (1, 0, 0) (the others are
    e^-8.5e307 and e^-1.7e308 times less likely: 0 in floats), the ordinary row is its own law."""
    S = np.array([[1.7e308, -1.7e308, 0.0], [1.0, 2.0, 3.0], [-1.7e308, 1.7e308, 1.7e308]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        P = probabilities_by_row(S, 1.0, 1.0, mechanism=mechanism)
        logp = probabilities_by_row(S, 1.0, 1.0, mechanism=mechanism, log=True)
    assert P[0].tolist() == [1.0, 0.0, 0.0]
    assert P[2, 0] == 0.0 and P[2, 1] == pytest.approx(0.5) and P[2, 2] == pytest.approx(0.5)
    assert logp[0, 1] == pytest.approx(-1.7e308)  # epsilon (u - max u) / (2 sensitivity), a finite float
    # the ordinary row: exponential's softmax of u / 2, permute-and-flip's law from dpmo.probabilities
    if mechanism == "permute_and_flip":
        want = dpmo.probabilities(S[1], 1.0, 1.0, mechanism=mechanism)
    else:
        w = np.exp(np.array([1.0, 2.0, 3.0]) / 2.0)
        want = w / w.sum()
    assert np.allclose(P[1], want, rtol=0, atol=1e-12)
    # every row of far spreads alone, too
    only = probabilities_by_row(S[[0]], 1.0, 1.0, mechanism=mechanism)
    assert only[0].tolist() == [1.0, 0.0, 0.0]


def test_epsilon_and_sensitivity_messages_describe_long_numbers():
    """check_epsilon and check_sensitivity wrote a -10**300 out in full (301 digits)."""
    for eps, sens in [(-(10**300), 1.0), (1.0, -(10**300)), (Fraction(-1, 10**400), 1.0)]:
        with pytest.raises(ValueError) as info:
            dpmo.select(np.arange(3.0), eps, sens)
        assert len(str(info.value)) < 120 and "about -1e" in str(info.value)
