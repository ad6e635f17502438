"""Three objectives through ``dpmo select``: k = 3 private picks among candidate rules of the ACS table.

    python benchmarks/bench_pareto_m3.py [--runs 200] [--epsilons 0.1 0.5 1 2 5 10 20 50]
        [--data-dir ../shared/data] [--cli-check 3]

The candidates (public) are the 42 single conditions ``x_a = v`` and the 840 conjunctions ``x_a = v AND
x_b = w`` over ACS's 22 binary attributes except attribute 21, which defines a subgroup. Each candidate's
three objectives are counts on the private table, every one of global sensitivity 1 under the addition or
removal of one record (``dpmo select --objective COL=1``): ``tp`` (positive rows the rule matches), ``tn``
(negative rows it does not match) and ``tp_group`` (positive rows of the subgroup ``x_21 = 1`` it matches).
The table is written to a temporary CSV; the picks of ``select_multiobjective(..., rng=seed)`` are what
``dpmo select --seed seed`` prints (checked for ``--cli-check`` seeds by running the command). The ratio is
the hypervolume of the picks over the best of any 3 front points, the objectives normalised by the (exact,
evaluation-only) counts of positives, negatives and subgroup positives, reference 0. Methods: the
staircase (``approach="staircase"``), PrivChebyshev with its default directions (``"chebyshev"``) and
PrivPareto (``"pareto"``), all with ``sensitivity="global"`` (what ``dpmo select`` has: no local functions).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from itertools import combinations
from pathlib import Path

import numpy as np

import dpmo
from dpmo.datasets import load_acs
from dpmo.metrics import best_hypervolume, hypervolume

EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0)
METHODS = ("staircase", "chebyshev", "pareto")
GROUP = 21


def rule_table(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """(n_rules, 3) counts (tp, tn, tp_group) of every candidate rule, and the rules' names."""
    attrs = [a for a in range(X.shape[1]) if a != GROUP]
    conds = [(a, v) for a in attrs for v in (0, 1)]
    masks = {c: X[:, c[0]] == c[1] for c in conds}
    rules = [(c,) for c in conds] + [(c, d) for c, d in combinations(conds, 2) if c[0] != d[0]]
    pos, neg, grp = y == 1, y == 0, (y == 1) & (X[:, GROUP] == 1)
    out = np.empty((len(rules), 3))
    for i, r in enumerate(rules):
        m = masks[r[0]] if len(r) == 1 else masks[r[0]] & masks[r[1]]
        out[i] = (np.sum(m & pos), np.sum(~m & neg), np.sum(m & grp))
    names = [" & ".join(f"x{a}={v}" for a, v in r) for r in rules]
    return out, names


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--epsilons", nargs="+", type=float, default=list(EPSILONS))
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    ap.add_argument("--cli-check", type=int, default=3, help="seeds checked against the dpmo select command")
    ap.add_argument("--data-dir", default=str(Path(__file__).resolve().parents[1] / ".." / "shared" / "data"))
    args = ap.parse_args(argv)
    data = load_acs(Path(args.data_dir) / "acs.dat")
    V, names = rule_table(np.asarray(data.X), np.asarray(data.y))
    y, group = np.asarray(data.y), np.asarray(data.X)[:, GROUP]
    norm = np.array([np.sum(y == 1), np.sum(y == 0), np.sum((y == 1) & (group == 1))])
    P = V / norm  # evaluation only
    best = best_hypervolume(P, args.k)
    objs = [dpmo.Objective(V[:, i], 1.0, name=c) for i, c in enumerate(("tp", "tn", "tp_group"))]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rules.csv"
        with open(path, "w") as f:
            f.write("rule,tp,tn,tp_group\n")
            for name, row in zip(names, V.astype(int), strict=True):
                f.write(f"{name},{row[0]},{row[1]},{row[2]}\n")
        for seed in range(args.cli_check):
            for method in args.methods:
                cmd = [sys.executable, "-m", "dpmo.cli", "select", str(path), "--id-column", "rule",
                       "--objective", "tp=1", "--objective", "tn=1", "--objective", "tp_group=1",
                       "-k", str(args.k), "--epsilon", "2", "--approach", method, "--sensitivity", "global",
                       "--seed", str(seed)]  # fmt: skip
                run = subprocess.run(cmd, capture_output=True, text=True, check=True, env=os.environ)
                printed = run.stdout
                idx = dpmo.select_multiobjective(
                    objs, 2.0, approach=method, sensitivity="global", k=args.k, rng=seed
                )
                assert printed.split("\n")[: args.k] == [names[i] for i in idx], (method, seed, printed)
        if args.cli_check:
            print(f"dpmo select printed the picks of select_multiobjective for seeds 0..{args.cli_check - 1}")
    print(f"{len(names)} candidate rules, k = {args.k}, {args.runs} runs per cell; mean [95% half-width]")
    print("| method | " + " | ".join(f"{e:g}" for e in args.epsilons) + " |")
    print("|---|" + "---|" * len(args.epsilons))
    for method in args.methods:
        cells = []
        t0 = time.process_time()
        for eps in args.epsilons:
            r = []
            for seed in range(args.runs):
                idx = dpmo.select_multiobjective(
                    objs, eps, approach=method, sensitivity="global", k=args.k, rng=seed, exact=False
                )
                r.append(hypervolume(P[idx], 0.0) / best)
            r = np.asarray(r)
            cells.append(f"{r.mean():.2f} [{1.96 * r.std(ddof=1) / np.sqrt(r.size):.2f}]")
        cpu = time.process_time() - t0
        print(f"| {method} | " + " | ".join(cells) + f" |  ({cpu:.0f} s CPU)", flush=True)


if __name__ == "__main__":
    main()
