"""What the tree estimators say: warnings and refusals whose words never quote the records.

* :class:`DefaultBoundsWarning`: the one warning of a fit without declared bounds, the same for every table;
* :class:`InferredClassesWarning`: the one warning of a fit without a declared label set, likewise;
* :class:`SingleLeafWarning`: an ID3 tree released as a single leaf, in words from the public settings only;
* the refusals of labels (the rule broken, never a label or a count);
* :func:`redacted`: scikit-learn's and numpy's validation errors without the records they quote.

:func:`sklearn.utils.validation.check_array` prints the whole array it refuses (``Expected 2D array, got 1D
array instead: array=[17.99 ...]``), numpy names the cell it cannot convert (``could not convert string to
float: 'abc'``), and :func:`~sklearn.utils.validation.check_consistent_length` and
:func:`~sklearn.utils.validation.column_or_1d` print the numbers of rows. The tree estimators validate the
private training table with them, so their messages are rewritten here (:func:`redacted`) to name the rule
broken only, as every other refusal of ``dpmo`` does (:data:`dpmo.datasets.types.NOT_SHOWN`). The words
scikit-learn's estimator checks look for ("Reshape your data", "Unknown label type") are kept. Left as they
are: messages that quote nothing of the records, and scikit-learn's refusal of a table with no column,
whose text its estimator checks require (it shows the shape of that empty table).
"""

from __future__ import annotations

import math
import re
from contextlib import contextmanager

from ..datasets.types import NOT_SHOWN

__all__ = [
    "DefaultBoundsWarning",
    "DEFAULT_BOUNDS_MESSAGE",
    "InferredClassesWarning",
    "INFERRED_CLASSES_MESSAGE",
    "SingleLeafWarning",
    "single_leaf_message",
    "NOT_SHOWN_LABEL",
    "ONE_LABEL_PER_ROW",
    "redacted",
    "redact",
]


class DefaultBoundsWarning(UserWarning):
    """A tree estimator was fitted on a raw table without ``features``: the default bounds ``[0, 1]``.

    Raised by ``fit`` of :class:`~dpmo.trees.DPMOETClassifier`, :class:`~dpmo.trees.DiffPID3Classifier` and
    :class:`~dpmo.trees.LocalDiffPID3Classifier` on every such fit, with the same words
    (:data:`DEFAULT_BOUNDS_MESSAGE`) whatever the table holds, so that the warning itself says nothing about
    the records. Silence it by declaring the bounds (``features=``, or a :class:`~dpmo.datasets.Dataset`);
    for a table already scaled to ``[0, 1]`` with public bounds, ``features=[Feature(name, "numeric",
    bounds=(0, 1)), ...]`` declares exactly what the default assumes.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from dpmo.trees import DefaultBoundsWarning, DiffPID3Classifier
    >>> X, y = np.array([[0.2], [0.9], [0.4], [0.7]]), np.array([0, 1, 0, 1])
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     _ = DiffPID3Classifier(1.0, max_depth=0, classes=[0, 1], random_state=0).fit(X, y)
    >>> [w.category is DefaultBoundsWarning for w in seen]
    [True]
    """


#: The one text of :class:`DefaultBoundsWarning` (it never depends on the data).
DEFAULT_BOUNDS_MESSAGE = (
    "no public bounds were declared (features=None): every column of X is read as numeric on the default "
    "range [0, 1], and values outside it are clipped to it. Whether any value was clipped is not said (it "
    "depends on the private records), and clipping can make the model useless on unscaled data. Declare "
    "each column's public bounds or categories with features=[dpmo.datasets.Feature(...), ...], or fit a "
    "dpmo.datasets.Dataset; this warning is the same for every table (docs/public-inputs.md)"
)


class InferredClassesWarning(UserWarning):
    """A tree estimator was fitted without ``classes=``: the label set was read from ``y``.

    The label set is public input (``docs/public-inputs.md``): the fitted ``classes_`` shows it, the
    positive class is chosen by its sort order, and a ``y`` holding one label is refused. Raised by ``fit``
    of :class:`~dpmo.trees.DPMOETClassifier`, :class:`~dpmo.trees.DiffPID3Classifier` and
    :class:`~dpmo.trees.LocalDiffPID3Classifier` on every fit with ``classes=None`` and labels given as
    ``y``, before ``y`` is read and with the same words (:data:`INFERRED_CLASSES_MESSAGE`) whatever it
    holds. Silence it by declaring the label set (``classes=[negative, positive]``). The labels of a
    :class:`~dpmo.datasets.Dataset` fitted as ``fit(data)`` or of an :class:`~dpmo.trees.EncodedData` are
    encoded by the loader's public rule, the label set ``{0, 1}`` (1 = the loader's positive class), and get
    no warning; ``fit(data.X, data.y)`` passes a ``y`` like any other (declare ``classes=[0, 1]``).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from dpmo.datasets import Feature
    >>> from dpmo.trees import DiffPID3Classifier, InferredClassesWarning
    >>> X, y = np.array([[0.2], [0.9], [0.4], [0.7]]), np.array(["no", "yes", "no", "yes"])
    >>> features = [Feature("x", "numeric", bounds=(0, 1))]
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     _ = DiffPID3Classifier(1.0, max_depth=0, features=features, random_state=0).fit(X, y)
    >>> [w.category is InferredClassesWarning for w in seen]
    [True]
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     clf = DiffPID3Classifier(1.0, max_depth=0, features=features, classes=["no", "yes"])
    ...     _ = clf.fit(X, y)
    >>> seen
    []
    """


#: The one text of :class:`InferredClassesWarning` (it never depends on the data).
INFERRED_CLASSES_MESSAGE = (
    "no public label set was declared (classes=None): the two labels are read from y (the larger in sort "
    "order is the positive class), the fitted classes_ shows them, and a y holding one label is refused. "
    "The label set is public input: declare it with classes=[negative, positive]; this warning is the same "
    "for every table (docs/public-inputs.md)"
)


class SingleLeafWarning(UserWarning):
    """A DiffP-ID3 / LocalDiffPID3 fit released a single leaf: a constant model.

    The root was made a leaf by Friedman and Schuster's stopping rule: its noisy record count was below
    ``2 sqrt(2) t / eps_c`` (``t`` the largest domain size, ``eps_c`` the count's share of epsilon, half of
    ``epsilon / (L + 1)`` for the ``L + 1`` levels). Too few records for the budget per level. The tree is
    the release, so saying so is post-processing; the words (:func:`single_leaf_message`) name the public
    settings only. Not raised when the settings allow no split (``max_depth=0``).

    Examples
    --------
    >>> from dpmo.trees._messages import single_leaf_message
    >>> "at least 340 records" in single_leaf_message(10, 1 / 12, 6)
    True
    """


def single_leaf_message(t: int, eps_c: float, levels: int) -> str:
    """The text of :class:`SingleLeafWarning` from the public settings: ``t`` values of the widest attribute,
    the count's epsilon ``eps_c``, and the number of levels sharing epsilon."""
    need = 2.0 * 2.0**0.5 * t / eps_c
    records = math.ceil(need) if need < 1e15 else f"{need:.4g}"  # a whole number while it reads as one
    return (
        "the fitted tree is a single leaf (a constant model: every row gets the same label). The root's "
        f"noisy record count was below 2 sqrt(2) t / eps_c = {need:.4g}, so Friedman and Schuster's stopping "
        f"rule made it a leaf (t = {t} values of the widest attribute, eps_c = {eps_c:.4g}: half of "
        f"epsilon / {levels} levels). Too few records for the budget per level: a split needs a noisy count "
        f"of at least {records} records at these settings. Raise epsilon, lower max_depth (fewer "
        "levels share epsilon), use fewer values per attribute (n_bins, coarser categories) or fit more "
        "records"
    )


#: The refusals of labels: the rule, never the label or a count (the records are private).
ONE_LABEL_PER_ROW = (
    "y must hold one label per row of X (the numbers are not shown: the record count is private)"
)
NOT_SHOWN_LABEL = "which row and label are not shown: the records are private"

#: (pattern, replacement) applied in order; a message none of them matches is left as it is.
_RULES = [
    # check_array on 1-D or scalar input: "...instead:\narray=[...].\nReshape your data ..."
    (re.compile(r":\s*\narray=.*?\.\n(?=Reshape)", re.S), " (its values are not shown: they are private).\n"),
    # numpy's conversion of an object array: the cell's text
    (
        re.compile(r"^could not convert .*$", re.S),
        f"the table holds a value that is not a number ({NOT_SHOWN}); declare categorical columns with "
        "features=",
    ),
    (
        re.compile(r"^Found input variables with inconsistent numbers of samples: .*$", re.S),
        "X and y have different numbers of rows (the numbers are not shown: the record count is private)",
    ),
    (re.compile(r"got an array of shape \([^)]*\) instead"), "got an array of another shape instead"),
    # check_array on complex input: "Complex data not supported\n[...]\n"
    (
        re.compile(r"^Complex data not supported.*$", re.S),
        "Complex data not supported in X or y (the values are not shown: they are private)",
    ),
    # check_array on a scalar: "... got scalar `np.float64(17.99)` instead."
    (re.compile(r"got scalar `.*?` instead", re.S), "got a scalar instead (its value is not shown)"),
]


def redact(text: str) -> str:
    """``text`` with the records it quotes replaced by the rule broken (unchanged when it quotes none).

    Examples
    --------
    >>> redact("could not convert string to float: 'zz_secret'")[:44]
    'the table holds a value that is not a number'
    >>> redact("y should be a 1d array, got an array of shape (569, 2) instead.")
    'y should be a 1d array, got an array of another shape instead.'
    """
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text


@contextmanager
def redacted():
    """Re-raise a ``ValueError`` or ``TypeError`` raised inside with :func:`redact` of its message (and no
    chained cause, whose message would quote the records again). O(length of the message), only on the
    error path."""
    try:
        yield
    except (ValueError, TypeError) as exc:
        text = str(exc)
        clean = redact(text)
        if clean == text:
            raise
        raise (TypeError if isinstance(exc, TypeError) else ValueError)(clean) from None
