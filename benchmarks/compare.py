"""Run the timing benchmarks (pytest-benchmark) on the working tree, or compare it with a commit.

    python benchmarks/compare.py --against main            # main vs the working tree: medians and ratios
    python benchmarks/compare.py --table                   # the README's performance table (this tree)
    python benchmarks/compare.py --against HEAD~3 -k "pareto and not github" --rounds 5

With ``--against REF``, the ``src/`` of REF is extracted (``git archive``) into a temporary folder and the
same benchmark definitions (those of the working tree) run once with ``PYTHONPATH`` on REF's code and once
on the working tree's, alternately (REF, tree, tree, REF, ...: drift of the machine's speed hits both
sides alike), ``--rounds`` times each. First calls (numba compiling or loading its cache) fall in
pytest-benchmark's calibration or in a benchmark's untimed set-up, not in the timed rounds (``--warm-up``
adds an untimed pass per side before the rounds anyway). A benchmark's figure is the median over the
rounds of pytest-benchmark's median of each round; the ratio is tree / REF (below 1: the tree is faster);
"spread" is the range of the per-round medians of the tree relative to its figure, the noise to read a
ratio against. The machine's load average is printed before
and after. A benchmark that fails or is skipped on one side (a name that REF does not have yet) shows "-".

Requires ``pip install -e ".[bench]"`` (pytest-benchmark; OpenDP for its yardstick rows). See
``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], check=True, capture_output=True, text=True).stdout


def extract_src(ref: str, folder: Path) -> Path:
    """Write ``src/`` of commit ``ref`` into ``folder``; returns ``folder / "src"``."""
    blob = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", ref, "src"],
                          check=True, capture_output=True).stdout  # fmt: skip
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        tar.extractall(folder)
    return folder / "src"


def pytest_command(json_path: Path | None, args: argparse.Namespace) -> list[str]:
    cmd = [sys.executable, "-m", "pytest", str(HERE), "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
    cmd += ["--rootdir", str(HERE)]
    cmd += ["-o", "addopts=", "-o", "testpaths="]  # the repository's pytest settings are for tests/
    if args.k:
        cmd += ["-k", args.k]
    if args.m:
        cmd += ["-m", args.m]
    if json_path is None:
        cmd += ["--benchmark-disable"]
    else:
        cmd += ["--benchmark-only", f"--benchmark-json={json_path}"]
        if args.smoke:
            cmd += ["--benchmark-min-rounds=1", "--benchmark-max-time=0.000001", "--benchmark-warmup=off"]
    return cmd + list(args.pytest_args or [])


def run_side(src: Path, json_path: Path | None, args: argparse.Namespace) -> dict:
    """One pytest run of the benchmarks on the code in ``src``; ``{fullname: benchmark record}``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))}
    env["PYTHONPATH"] = os.pathsep.join([str(src), str(HERE)])  # the side's code, and benchmarks/support.py
    if args.smoke:
        env["DPMO_BENCH_SMOKE"] = "1"
    res = subprocess.run(pytest_command(json_path, args), env=env, capture_output=True, text=True, cwd=REPO)
    if res.returncode not in (0, 1):  # 1: some benchmark failed (reported as "-")
        out = res.stdout[-3000:] + res.stderr[-3000:]
        sys.exit(f"compare: pytest failed on {src} (status {res.returncode}):\n{out}")
    if json_path is None:
        return {}
    doc = json.loads(json_path.read_text())
    used = doc.get("machine_info", {}).get("dpmo_file", "")
    if used and not Path(used).resolve().is_relative_to(src.resolve()):
        sys.exit(f"compare: the run meant for {src} imported dpmo from {used}")
    return {b["fullname"]: b for b in doc["benchmarks"]}


def summarize(rounds: list[dict]) -> dict[str, dict]:
    """Per benchmark over the rounds of one side: ``median`` of the per-round medians, their ``lo`` and
    ``hi``, and the ``extra_info`` of the last round."""
    out: dict[str, dict] = {}
    for name in dict.fromkeys(n for r in rounds for n in r):  # in the order they ran (file by file)
        meds = [r[name]["stats"]["median"] for r in rounds if name in r]
        extra = next((r[name].get("extra_info", {}) for r in reversed(rounds) if name in r), {})
        out[name] = {"median": statistics.median(meds), "lo": min(meds), "hi": max(meds), "extra": extra}
    return out


def seconds(x: float | None) -> str:
    """Three significant digits, never in exponent notation; ``-`` for a missing figure."""
    if x is None or not math.isfinite(x):
        return "-"
    if x <= 0:
        return "0"
    return f"{x:.{max(0, 2 - math.floor(math.log10(x)))}f}"


def _case(name: str, info: dict) -> str:
    return info.get("extra", {}).get("case") or name.split("::", 1)[-1]


def _note(info: dict) -> str:
    extra = info.get("extra", {})
    parts = [f"peak {extra['peak_mb']} MB"] if "peak_mb" in extra else []
    parts += [f"{k} {v}" for k, v in extra.items() if k not in ("case", "note", "peak_mb", "readme")]
    if extra.get("note"):
        parts.append(extra["note"])
    return "; ".join(str(p) for p in parts)


def table(new: dict, old: dict | None, ref: str | None, readme: bool, every_row: bool = True) -> str:
    """The results as Markdown: README rows (case, seconds, note) or the comparison with ``ref``; without
    ``every_row``, only the benchmarks marked for the README (all of them if none is)."""
    if not every_row and any(i.get("extra", {}).get("readme") for i in new.values()):
        new = {n: i for n, i in new.items() if i.get("extra", {}).get("readme")}
        old = None if old is None else {n: i for n, i in old.items() if n in new}
    if old is None:
        head = ["| case | seconds | note |", "|---|---|---|"]
        rows = [f"| {_case(n, i)} | {seconds(i['median'])} | {_note(i)} |" for n, i in new.items()]
        return "\n".join(head + rows)
    label = "case" if readme else "benchmark"
    head = [f"| {label} | {ref} s | this tree s | ratio | spread | note |", "|---|---|---|---|---|---|"]
    rows = []
    for name in dict.fromkeys([*new, *old]):
        a, b = old.get(name), new.get(name)
        ratio = "-" if not (a and b) or a["median"] <= 0 else f"{b['median'] / a['median']:.2f}"
        spread = "-" if not b else f"{(b['hi'] - b['lo']) / max(b['median'], 1e-12):.0%}"
        info = b or a
        first = _case(name, info) if readme else name.split("::", 1)[-1]
        rows.append(
            f"| {first} | {seconds(a and a['median'])} | {seconds(b and b['median'])} | {ratio} | {spread} "
            f"| {_note(info) if readme else ''} |"
        )
    return "\n".join(head + rows)


def load_average() -> str:
    try:
        return " ".join(f"{x:.1f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - platform
        return "?"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", metavar="REF", help="a commit, branch or tag to compare with")
    ap.add_argument("--rounds", type=int, default=3, help="timed runs of each side (default 3)")
    ap.add_argument("--table", action="store_true", help="print the README's table (case, seconds, note)")
    ap.add_argument("--all", action="store_true", help="with --table: every benchmark, not the README's rows")
    ap.add_argument("-k", help="pytest -k expression selecting benchmarks")
    ap.add_argument("-m", help="pytest -m marker expression (e.g. 'not slow', 'huge')")
    ap.add_argument("--json", type=Path, help="write the summaries of both sides to this file")
    ap.add_argument("--warm-up", action="store_true", help="one untimed pass per side before the rounds")
    ap.add_argument("--smoke", action="store_true", help="tiny sizes, one round (the test suite)")
    ap.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    args = ap.parse_args(argv)
    if args.smoke:
        args.rounds = 1
    print(f"load average before: {load_average()}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="dpmo-bench-") as tmp:
        tmp = Path(tmp)
        sides = [("tree", REPO / "src")]
        ref = None
        if args.against:
            ref = git("rev-parse", "--short", args.against).strip()
            sides.insert(0, ("ref", extract_src(args.against, tmp / "ref")))
        if args.warm_up:
            for _, src in sides:  # one untimed pass each: numba caches, imports
                run_side(src, None, args)
        results: dict[str, list[dict]] = {name: [] for name, _ in sides}
        for r in range(args.rounds):
            order = sides if r % 2 == 0 else sides[::-1]
            for name, src in order:
                results[name].append(run_side(src, tmp / f"{name}-{r}.json", args))
                print(f"round {r + 1}/{args.rounds}: {name} done, load {load_average()}", file=sys.stderr)
    new = summarize(results["tree"])
    old = summarize(results["ref"]) if ref else None
    if args.json:
        args.json.write_text(json.dumps({"ref": ref, "tree": new, "against": old}, indent=1))
    print(f"load average after: {load_average()}", file=sys.stderr)
    if ref:
        print(f"{ref} = {args.against} against the working tree; {args.rounds} rounds; seconds per call\n")
    print(table(new, old, ref, args.table, every_row=args.all or not args.table))
    return 0


if __name__ == "__main__":
    sys.exit(main())
