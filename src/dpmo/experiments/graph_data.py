"""The graph datasets of the experiments: embedded graphs, public node sets, ego-density conventions, and
:class:`GraphData` (a graph with the exact references its metrics need, cached).

Everything here is evaluation-side: the exact top-k, front and best hypervolume are computed by the
experimenter to score private picks, never released. Re-exported by :mod:`dpmo.experiments.methods`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._extras import require
from ..metrics import best_hypervolume, hypervolume
from ..selection import get_approach
from .config import DATASETS

__all__ = [
    "EGO_CONVENTIONS",
    "GraphData",
    "PUBLIC_NODE_COUNTS",
    "SYNTHETIC_SEED",
    "ego_convention",
    "embedded_graph",
    "load_graph_data",
    "public_nodes",
]

#: Seed of the embedded synthetic graph (public, fixed).
SYNTHETIC_SEED = 20240601


def embedded_graph(name: str):
    """A networkx graph shipped with networkx, or the seeded synthetic heavy-tailed graph."""
    nx = require("networkx", "the embedded graphs of dpmo reproduce --quick")
    if name == "les-miserables":
        g = nx.les_miserables_graph()
    elif name == "karate":
        g = nx.karate_club_graph()
    elif name == "florentine":
        g = nx.florentine_families_graph()
    elif name == "synthetic":
        # heavy-tailed degrees (Barabasi-Albert) with tunable clustering (Holme and Kim 2002)
        g = nx.powerlaw_cluster_graph(3000, 3, 0.4, seed=SYNTHETIC_SEED)
    else:
        raise ValueError(f"unknown embedded graph {name!r}")
    h = nx.Graph()
    h.add_nodes_from(g.nodes())
    h.add_edges_from(g.edges())  # drop weights and attributes
    return nx.convert_node_labels_to_integers(h, ordering="sorted") if name != "synthetic" else h


#: Ego-density conventions (``docs/errata.md`` point 4): the paper's formula with density 0 below degree 2
#: (default), or the published code's (no factor 2, density 1 for degree-1 nodes).
EGO_CONVENTIONS: dict[str, dict[str, Any]] = {
    "paper": {"formula": "paper", "low_degree": 0.0},
    "published": {"formula": "published", "low_degree": 1.0},
}


def ego_convention(params: dict) -> dict[str, Any]:
    """Arguments ``formula`` and ``low_degree`` of :mod:`dpmo.graphs` for ``params["ego_density"]``."""
    name = params.get("ego_density", "paper")
    if name not in EGO_CONVENTIONS:
        raise ValueError(f"ego_density must be one of {sorted(EGO_CONVENTIONS)}, got {name!r}")
    return dict(EGO_CONVENTIONS[name])


@dataclass
class GraphData:
    """A :class:`dpmo.graphs.Graph` plus what the metrics need, computed once per process and convention.

    ``ids`` are the original node ids (sorted increasingly, as :class:`dpmo.graphs.Graph` keeps them).
    """

    name: str
    graph: Any
    _cache: dict = field(default_factory=dict, repr=False)

    @property
    def ids(self) -> np.ndarray:
        return np.asarray(self.graph.ids)

    def values_of(self, nodes, convention: dict[str, Any] | None = None) -> np.ndarray:
        """(degree, ego density) of ``nodes`` (original ids), shape (len(nodes), 2)."""
        return np.asarray(self.graph.points(nodes, **(convention or {})), dtype=np.float64)

    def exact(self, approach: str, k: int, weights=(1.0, 100.0), convention: dict[str, Any] | None = None):
        """The exact top-k (original ids) of :func:`dpmo.graphs.top_k_exact`, cached."""
        conv = convention or {}
        key = ("exact", approach, int(k), tuple(float(w) for w in weights), tuple(sorted(conv.items())))
        if key not in self._cache:
            from .. import graphs

            kw = {"weights": tuple(weights)} if get_approach(approach).uses_weights else {}
            self._cache[key] = np.asarray(graphs.top_k_exact(self.graph, k, approach=approach, **kw, **conv))
        return self._cache[key]

    def front(self, convention: dict[str, Any] | None = None) -> np.ndarray:
        """Ids of the nodes no other node Pareto-dominates (textbook dominance; ties all on the front)."""
        conv = convention or {}
        key = ("front", tuple(sorted(conv.items())))
        if key not in self._cache:
            from .. import graphs

            self._cache[key] = np.asarray(graphs.pareto_front(self.graph, dominance="pareto", **conv))
        return self._cache[key]

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Public bounds of (degree, ego density): ``[0, n - 1]`` and ``[0, 1]`` (``n`` is public)."""
        n = int(self.graph.n_nodes)
        return np.zeros(2), np.array([max(n - 1, 1), 1.0])

    def best_hypervolume(self, k: int, convention: dict[str, Any] | None = None) -> float:
        """Largest hypervolume of ``k`` front nodes (objectives normalised by :meth:`bounds`), cached."""
        conv = convention or {}
        key = ("best-hv", int(k), tuple(sorted(conv.items())))
        if key not in self._cache:
            lo, hi = self.bounds()
            self._cache[key] = best_hypervolume(self.values_of(self.front(conv), conv), k, lower=lo, upper=hi)
        return self._cache[key]

    def hypervolume_ratio(self, picks, k: int, convention: dict[str, Any] | None = None) -> float:
        """Hypervolume of the picks (normalised, reference = lower bounds) over :meth:`best_hypervolume`."""
        lo, hi = self.bounds()
        best = self.best_hypervolume(k, convention)
        hv = hypervolume((self.values_of(picks, convention) - lo) / (hi - lo), 0.0)
        return 1.0 if best <= 0.0 else float(hv / best)


#: Public node sets of the real graphs: the node counts their publishers state (public metadata, never
#: computed from the edges). GitHub and Enron number their nodes 0..n-1; com-DBLP uses author ids.
PUBLIC_NODE_COUNTS: dict[str, tuple[int, str]] = {
    "github": (37_700, "SNAP/musae GitHub social network page: 37,700 nodes"),
    "enron": (36_692, "SNAP Email-Enron page: 36,692 nodes"),
    "dblp": (317_080, "SNAP com-DBLP page: 317,080 nodes"),
}


def public_nodes(name: str, source) -> Any:
    """The public node set of dataset ``name`` for :func:`dpmo.graphs.load_graph`.

    * GitHub and Enron: the published count ``n`` (ids ``0 .. n-1``).
    * com-DBLP: its ids are DBLP author ids, not ``0 .. n-1``, and the id list is not published apart from
      the file; the published file *is* the public dataset here, so its endpoints are taken as the node
      set after checking that there are exactly the published 317,080 of them (a check of the file
      against public metadata; an experiment reproducing the paper on published data is not a release).
    * Embedded graphs (networkx's and the seeded synthetic one): their node count, fixed by the code.
    """
    from .. import graphs

    if DATASETS[name].embedded:
        return source.number_of_nodes()
    n, where = PUBLIC_NODE_COUNTS[name]
    if name != "dblp":
        return n
    ids = graphs.load_graph(source, nodes="observed").ids
    if ids.size != n:
        raise ValueError(f"{source}: {ids.size} nodes, but the published com-DBLP has {n} ({where})")
    return ids


def load_graph_data(name: str, files: Sequence[str] = ()) -> GraphData:
    """Load a graph dataset with :func:`dpmo.graphs.load_graph` on its public node set
    (:func:`public_nodes`)."""
    from .. import graphs

    source = embedded_graph(name) if DATASETS[name].embedded else Path(files[0])
    return GraphData(name=name, graph=graphs.load_graph(source, nodes=public_nodes(name, source)))
