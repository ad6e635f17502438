"""scikit-learn's and numpy's validation errors without the records they quote.

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

import re
from contextlib import contextmanager

from ..datasets.types import NOT_SHOWN

__all__ = ["redacted", "redact"]

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
    """Re-raise a ``ValueError`` raised inside with :func:`redact` of its message (and no chained cause,
    whose message would quote the records again). O(length of the message), only on the error path."""
    try:
        yield
    except ValueError as exc:
        text = str(exc)
        clean = redact(text)
        if clean == text:
            raise
        raise ValueError(clean) from None
