"""``--explain`` of ``dpmo select`` and ``dpmo topk``: what the selection can deliver, before spending.

Prints public quantities only, computed by :func:`dpmo.lead_needed` and :func:`dpmo.pick_probability`
from the number of candidates (the rows of the candidate table, or the declared node set), ``k``, epsilon,
the sensitivity of the scores the approach selects on and the mechanism. No edge is read and no objective
value is parsed or used: the candidate table's header is read, and every line's text is read to count the
rows (public: the candidates) and check that each has the header's number of fields, by the same rule and
with the same messages as ``dpmo select`` (which row is never named). Nothing is spent. The model behind
the figures is stated in the output and in :mod:`dpmo.preview`.
"""

from __future__ import annotations

import csv
from pathlib import Path

from .args import CLIError, absent_column_error, bad_row_error, parquet_error, repeated_column

__all__ = ["explain_select", "explain_topk", "explain_lines"]

#: The probabilities whose leads are printed, and the leads (sensitivity units) whose probabilities are.
PROBABILITIES = (0.5, 0.9)
LEADS = (1, 2, 5, 10, 20, 50, 100)

_MODEL = (
    "# model: the best candidate leads each of the other n - 1, which are tied, by LEAD (the least "
    "favourable case for that lead); P = the probability that it is among the picks (docs/core.md, "
    '"Know before you spend")'
)


def _g(x: float) -> str:
    return f"{x:.3g}" if x < 1e4 else f"{x:.4g}"


def explain_lines(
    rounds: list[tuple[int, int, float]],
    *,
    mechanism: str,
    unit: str,
    scale: float | None,
    max_lead: float | None = None,
) -> list[str]:
    """The table of ``--explain``: ``rounds`` is a list of ``(n, k, epsilon_per_pick)`` (one entry for k
    equal picks, or one per round with ``k = 1``); ``unit`` names what one sensitivity unit of the scores
    is; ``scale`` is the sensitivity in the scores' own units (None: not shown); ``max_lead`` the largest
    lead, in sensitivity units, that any data can give (None: unknown).

    One row per quantity, one column per entry of ``rounds``, tab-separated; comment lines start with #.
    """
    from ..preview import lead_needed, pick_probability

    def prob(lead, n, k, eps):
        return pick_probability(lead, n, None, k=k, mechanism=mechanism, epsilon_per_pick=eps)

    rows = [
        ["candidates", *(str(n) for n, _, _ in rounds)],
        ["picks", *(str(k) for _, k, _ in rounds)],
        ["epsilon_per_pick", *(_g(eps) for _, _, eps in rounds)],
        ["P_at_lead=0", *(f"{k / n:.3f}" for n, k, _ in rounds)],
    ]
    for q in PROBABILITIES:
        leads = [
            lead_needed(n, None, q, k=k, mechanism=mechanism, epsilon_per_pick=eps) for n, k, eps in rounds
        ]
        rows.append([f"lead_for_P={q:g}", *(_g(v) for v in leads)])
        if scale is not None:
            rows.append([f"lead_for_P={q:g}_in_score_units", *(_g(v * scale) for v in leads)])
    for v in LEADS:
        rows.append([f"P_at_lead={v}", *(f"{prob(v, n, k, eps):.3f}" for n, k, eps in rounds)])
    names = ["all"] if len(rounds) == 1 else [f"round_{j + 1}" for j in range(len(rounds))]
    out = [_MODEL, f"# one sensitivity unit = {unit}; leads are in sensitivity units unless stated"]
    out.append("\t".join(["quantity", *names]))
    out += ["\t".join(r) for r in rows]
    out.append(
        "# P_at_lead=0 is k / n: no signal. A lead of L units means at least L / 2 changes of the private "
        "data separate the best candidate from being overtaken"
    )
    if max_lead is not None:
        n0, k0, eps0 = rounds[0]
        p_max = prob(max_lead, n0, k0, eps0)
        note = " (the picks are close to noise whatever the data)" if p_max < 0.5 else ""
        out.append(f"# no data can give a lead above {_g(max_lead)} units here: P <= {p_max:.3f}{note}")
    return out


def _pareto_negligible_lines(rounds: list[tuple[int, int, float]]) -> list[str]:
    """For ``approach="pareto"``: the rounds whose epsilon meets PrivPareto's public negligible-noise
    condition (:func:`dpmo.pareto.consistent.negligible_noise`) run another score than the table's."""
    from ..pareto.consistent import negligible_noise

    per_round = [(n - j, eps) for n, k, eps in rounds for j in range(k)]
    on = [negligible_noise(n_j, eps) for n_j, eps in per_round]
    if not any(on):
        return []
    which = "every round" if all(on) else f"rounds {on.index(True) + 1} to {len(on)}"
    return [
        f"# negligible noise in {which} (epsilon per pick >= 6 (ln n_round + 20)): PrivPareto scores "
        "'dominated by a candidate left' plus the escape from the earlier picks there (bounded terms, "
        "sensitivity 3, no dampening; the figures above, in the paper's units, do not describe it); every "
        "pick is then Pareto-optimal while a Pareto-optimal candidate is left, uniformly among those the "
        "picks leave uncovered (docs/pareto.md, 'PrivPareto at negligible noise')"
    ]


def _approach_unit(approach: str, sensitivity: str, global_sens: float | None, what: str) -> tuple:
    """``(unit, scale)`` of the scores the approach selects on (see :func:`explain_lines`)."""
    if sensitivity == "local":
        name = {
            "pareto": "dampened Pareto score",
            "agg": "dampened weighted sum",
            "chebyshev": "scalarised dampened objectives",
            "staircase": "scalarised dampened objectives",
        }[approach]
        return f"1 of the {name} (local dampening: sensitivity 1)", None
    if approach == "pareto":
        return (
            "n_round - 1 of the Pareto score (its global sensitivity; the score ranges over 0 .. "
            "n_round - 1)",
            None,
        )
    if approach == "agg":
        return (
            f"{_g(global_sens)} of the weighted sum (sum of |w_i| times the global sensitivity of {what})",
            global_sens,
        )
    return "1 of the scalarised objectives (each divided by its global sensitivity)", None


def _print(lines: list[str]) -> None:
    for line in lines:
        print(line)


def _count_rows(path: Path, columns: list[str], delimiter: str) -> int:
    """The number of rows of a candidate table, with the checks of ``dpmo select``'s reader (the header
    names the columns, every row has the header's number of fields; the same messages, which name no row).
    Every line is read as text to count its fields; no cell is parsed as a number."""
    if path.suffix.lower() == ".parquet":
        from .._extras import require

        pq = require("pyarrow.parquet", "dpmo select on a .parquet file")
        try:
            meta = pq.read_metadata(path)
            names = meta.schema.to_arrow_schema().names
        except (OSError, ValueError):  # pyarrow's message may quote the file's bytes: not shown
            raise parquet_error(path) from None
        absent = [c for c in columns if c not in names]
        if absent:
            raise CLIError(f"{path}: no column {absent[0]!r}; the file has {names}")
        repeated_column(path, columns, names)
        return int(meta.num_rows)
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh, delimiter=delimiter)
            header = [h.strip() for h in next(reader, [])]
            if not header:
                raise CLIError(f"{path}: empty file (a header line naming the columns is needed)")
            absent = [c for c in columns if c not in header]
            if absent:
                raise absent_column_error(path, absent[0], delimiter)
            repeated_column(path, columns, header)
            rows = 0
            for row in reader:
                if not row or all(not f.strip() for f in row):
                    continue
                if len(row) != len(header):  # which row is not shown: a private cell may hold the delimiter
                    raise bad_row_error(path, len(header), delimiter)
                rows += 1
    except UnicodeDecodeError:
        raise CLIError(
            f"{path}: not a UTF-8 text file (give a CSV file with a header line, or a .parquet file)"
        ) from None
    return rows


def _rounds(
    n: int,
    k: int,
    epsilon: float,
    approach,
    *,
    delta: float = 0.0,
    mechanism: str = "exponential",
    m: int = 2,
) -> list[tuple[int, int, float]]:
    """One entry ``(n, k, e)`` with ``e`` each pick's epsilon, or for a selection in rounds
    (PrivChebyshev, the staircase) one per round ``(n - j, 1, e_j)`` (each round picks the best of its own
    direction; a staircase round may search fewer candidates, a window the releases choose). ``e`` and
    ``e_j`` are the epsilons the selection runs at: the public plan's shares of epsilon
    (:func:`dpmo.selection.selection_plan`, releases included), scaled by the accountant when ``delta > 0``
    (:func:`dpmo.per_pick_epsilon`, :func:`dpmo.accounting.scaled_epsilons`)."""
    from ..accounting import per_pick_epsilon, scaled_epsilons
    from ..selection import selection_plan

    if approach in ("pareto", "agg"):
        return [(n, k, per_pick_epsilon(epsilon, k, delta=delta, mechanism=mechanism))]
    steps = selection_plan(approach, k, m)
    if delta == 0:
        eps = [epsilon * st.share for st in steps]
    else:
        kinds = [st.mechanism or mechanism for st in steps]
        eps = scaled_epsilons(epsilon, [st.share for st in steps], delta=delta, kinds=kinds)
    on_rounds = [e for e, st in zip(eps, steps, strict=True) if st.kind == "round"]
    return [(n - j, 1, e) for j, e in enumerate(on_rounds)]


def explain_select(args, path: Path, weights) -> int:
    """``dpmo select --explain``: the figures for this table's size and these settings; spends nothing."""
    columns = [c for c, _, _ in args.objective]
    n = _count_rows(path, columns + ([args.id_column] if args.id_column else []), args.delimiter)
    if n == 0:
        raise CLIError(f"{path}: no candidates (the table has no rows)")
    if args.k > n:
        raise CLIError(f"-k {args.k} is larger than the number of candidates ({n})")
    sens = {c: s for c, s, _ in args.objective}
    global_sens = sum(abs(w) * sens[c] for w, c in zip(weights, columns, strict=True)) if weights else None
    unit, scale = _approach_unit(args.approach, args.sensitivity, global_sens, "each objective")
    max_lead = 1.0 if (args.approach == "pareto" and args.sensitivity == "global") else None
    print(
        "# dpmo select --explain: public figures only (the header and the number of rows were read: every "
        "line's fields were counted, no objective value was parsed or used; nothing was spent): "
        f"{n} candidates (the rows of {path.name}), k = {args.k}, epsilon = {args.epsilon:g}, "
        f"delta = {args.delta:g}, "
        f"approach {args.approach}, sensitivity {args.sensitivity}, mechanism {args.mechanism}"
    )
    rounds = _rounds(
        n, args.k, args.epsilon, args.approach, delta=args.delta, mechanism=args.mechanism, m=len(columns)
    )
    _print(
        explain_lines(
            rounds,
            mechanism=args.mechanism,
            unit=unit,
            scale=scale,
            max_lead=max_lead,
        )
    )
    if args.approach in ("chebyshev", "staircase"):
        _print(_front_covering_lines(args, n))
    if args.approach == "pareto":
        _print(_pareto_negligible_lines(rounds))
    return 0


def _gate_without_ranges_line(args, n: int, m: int) -> str:
    """The Pareto gate without declared ranges, round by round: on or off, and the column width (in
    sensitivity units) up to which no pick is dominated (``dpmo.chebyshev_gate.gate_span``; public: n, k,
    epsilon, the plan's shares; at the plan's own shares, so a lower bound where delta > 0 raises them)."""
    from ..chebyshev import AUGMENT
    from ..chebyshev_gate import gate_span
    from ..selection import selection_plan

    plan = [st for st in selection_plan(args.approach, args.k, m) if st.kind == "round"]
    spans = [gate_span(n - j, args.epsilon * st.share, 1.0 + AUGMENT, [1.0]) for j, st in enumerate(plan)]
    on = [f"{j + 1} ({s:,.0f})" for j, s in enumerate(spans) if s * (1.0 + AUGMENT) >= 1.0]
    return "Pareto gate without ranges (docs/pareto.md, 'Without declared ranges'): " + (
        f"on in rounds {', '.join(on)}: no pick dominated while every column spans at most that many "
        "sensitivity units"
        if on
        else "off (the noise is not negligible)"
    )


def _front_covering_lines(args, n: int) -> list[str]:
    """What ``chebyshev`` / ``staircase`` compare and when ``agg`` is the safer choice (public figures:
    the declared sensitivities and ranges, n, k, epsilon; ``docs/pareto.md``, "Which approach")."""
    from ..selection import selection_plan
    from ..staircase import round_settings

    specs = list(args.objective)
    bounds = [getattr(s, "bounds", None) for s in specs]
    lines = []
    if any(b is None for b in bounds):
        missing = ", ".join(s[0] for s, b in zip(specs, bounds, strict=True) if b is None)
        lines.append(
            f"objectives without a declared range ({missing}) are compared in units of their sensitivities; "
            "declare COL=SENS@LOW:HIGH when the columns are in different units"
            + (
                "; without ranges on every objective the staircase runs the corner staircase"
                if args.approach == "staircase"
                else ""
            )
        )
        if args.approach == "staircase" or all(b is None for b in bounds):  # the corner staircase: no ranges
            lines.append(_gate_without_ranges_line(args, n, len(specs)))
        else:
            lines.append(
                "Pareto gate with some ranges declared: its span is set by the finest declared resolution, "
                "so only narrow undeclared columns are covered at negligible noise; declare every range "
                "(docs/pareto.md, 'Without declared ranges')"
            )
    else:
        d = [s[1] / (b[1] - b[0]) for s, b in zip(specs, bounds, strict=True)]
        res = ", ".join(f"{s[0]} {1 / di:.4g}" for s, di in zip(specs, d, strict=True))
        lines.append(
            f"objectives compared in units of their declared ranges; sensitivity units per range: {res}"
        )
        if args.approach == "staircase" and args.delta == 0:
            plan = [st for st in selection_plan("staircase", args.k, len(specs)) if st.kind == "round"]
            ts = []
            for j, st in enumerate(plan):
                _, t = round_settings(n - j, args.k, d, args.epsilon * st.share, j == 0)
                ts.append(t)
            lines.append(
                "staircase rounds (private greedy hypervolume): weight of the range-unit sum (agg's score) "
                "in each round: "
                + ", ".join(f"{t:.2f}" for t in ts)
                + " (0: the hypervolume gain alone; 1: agg's "
                "score, the noise being too large for the gains)"
            )
            from ..pareto.consistent import RESOLVE, TIE_SHARE, resolution

            e = [min(di, 1.0) for di in d]
            cost = len(e) + 2 + 2 * sum(1 / ei for ei in e)
            on = [
                j + 1
                for j, st in enumerate(plan)
                if resolution(n - j, args.epsilon * st.share, RESOLVE) * cost <= TIE_SHARE
            ]
            lines.append(
                "tie terms (every pick Pareto-optimal at negligible noise; docs/pareto.md): "
                + (f"on in rounds {', '.join(map(str, on))}" if on else "off (the noise is not negligible)")
            )
    lines.append(
        "agg (equal weights over the declared ranges, --weights 1/(HIGH-LOW) each) is the safer choice when "
        "one weighted sum is what you want, when every staircase round's weight above is 1, or with "
        "objectives without declared ranges; at negligible noise, with declared ranges, the picks of "
        "staircase, chebyshev and pareto are front rows while an unpicked front row is left (with no range "
        "declared, staircase's and chebyshev's while every column's width in sensitivity units is within "
        "the gate's span, about eps_j / (4 (ln n_j + 6)); chebyshev with some declared, a much smaller one; "
        "docs/pareto.md, 'Without declared ranges')"
    )
    return ["# " + line for line in lines]


def explain_topk(args, n: int) -> int:
    """``dpmo topk --explain``: the figures for the public node set's size; the graph is not opened."""
    approach = args.approach
    if approach == "chebyshev":  # the graph default: the released graph where the public rule says so
        from ..graphs.pair_response import uses_released_graph

        if uses_released_graph(n, args.epsilon):
            return _explain_released_graph(args, n)
    if approach in ("chebyshev", "staircase"):  # the private staircase's plan
        from ..graphs.chebyshev import GraphStaircaseApproach, top_first_probability

        p = top_first_probability(args.epsilon, args.k)  # the plan's table: the likelier plan (public)
        approach = GraphStaircaseApproach(args.k, top_first=p >= 0.5, epsilon=args.epsilon)
        if 0.0 < p < 1.0:
            print(
                f"# at this epsilon a public coin runs the top-first plan with probability {p:.3g}, else the "
                f"staircase; the table shows the {'top-first plan' if p >= 0.5 else 'staircase'}"
            )
        if approach.top_first:
            print(
                "# the top-first plan's two top rounds are planned at round 1's share of the staircase plan; "
                "with delta = 0 each runs at the epsilon the released degrees say it needs to land above the "
                "last round's window with probability 1 - 1/n (top_pick_epsilon) when that is less, the "
                "rest going to the last round"
            )
        if approach.uses_signal():
            e0 = args.epsilon * approach.steps(args.k, 2)[0].share  # the first release's epsilon (public)
            print(
                "# the plan releases the largest dampened ego density (8 % of epsilon): when it is below "
                f"{approach.round_one_threshold(n, e0):.3g} (the lead round 1 needs over the "
                f"{approach.round_one_candidates(n, e0)} nodes its window searches; raised by the smaller "
                "of itself and 1 when the largest degree is a hub, whose released lead over rank 2 costs at "
                "most a quarter of round 1), round 1 takes the largest degree, as agg would, at the epsilon "
                "it needs (2 (ln n + 1) / the released lead of rank 1 over rank 2; 2 (ln n + 20) / the "
                "lead, which does not miss, once that is at most a thousandth of its part), and round 2 gets "
                "the rest of round 1's part"
            )
        print(
            "# at negligible noise (a round epsilon above 2 (ln n + 20) / 0.01, about 4,000 or more) a tie "
            "term puts the duplicates of the picks (and the largest degree) before the nodes the picks "
            "dominate, so no pick is dominated while a front node is left (docs/pareto.md, 'Duplicates of "
            "the picks at negligible noise')"
        )
        print(
            "# agg can be the safer choice at epsilon 0.5-2 on graphs with few triangles (random, "
            "block-model graphs), where the top degrees barely stand above the rest; from the epsilon at "
            "which a node's expected false edges are at most 8, approach chebyshev releases the graph "
            "instead (docs/pareto.md, 'The released graph at large epsilon')"
        )
        if args.k == 2:
            print(
                "# k = 2: the ratio fell from epsilon 1 to 2 on preferential-attachment graphs of 200-1,000 "
                "nodes (after a first pick that is not the largest degree, round 2 then aims at the dense "
                "end, which it cannot yet single out, instead of taking the largest degree), and from 0.5 to "
                "1 on GitHub and Enron, where the largest degree goes on offer; agg does not fall there "
                "(docs/staircase-measurements.md, 'Other k')"
            )
        if args.k == 1:
            print(
                "# k = 1: no front to cover; one round with all of epsilon, a degree prior at epsilon 0.2 "
                "and the largest area with the rest, whose expected ratio never falls as epsilon grows; agg "
                "was the safer choice at epsilon 5-10 on preferential-attachment graphs of 200-1,000 nodes "
                "(docs/pareto.md, 'One pick')"
            )
    weights = tuple(args.weights)
    global_sens = abs(weights[0]) * 1.0 + abs(weights[1]) * 1.0  # degree and ego density: sensitivity 1
    unit, scale = _approach_unit(
        args.approach, args.sensitivity, global_sens, "degree and ego density, 1 each"
    )
    max_lead = None
    if args.sensitivity == "global" and args.approach == "pareto":
        max_lead = 1.0
    elif args.sensitivity == "global" and args.approach == "agg":
        # degree in 0 .. n - 1, ego density in [0, 1]: no node leads another by more than this
        max_lead = (abs(weights[0]) * (n - 1) + abs(weights[1])) / global_sens
    print(
        f"# dpmo topk --explain: public figures only (the graph file was not opened, nothing was spent): "
        f"{n} nodes (the public node set), k = {args.k}, epsilon = {args.epsilon:g}, "
        f"delta = {args.delta:g}, "
        f"approach {args.approach}, sensitivity {args.sensitivity}, mechanism {args.mechanism}"
    )
    rounds = _rounds(n, args.k, args.epsilon, approach, delta=args.delta, mechanism=args.mechanism)
    _print(explain_lines(rounds, mechanism=args.mechanism, unit=unit, scale=scale, max_lead=max_lead))
    if args.approach == "pareto":
        _print(_pareto_negligible_lines(rounds))
    return 0


def _explain_released_graph(args, n: int) -> int:
    """``dpmo topk --explain`` when the graph default releases the graph (public figures only)."""
    import math

    from ..graphs.pair_response import MAX_FALSE_DEGREE, false_degree, flip_probability, pair_count

    r, pairs = flip_probability(args.epsilon), pair_count(n)
    expected = pairs * r
    print(
        f"# dpmo topk --explain: public figures only (the graph file was not opened, nothing was spent): "
        f"{n} nodes (the public node set), k = {args.k}, epsilon = {args.epsilon:g}, delta = {args.delta:g}, "
        f"approach chebyshev (the graph default)"
    )
    print(
        f"# the released graph: randomized response on the {pairs} node pairs with all of epsilon (pure "
        f"epsilon-edge-DP, delta unused), each pair flipped with probability r = 1 / (1 + e^epsilon) = "
        f"{r:.3g} (rounded up); then the {args.k} greedy hypervolume picks of the released graph "
        "(post-processing, no further budget)"
    )
    print(
        f"# expected false edges per node (n - 1) r = {false_degree(n, args.epsilon):.3g} (used when at "
        f"most {MAX_FALSE_DEGREE:g}); expected flipped pairs {expected:.3g}; probability that no pair is "
        f"flipped about {math.exp(-expected):.3g} "
        "(docs/pareto.md, 'The released graph at large epsilon')"
    )
    print(
        "# the released graph itself is not printed, only its picks (post-processing of it); "
        "approach='staircase' runs the private staircase instead"
    )
    if args.k == 2:
        print(
            "# k = 2: agg was the safer choice at epsilon 10 on a hub joined to a clique of about sqrt(n) "
            "nodes (0.99-1.00 against 1.00): a clique member with a few false edges looks like a new front "
            "point as large as the hub's (docs/staircase-measurements.md, 'Other k')"
        )
    return 0
