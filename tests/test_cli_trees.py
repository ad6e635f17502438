"""``dpmo trees`` prints the private trees, never a private statistic by default; the command line's
releases sample exactly unless ``--float-sampler`` is given (issues 12 and 16)."""

from __future__ import annotations

import pytest

from dpmo.cli import main


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _edges(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("0 1\n1 2\n2 3\n3 4\n")
    return path


# ------------------------------------------------------------------------------------------ exact by default
@pytest.mark.parametrize(("extra", "expected"), [([], True), (["--float-sampler"], False)])
def test_topk_samples_exactly_by_default(tmp_path, capsys, monkeypatch, extra, expected):
    import dpmo.graphs as graphs

    seen = []
    original = graphs.top_k

    def spy(*args, **kwargs):
        seen.append(kwargs.get("exact"))
        return original(*args, **kwargs)

    monkeypatch.setattr(graphs, "top_k", spy)
    code, out, err = _run(
        ["topk", str(_edges(tmp_path)), "--n-nodes", "6", "-k", "2", "--seed", "1", *extra], capsys
    )
    assert code == 0, err
    assert seen == [expected]
    assert len(out.strip().splitlines()) == 4  # header, "node", two picks


def test_laplace_needs_the_float_sampler(tmp_path, capsys):
    base = ["topk", str(_edges(tmp_path)), "--n-nodes", "6", "-k", "2", "--mechanism", "laplace"]
    code, _, err = _run(base, capsys)
    assert code == 2 and "--float-sampler" in err and "Traceback" not in err
    code, out, err = _run([*base, "--float-sampler", "--seed", "0"], capsys)
    assert code == 0, err


def test_help_shows_the_float_sampler(capsys):
    for command in ("topk", "trees"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out, _ = capsys.readouterr()
        assert "--float-sampler" in out
