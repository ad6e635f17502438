"""DP-MOTkIN: private multi-objective top-k influential nodes (the paper's section "Application 2").

Select ``k`` nodes of a graph that are good in two conflicting centralities, degree and egocentric density,
under **edge differential privacy**: two graphs on the same public node set are neighbours when they differ
in exactly one edge (added or removed).

Typical use::

    from dpmo import graphs
    g = graphs.load_graph("musae_git_edges.csv", nodes=37_700)   # once; the public node set
    graphs.top_k(g, 5, 1.0, approach="agg", sensitivity="local", rng=0)   # many times
    graphs.top_k_exact(g, 5, approach="agg")
    graphs.pareto_front(g)

See ``docs/graphs.md`` for the definitions, the corrected sensitivities and the measured results.
"""

from .exact import DOMINANCE, aggregate_scores, pareto_front, pareto_scores, top_k_exact
from .io import Graph, load_graph, read_edge_list
from .objectives import (
    degree_objective,
    degree_sensitivity,
    ego_density_objective,
    ego_density_sensitivity,
    objectives,
    statistics_objectives,
)
from .synthetic import random_collaboration_edges, random_collaboration_graph
from .topk import APPROACHES, SENSITIVITIES, selection_scores, top_k
from .two_stage import top_k_two_stage, two_stage_candidates
from .utilities import FORMULAS, degree, ego_density, triangles

__all__ = [
    "APPROACHES",
    "DOMINANCE",
    "FORMULAS",
    "SENSITIVITIES",
    "Graph",
    "aggregate_scores",
    "degree",
    "degree_objective",
    "degree_sensitivity",
    "ego_density",
    "ego_density_objective",
    "ego_density_sensitivity",
    "load_graph",
    "objectives",
    "pareto_front",
    "pareto_scores",
    "random_collaboration_edges",
    "random_collaboration_graph",
    "read_edge_list",
    "selection_scores",
    "statistics_objectives",
    "top_k",
    "top_k_exact",
    "top_k_two_stage",
    "triangles",
    "two_stage_candidates",
]
