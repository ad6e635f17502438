"""Declared ranges across a selection's objectives: the warning when only some declare one (issue 38).

``approach="chebyshev"`` and ``"staircase"`` compare the objectives with each other. With a declared range
(``Objective(bounds=(low, high))``, ``COL=SENS@LOW:HIGH`` on the command line) on every objective they
compare them in units of those ranges; with none, in units of their sensitivities. A table with ranges on
some objectives only is neither: ``staircase`` then ignores the declared ranges (the corner staircase), and
``chebyshev`` compares declared columns in range units with the others in sensitivity units, while its
Pareto gate covers only undeclared columns much narrower than the finest declared resolution
(``docs/pareto.md``, "Without declared ranges"). Both are legal and private, and usually not what was
meant, so :func:`warn_mixed_ranges` says so once per selection (:class:`MixedRangesWarning`).
Reads the declarations and the objectives' names only (public), never a value.
"""

from __future__ import annotations

from ._warnings import warn_at_caller

__all__ = ["MixedRangesWarning", "mixed_ranges", "mixed_ranges_note", "warn_mixed_ranges"]


class MixedRangesWarning(UserWarning):
    """Some objectives of a ``chebyshev`` or ``staircase`` selection declare a range and others do not
    (module notes). Declare ``bounds=(low, high)`` on every objective, or silence it with
    ``warnings.filterwarnings("ignore", category=dpmo.ranges.MixedRangesWarning)``."""


def mixed_ranges(objectives) -> tuple[list[str], list[str]]:
    """``(declared, undeclared)``: the labels of the objectives with and without a declared range (their
    names when those tell them apart, else ``objective i``, from 1); both non-empty exactly when the table is
    mixed. O(m). A ``TypeError`` names ``objectives`` when it is not a sequence.

    Examples
    --------
    >>> import dpmo
    >>> from dpmo.ranges import mixed_ranges
    >>> a, b = dpmo.Objective([1.0], 1.0, name="a", bounds=(0, 5)), dpmo.Objective([2.0], 0.1, name="b")
    >>> mixed_ranges([a, b]), mixed_ranges([a, a, b])
    ((["'a'"], ["'b'"]), (['objective 1', 'objective 2'], ['objective 3']))
    """
    if isinstance(objectives, (str, bytes)) or not hasattr(objectives, "__iter__"):
        raise TypeError(f"objectives must be a sequence of dpmo.Objective, got {type(objectives).__name__}")
    objectives = list(objectives)
    names = [getattr(o, "name", None) for o in objectives]
    named = None not in names and len(set(names)) == len(names)
    declared, undeclared = [], []
    for i, o in enumerate(objectives):
        label = repr(names[i]) if named else f"objective {i + 1}"
        (declared if getattr(o, "bounds", None) is not None else undeclared).append(label)
    return declared, undeclared


def mixed_ranges_note(objectives, approach: str) -> str | None:
    """What ``approach`` (``"chebyshev"`` or ``"staircase"``) does with ranges on some ``objectives`` only,
    in one sentence naming the columns; None when every objective or none declares one. The one wording of
    :func:`warn_mixed_ranges` and of ``dpmo select``'s stderr line (each adds how to declare a range in its
    own terms). O(m).

    Examples
    --------
    >>> import dpmo
    >>> from dpmo.ranges import mixed_ranges_note
    >>> a, b = dpmo.Objective([1.0], 1.0, name="a", bounds=(0, 5)), dpmo.Objective([2.0], 0.1, name="b")
    >>> mixed_ranges_note([a, b], "staircase")[:45], mixed_ranges_note([a], "chebyshev")
    ("'b' declare(s) no range while 'a' do(es), so ", None)
    """
    declared, undeclared = mixed_ranges(objectives)
    if not (declared and undeclared):
        return None
    if approach == "staircase":
        what = (
            "the declared ranges are not used: every objective is compared in units of its sensitivity "
            "(the corner staircase, docs/pareto.md, 'Which approach')"
        )
    else:
        what = (
            "these are compared in units of their sensitivities with the others in units of their ranges, "
            "and without noise the Pareto gate covers only undeclared columns much narrower than the finest "
            "declared resolution (docs/pareto.md, 'Without declared ranges')"
        )
    return f"{', '.join(undeclared)} declare(s) no range while {', '.join(declared)} do(es), so {what}"


def warn_mixed_ranges(objectives, approach: str) -> bool:
    """Warn (:class:`MixedRangesWarning`, at the user's line) with :func:`mixed_ranges_note` when some but
    not all ``objectives`` declare a range; True when it warned. O(m) plus the stack's depth."""
    note = mixed_ranges_note(objectives, approach)
    if note is None:
        return False
    warn_at_caller(
        f"approach={approach!r}: {note}; declare bounds=(low, high) on every objective", MixedRangesWarning
    )
    return True
