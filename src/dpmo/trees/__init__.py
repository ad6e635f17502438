"""Private decision trees: DP-MOET (the paper's Application 1) and the DiffP-ID3 / LocalDiffPID3 baselines.

Names are loaded from their modules on first use.
"""

from __future__ import annotations

from .._extras import require
from .._lazy import lazy_exports

# the estimators follow scikit-learn's API: without it, one line that names the extra to install
require("sklearn", "dpmo.trees")

_EXPORTS = {
    # array-based trees and the genetic operators
    "TreePopulation": "evaluation",
    "Tree": "tree",
    "EncodedData": "encoding",
    "tree_from_nested": "tree",
    "tree_to_dict": "export",
    "random_tree": "operations",
    "crossover": "operations",
    "mutate": "operations",
    "prune": "operations",
    # TPR / TNR objectives with admissible local sensitivity
    "tpr_objective": "objectives",
    "tnr_objective": "objectives",
    "rate_sensitivity": "objectives",
    # estimators
    "DPMOETClassifier": "moet",
    "selection_scores": "moet",
    "DiffPID3Classifier": "id3",
    "LocalDiffPID3Classifier": "id3",
    "ID3Tree": "id3_tree",
    "split_choice_scores": "id3_choice",
    "PrivateTreeClassifier": "private_tree",
    # scikit-learn conformance
    "expected_failed_checks": "_inputs",
    # the warnings of a fit without declared bounds, without a declared label set, and of a one-leaf tree
    "DefaultBoundsWarning": "_messages",
    "InferredClassesWarning": "_messages",
    "SingleLeafWarning": "_messages",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)
