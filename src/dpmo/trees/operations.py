"""Random trees and the genetic operators of DP-MOET (the paper's "Tree Representation and Operations").

All randomness comes from the generator passed in, and every operator uses public information only: the
feature metadata (which attributes exist, their kind and the number of categories) and the shape of the
trees. The private data is never read here, so the operators are post-processing of what the private
selections released.

Depth convention: the root is at depth 0 and :func:`random_tree` ``(d)`` has all its leaves at depth
``d``. The paper counts a node's depth ``d'`` from 1 and replaces a mutated node by
``random_tree(d_max - d' + 1)``; with the root at depth 0 that is ``random_tree(d_max - depth)``, which is
what :func:`mutate` does, so a mutation never makes a tree deeper than ``d_max``.
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Sequence

import numpy as np

from .._validation import check_int, check_random_state
from .tree import Tree

__all__ = ["random_tree", "crossover", "mutate", "prune", "feature_spec"]


def _check_depth(depth, name: str = "depth") -> int:
    depth = check_int(depth, name, minimum=0)
    if depth > 24:
        raise ValueError(
            f"{name} must be at most 24 (a full tree of depth d has 2**(d+1) - 1 nodes), got {depth}"
        )
    return int(depth)


def feature_spec(features) -> tuple[np.ndarray, np.ndarray]:
    """``(is_categorical, n_categories)`` arrays from public feature metadata.

    Parameters
    ----------
    features : sequence of dpmo.datasets.Feature, or int
        The predictors' metadata; an int ``d`` means ``d`` numeric features scaled to ``[0, 1]``.
    """
    if isinstance(features, (numbers.Integral, np.integer)) and not isinstance(features, (bool, np.bool_)):
        d = int(features)
        if d < 1:
            raise ValueError(f"features must be >= 1 when given as a number of numeric features, got {d}")
        return np.zeros(d, dtype=bool), np.zeros(d, dtype=np.int64)
    if not isinstance(features, Sequence) or isinstance(features, (str, bytes)) or len(features) == 0:
        raise TypeError("features must be a non-empty sequence of dpmo.datasets.Feature (or an int)")
    is_cat = np.zeros(len(features), dtype=bool)
    ncat = np.zeros(len(features), dtype=np.int64)
    for j, f in enumerate(features):
        kind = getattr(f, "kind", None)
        if kind == "categorical":
            is_cat[j] = True
            ncat[j] = len(f.categories)
            if ncat[j] < 1:
                raise ValueError(f"feature {j} is categorical with no categories")
        elif kind != "numeric":
            raise TypeError(f"features[{j}] must be a dpmo.datasets.Feature, got {type(f).__name__}")
    return is_cat, ncat


@functools.lru_cache(maxsize=32)
def _full_template(depth: int) -> tuple[np.ndarray, np.ndarray]:
    """Preorder (depth, size) of the full binary tree of the given depth (read-only, cached)."""
    dep = np.zeros(1, dtype=np.int32)
    size = np.ones(1, dtype=np.int32)
    for _ in range(depth):
        dep = np.concatenate([[0], dep + 1, dep + 1]).astype(np.int32)
        size = np.concatenate([[2 * size[0] + 1], size, size]).astype(np.int32)
    dep.setflags(write=False)
    size.setflags(write=False)
    return dep, size


def random_tree(depth: int, features, rng=None) -> Tree:
    """A full random tree whose ``2**depth`` leaves are all at ``depth`` (the paper's ``random_tree(d)``).

    Every decision node tests a uniformly chosen attribute: a numeric one against a threshold uniform in
    ``[0, 1)``, a categorical one against a uniformly chosen category of its public domain. Every leaf
    gets a label uniform in ``{0, 1}``.

    Parameters
    ----------
    depth : int
        Depth of the leaves (0 gives a single leaf).
    features : sequence of Feature or int
        Public metadata (see :func:`feature_spec`).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    Tree

    Notes
    -----
    O(2**depth) time and memory. Uses no data.

    Examples
    --------
    >>> from dpmo.datasets import Feature
    >>> from dpmo.trees import random_tree
    >>> features = [Feature("age", "numeric", bounds=(0, 120)),
    ...             Feature("sex", "categorical", categories=("F", "M"))]
    >>> tree = random_tree(3, features, rng=0)
    >>> tree.n_leaves, tree.max_depth  # full: 2**3 leaves, all at depth 3
    (8, 3)
    """
    depth = _check_depth(depth)
    is_cat, ncat = feature_spec(features)
    rng = check_random_state(rng)
    dep, size = _full_template(depth)
    m = dep.size
    internal = dep < depth
    n_int = int(np.count_nonzero(internal))
    f = rng.integers(is_cat.size, size=n_int)
    u = rng.random(n_int)
    cat = is_cat[f]
    value = np.where(cat, np.floor(u * np.maximum(ncat[f], 1)), u)
    feature = np.full(m, -1, dtype=np.int32)
    values = np.zeros(m)
    categorical = np.zeros(m, dtype=bool)
    label = np.zeros(m, dtype=np.int8)
    feature[internal] = f
    values[internal] = value
    categorical[internal] = cat
    label[~internal] = rng.integers(2, size=m - n_int)
    return Tree._raw(feature, values, categorical, label, size.copy(), dep.copy())


def crossover(tree1: Tree, tree2: Tree, rng=None) -> tuple[Tree, Tree]:
    """Swap two random subtrees: a uniform node of ``tree1`` with a uniform node of ``tree2``.

    Returns the two offspring (the inputs are not modified). They may be deeper than either parent;
    :func:`prune` bounds them. O(n_nodes) time.

    Examples
    --------
    >>> from dpmo.trees import crossover, random_tree
    >>> a, b = random_tree(2, 2, rng=0), random_tree(2, 2, rng=1)
    >>> c, d = crossover(a, b, rng=2)
    >>> c.n_nodes + d.n_nodes == a.n_nodes + b.n_nodes  # two subtrees swapped: no node lost or made
    True
    """
    if not isinstance(tree1, Tree) or not isinstance(tree2, Tree):
        raise TypeError("crossover takes two Tree objects")
    rng = check_random_state(rng)
    a = int(rng.integers(tree1.n_nodes))
    b = int(rng.integers(tree2.n_nodes))
    return tree1.replace(a, tree2.subtree(b)), tree2.replace(b, tree1.subtree(a))


def mutate(tree: Tree, max_depth: int, features, rng=None) -> Tree:
    """Replace a uniformly chosen node by ``random_tree(max_depth - depth(node))``.

    A node already deeper than ``max_depth`` (after a crossover) is replaced by a random leaf. O(n_nodes +
    2**(max_depth - depth)) time.

    Examples
    --------
    >>> from dpmo.trees import mutate, random_tree
    >>> tree = random_tree(3, 2, rng=0)
    >>> child = mutate(tree, 3, 2, rng=1)
    >>> child.max_depth <= 3, tree.n_leaves == 8  # bounded depth; the parent is unchanged
    (True, True)
    """
    if not isinstance(tree, Tree):
        raise TypeError(f"tree must be a Tree, got {type(tree).__name__}")
    max_depth = _check_depth(max_depth, "max_depth")
    rng = check_random_state(rng)
    i = int(rng.integers(tree.n_nodes))
    new = random_tree(max(max_depth - int(tree.depth[i]), 0), features, rng)
    return tree.replace(i, new)


def prune(tree: Tree, max_depth: int, rng=None) -> Tree:
    """Cut ``tree`` to depth ``max_depth``: every decision node at that depth becomes a random leaf.

    Nodes deeper than ``max_depth`` are removed and a decision node at depth ``max_depth`` is replaced by
    a leaf with a label uniform in ``{0, 1}`` (the paper's ``Prune``). A tree that is not too deep is
    returned as it is (and no randomness is drawn). O(n_nodes) time.

    Examples
    --------
    >>> from dpmo.trees import prune, random_tree
    >>> tree = random_tree(4, 2, rng=0)  # two numeric attributes
    >>> prune(tree, 2, rng=1).max_depth
    2
    >>> prune(tree, 6, rng=1) is tree  # not too deep: returned as it is
    True
    """
    if not isinstance(tree, Tree):
        raise TypeError(f"tree must be a Tree, got {type(tree).__name__}")
    max_depth = _check_depth(max_depth, "max_depth")
    rng = check_random_state(rng)
    if tree.max_depth <= max_depth:
        return tree
    keep = tree.depth <= max_depth
    cut = keep & (tree.depth == max_depth) & (tree.feature >= 0)
    ck = np.concatenate([[0], np.cumsum(keep)])
    idx = np.arange(tree.n_nodes)
    new_size = ck[idx + tree.size] - ck[idx]  # kept nodes inside each block (cut nodes keep only themselves)
    feature = tree.feature.copy()
    value = tree.value.copy()
    categorical = tree.categorical.copy()
    label = tree.label.copy()
    feature[cut] = -1
    value[cut] = 0.0
    categorical[cut] = False
    label[cut] = rng.integers(2, size=int(np.count_nonzero(cut)))
    return Tree._raw(
        feature[keep],
        value[keep],
        categorical[keep],
        label[keep],
        new_size[keep].astype(np.int32),
        tree.depth[keep].copy(),
    )
