"""No record's value, line number or count in anything the library or the command line raises or prints
(issue 31 point 3).

Every refusal path below is triggered with bad inputs that carry distinctive values (a number ``17.99123``,
a label or category ``zz_secret_label``, an id or label ``9137``), with the bad record on line 73 of a
table of 87 records. The message (and every exception it chains to), or the command line's stdout and
stderr, must name the rule broken and must not contain the value, the line (or row) number, or the number
of records. On the old code most of them fail: ``load_csv`` printed "non-numeric value 'zz_secret_label'"
and "line 73: label '9137'", the edge reader "line 73: ... got '17.99123 5'", ``load_graph(nx_graph,
nodes=32)`` the graph's node count, the estimators "y holds the label 9137", scikit-learn's ``check_array``
the whole 1-D array, and the ``Dataset`` repr the numbers of rows and positives.
"""

from __future__ import annotations

import re
import traceback
import warnings
from pathlib import Path

import numpy as np
import pytest

import dpmo
from dpmo import graphs
from dpmo.cli import main
from dpmo.datasets import Dataset, EncodedTable, Feature, load_adult, load_csv, load_nltcs
from dpmo.tables import read_table

VALUES = ("17.99123", "zz_secret_label", "9137")
BAD_LINE = 73  # 1-based line of the bad record in a file with a header line (record 72, index 71)
N = 87  # records
NUMBERS = (BAD_LINE - 2, BAD_LINE - 1, BAD_LINE, N - 1, N, N + 1)


def assert_private(text: str, *paths) -> None:
    """``text`` names none of the distinctive values, the bad record's line or index, or the record count."""
    for p in paths:
        text = text.replace(str(p), "<path>")
    for v in VALUES:
        assert v not in text, f"{v!r} shown in: {text}"
    for n in NUMBERS:
        assert not re.search(rf"(?<![\d.]){n}(?![\d.])", text), f"{n} shown in: {text}"


def shown(exc: BaseException) -> str:
    """What a traceback shows of ``exc``: its line and the lines of the exceptions it displays as causes."""
    parts = []
    while exc is not None:
        parts.append("".join(traceback.format_exception_only(type(exc), exc)))
        if exc.__cause__ is not None:
            exc = exc.__cause__
        elif exc.__context__ is not None and not exc.__suppress_context__:
            exc = exc.__context__
        else:
            exc = None
    return "\n".join(parts)


def refused(call, *paths, match=None) -> str:
    with pytest.raises((ValueError, TypeError, KeyError)) as err:
        call()
    text = shown(err.value)
    assert_private(text, *paths)
    if match is not None:
        assert re.search(match, text), text
    return text


# ------------------------------------------------------------------------------------------------ tables
def _csv(tmp_path, *, cell=None, label=None, extra=False, header=True, name="table.csv") -> Path:
    """87 records ``age,colour,y`` (age in [0, 100], colour red/blue, y 0/1); record 72 (line 73) altered."""
    lines = ["age,colour,y"] if header else []
    for i in range(N):
        row = [str(20 + i % 50), ("red", "blue")[i % 2], str(i % 2)]
        if i == BAD_LINE - 2:
            if cell is not None:
                row[cell[0]] = cell[1]
            if label is not None:
                row[2] = label
            if extra:
                row.append("17.99123")
        lines.append(",".join(row))
    if not header:  # the first line is a record holding the distinctive values
        lines[0] = "17.99123,zz_secret_label,9137"
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


META = dict(categorical={"colour": ("red", "blue")}, bounds={"age": (0, 100)})
CLI_META = ["--categorical", "colour=red,blue", "--numeric", "age=0:100"]

CSV_CASES = {
    "a cell that is not a number": dict(cell=(0, "zz_secret_label")),
    "a category outside the domain": dict(cell=(1, "zz_secret_label")),
    "a label outside the default label set": dict(label="9137"),
    "a row with another number of fields": dict(extra=True),
}


@pytest.mark.parametrize("case", list(CSV_CASES))
def test_load_csv_refusals_name_the_rule_not_the_record(tmp_path, case):
    p = _csv(tmp_path, **CSV_CASES[case])
    refused(lambda: load_csv(p, "y", **META), p, match="colour|age|y|fields")
    refused(lambda: read_table(p, label="y", **META), p)


def test_load_csv_declared_label_pair_and_a_header_line_that_is_a_record(tmp_path):
    p = _csv(tmp_path, label="zz_secret_label")
    refused(lambda: load_csv(p, "y", positive=1, negative=0, **META), p, match="declared label set")
    q = _csv(tmp_path, header=False, name="noheader.csv")  # read with a header line that is a record
    refused(lambda: load_csv(q, "y", **META), q, match="no column")
    refused(lambda: load_csv(q, "2", header=True, **META), q)


def test_one_label_rule_for_load_csv_and_the_command_line(tmp_path, capsys):
    """The default label set is {0, 1} in both: a label 2 is refused (the old load_csv read it as
    negative); ``positive`` alone reads that value against every other label in both."""
    p = _csv(tmp_path, label="2")
    with pytest.raises(dpmo.datasets.types.LabelError, match=r"declared label set \[0, 1\]"):
        load_csv(p, "y", **META)
    code = main(["trees", str(p), "--label", "y", *CLI_META, "--seed", "0"])
    assert code == 2 and "declared label set ['0', '1']" in capsys.readouterr().err
    odd = sum(i % 2 for i in range(N))  # records labelled 1, one of which (record 71) now holds 2
    assert load_csv(p, "y", positive=1, **META).y.sum() == odd - 1  # 1 against every other label
    assert load_csv(p, "y", positive=2, **META).y.sum() == 1  # 2 against every other label
    argv = ["trees", str(p), "--label", "y", "--positive", "1", *CLI_META, "--seed", "0", "--iterations", "1"]
    code = main(argv)
    assert code == 0, capsys.readouterr().err


def test_dat_and_paper_loaders(tmp_path):
    # .dat with its .domain: a value outside a discrete domain, a cell that is not a number
    dom = tmp_path / "t.domain"
    dom.write_text("D 0 1\nC 0 100\nD 0 1\n")
    for bad in ("9137", "zz_secret_label"):
        rows = [f"{i % 2} {i % 50} {i % 2}" for i in range(N)]
        rows[BAD_LINE - 1] = f"{bad} 3 1"
        dat = tmp_path / "t.dat"
        dat.write_text("\n".join(rows) + "\n")
        refused(lambda dat=dat: read_table(dat), dat, dom)
    # NLTCS layout: 16 binary columns
    rows = [" ".join(str((i + j) % 2) for j in range(16)) for i in range(N)]
    rows[BAD_LINE - 1] = rows[BAD_LINE - 1][:-1] + "9137"
    nltcs = tmp_path / "nltcs.dat"
    nltcs.write_text("\n".join(rows) + "\n")
    refused(lambda: load_nltcs(nltcs), nltcs, match="binary")
    rows[BAD_LINE - 1] = "zz_secret_label " + rows[BAD_LINE - 1]
    nltcs.write_text("\n".join(rows) + "\n")
    refused(lambda: load_nltcs(nltcs), nltcs)


def _adult_line(age="39", workclass="State-gov", label="<=50K", extra=""):
    return (
        f"{age}, {workclass}, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, "
        f"2174, 0, 40, United-States, {label}{extra}"
    )


@pytest.mark.parametrize(
    "bad",
    [
        dict(workclass="zz_secret_label"),
        dict(label="zz_secret_label"),
        dict(age="zz_secret_label"),
        dict(extra=", 17.99123"),
    ],
    ids=["category", "label", "number", "fields"],
)
def test_adult_loader(tmp_path, bad):
    lines = [_adult_line(label=(">50K", "<=50K")[i % 2]) for i in range(N)]
    lines[BAD_LINE - 1] = _adult_line(**bad)
    p = tmp_path / "adult.data"
    p.write_text("\n".join(lines) + "\n")
    refused(lambda: load_adult(p), p)


# ------------------------------------------------------------------------------------------------ graphs
def _edges(tmp_path, bad: str, name="edges.txt") -> Path:
    lines = ["# a path"] + [f"{i} {i + 1}" for i in range(N)]
    lines[BAD_LINE - 1] = bad
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


def test_edge_lists_and_graph_objects(tmp_path):
    nx = pytest.importorskip("networkx")
    sp = pytest.importorskip("scipy.sparse")
    for bad in ("17.99123 5", "9137 5 17", "zz_secret_label"):
        p = _edges(tmp_path, bad)
        refused(lambda p=p: graphs.read_edge_list(p), p, match="not two integer node ids")
        refused(lambda p=p: graphs.load_graph(p, nodes=100), p)
    p = _edges(tmp_path, "zz_secret_label", name="names.txt")
    refused(lambda: graphs.read_edge_list(p, ids="str"), p, match="not two node ids")
    p = _edges(tmp_path, "9137 5")  # an endpoint outside the declared node set
    refused(lambda: graphs.load_graph(p, nodes=100), p, match="not in nodes")
    refused(lambda: graphs.load_graph(np.array([[0, 1], [9137, 2]]), nodes=32), match="not in nodes")
    g = nx.path_graph(5)
    g.add_edge(3, 9137)
    refused(lambda: graphs.load_graph(g, nodes=list(range(32))), match="not in nodes")
    refused(lambda: graphs.load_graph(g, nodes=32), match="not in nodes")
    named = nx.Graph([(f"n{i}", f"n{i + 1}") for i in range(N - 1)])  # 87 string-labelled nodes
    assert named.number_of_nodes() == N
    refused(lambda: graphs.load_graph(named, nodes=32), match="not all integers")  # the audit's call
    refused(lambda: graphs.load_graph(sp.eye(9137, format="csr"), nodes=32), match="matrix's size")
    observed = graphs.load_graph(np.array([[0, 1], [1, 9137]]), nodes="observed")
    refused(lambda: observed.on_nodes(32), match="not in nodes")


# ------------------------------------------------------------------------------------------------ estimators
def _estimators():
    from dpmo.trees import DiffPID3Classifier, DPMOETClassifier, LocalDiffPID3Classifier

    return [
        lambda **kw: DPMOETClassifier(1.0, population_size=4, selection_size=2, n_iterations=1, **kw),
        lambda **kw: DiffPID3Classifier(1.0, max_depth=2, **kw),
        lambda **kw: LocalDiffPID3Classifier(1.0, max_depth=2, **kw),
    ]


def _Xy():
    rng = np.random.default_rng(0)
    X = rng.random((N, 2))
    X[BAD_LINE - 2, 0] = 17.99123
    return X, (np.arange(N) % 2)


@pytest.mark.parametrize("i", range(3), ids=["DPMOET", "DiffPID3", "LocalDiffPID3"])
def test_estimator_refusals(i):
    pd = pytest.importorskip("pandas")
    make = _estimators()[i]
    X, y = _Xy()
    bad_y = y.copy()
    bad_y[BAD_LINE - 2] = 9137
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the constant DefaultBoundsWarning (its own test)
        refused(lambda: make(classes=[0, 1], random_state=0).fit(X, bad_y), match="not in classes")
        refused(lambda: make(random_state=0).fit(X, bad_y), match="more than two labels")
        refused(lambda: make(random_state=0).fit(X, np.full(N, "zz_secret_label")), match="fewer than two")
        refused(lambda: make(random_state=0).fit(X, y[:-1]), match="rows")
        refused(lambda: make(random_state=0).fit(X[:, 0], y), match="Reshape your data")
        refused(lambda: make(random_state=0).fit(np.column_stack([X, y]), np.c_[y, y]), match="1d array")
        obj = X.astype(object)
        obj[BAD_LINE - 2, 1] = "zz_secret_label"
        refused(lambda: make(random_state=0).fit(obj, y), match="not a number")
        feats = [
            Feature("age", "numeric", bounds=(0, 100)),
            Feature("colour", "categorical", ("red", "blue")),
        ]
        df = pd.DataFrame({"age": 100 * X[:, 1], "colour": np.where(y == 1, "red", "blue")})
        df.loc[BAD_LINE - 2, "colour"] = "zz_secret_label"
        refused(lambda: make(features=feats, random_state=0).fit(df, y), match="'colour'.*public categories")
        fitted = make(random_state=0).fit(X, y)
        refused(lambda: fitted.predict(X[:, 0]), match="Reshape your data")
        if hasattr(fitted, "evaluate"):  # DP-MOET's (TPR, TNR) on labelled rows
            refused(lambda: fitted.evaluate(X, bad_y), match="not in classes_")
            refused(lambda: fitted.evaluate(X, y[:-1]), match="one label per row")


def test_complex_and_scalar_inputs_are_refused_without_their_values():
    """scikit-learn's messages for complex data print the whole array, and for a scalar ``y`` its value;
    the four estimators refuse with the rule only (at fit and at predict)."""
    from dpmo.trees import PrivateTreeClassifier

    X, y = _Xy()
    makers = [*_estimators(), lambda **kw: PrivateTreeClassifier(1.0, max_depth=2, **kw)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for make in makers:
            est = make(random_state=0)
            refused(lambda e=est: e.fit(X + 1j, y), match="Complex data not supported")
            refused(lambda e=est: e.fit(X, y + 1j), match="Complex data not supported")
            refused(lambda e=est: e.fit(X, np.float64(17.99123)), match="scalar")
            fitted = make(random_state=0).fit(X, y)
            refused(lambda f=fitted: f.predict(X + 1j), match="Complex data not supported")


def test_warnings_at_fit_and_predict_quote_no_value():
    X, y = _Xy()
    X[BAD_LINE - 2, 1] = 9137.0
    for make in _estimators():
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            fitted = make(random_state=0).fit(X, y)
            fitted.predict(X)
        assert seen  # the DefaultBoundsWarning at fit, the clipping warning at predict
        for w in seen:
            assert_private(str(w.message))


def test_data_objects_refuse_and_print_no_count():
    X, y = _Xy()
    refused(lambda: Dataset(X, y[:-1], (Feature("a", "numeric", bounds=(0, 1)),) * 2, "t"))
    refused(lambda: EncodedTable(np.zeros((N, 2)), [Feature("a", "numeric", bounds=(0, 1))]))
    from dpmo.trees import EncodedData

    refused(lambda: EncodedData(X, y[:-1]))
    refused(lambda: dpmo.metrics.tpr_tnr(y, y[:-1]))
    data = Dataset(np.clip(X, 0, 1), y, (Feature("a", "numeric", bounds=(0, 1)),) * 2, "t")
    assert_private(repr(data))
    assert str(int(y.sum())) not in repr(data)  # the positives are not counted either
    g = graphs.load_graph(np.array([[i, i + 1] for i in range(BAD_LINE)]), nodes=200)
    assert g.n_edges == BAD_LINE
    assert_private(repr(g))


# ---------------------------------------------------------------------------------------------- command line
def _cli(argv, capsys, *paths):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert code != 0, out + err
    assert err.startswith("dpmo: error:") and out == ""
    assert_private(out + err, *paths)
    return err


@pytest.mark.parametrize("case", list(CSV_CASES))
@pytest.mark.parametrize("command", ["trees", "id3"])
def test_cli_tree_commands(tmp_path, capsys, command, case):
    p = _csv(tmp_path, **CSV_CASES[case])
    _cli([command, p, "--label", "y", *CLI_META, "--seed", "0"], capsys, p)


def test_cli_tree_commands_more(tmp_path, capsys):
    p = _csv(tmp_path, label="zz_secret_label")
    _cli(["trees", p, "--label", "y", "--classes", "0,1", *CLI_META], capsys, p)
    q = _csv(tmp_path, header=False, name="noheader.csv")
    err = _cli(["trees", q, "--label", "y", *CLI_META], capsys, q)
    assert "no column" in err
    dom = tmp_path / "t.domain"
    dom.write_text("D 0 1\nC 0 100\nD 0 1\n")
    rows = [f"{i % 2} {i % 50} {i % 2}" for i in range(N)]
    rows[BAD_LINE - 1] = "9137 3 1"
    dat = tmp_path / "t.dat"
    dat.write_text("\n".join(rows) + "\n")
    _cli(["id3", dat], capsys, dat, dom)


def test_cli_topk(tmp_path, capsys):
    for bad in ("17.99123 5", "zz_secret_label", "9137 5"):
        p = _edges(tmp_path, bad)
        _cli(["topk", p, "--n-nodes", "100", "-k", "2", "--seed", "0"], capsys, p)
    p = _edges(tmp_path, "zz_secret_label", name="names.txt")
    nodes = tmp_path / "nodes.txt"
    nodes.write_text("\n".join(str(i) for i in range(100)) + "\n")
    _cli(["topk", p, "--nodes", nodes, "--string-ids", "-k", "2"], capsys, p, nodes)


def test_cli_select(tmp_path, capsys):
    def table(bad_row: str, header: str = "id,a,b") -> Path:
        rows = [header] + [f"c{i},{i % 7},{i % 5}" for i in range(N)]
        rows[BAD_LINE - 1] = bad_row
        p = tmp_path / "candidates.csv"
        p.write_text("\n".join(rows) + "\n")
        return p

    argv = ["-k", "2", "--objective", "a=1", "--objective", "b=1", "--id-column", "id", "--seed", "0"]
    for bad in ("c72,zz_secret_label,1", "c72,1,2,17.99123"):
        p = table(bad)
        _cli(["select", p, *argv], capsys, p)
    p = table("c72,1,2", header="17.99123,zz_secret_label,9137")  # no header line: the first line is a row
    err = _cli(["select", p, *argv], capsys, p)
    assert "no column 'a'" in err


def test_select_checks_public_arguments_before_the_scores_finiteness():
    """With a bad public argument, the error named the scores when they held a NaN and the argument
    otherwise: which error a call got said whether the data are finite."""
    import numpy as np

    import dpmo

    for bad in ({"sensitivity": -1.0}, {"k": 5}, {"exact": "yes"}, {"rng": 1.5}, {"epsilon": 0.0}):
        messages = set()
        for scores in (np.array([0.0, 1.0, 2.0]), np.array([0.0, np.nan, 2.0])):
            kwargs = {"epsilon": 1.0, "sensitivity": 1.0, **bad}
            with pytest.raises((ValueError, TypeError)) as info:
                dpmo.select(scores, kwargs.pop("epsilon"), kwargs.pop("sensitivity"), **kwargs)
            messages.add(str(info.value))
        assert len(messages) == 1, messages


def test_local_dampening_checks_public_arguments_before_the_values_finiteness():
    """As select: with a bad public argument, the error named the values when they held a NaN."""
    import numpy as np

    import dpmo

    bad_calls = (
        {"epsilon": 0.0},
        {"k": 5},
        {"global_sensitivity": -1.0},
        {"min_sensitivity": -1.0},
        {"max_steps": 0},
        {"local": 3},
    )
    for bad in bad_calls:
        messages = set()
        for values in (np.array([0.0, 1.0, 2.0]), np.array([0.0, np.nan, 2.0])):
            kwargs = {"epsilon": 1.0, "local": None, "global_sensitivity": 1.0, "rng": 0, **bad}
            with pytest.raises((ValueError, TypeError)) as info:
                dpmo.local_dampening(values, kwargs.pop("epsilon"), kwargs.pop("local"), **kwargs)
            messages.add(str(info.value))
        assert len(messages) == 1, messages
