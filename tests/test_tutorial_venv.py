"""The tutorial (``docs/start-here.md``) and the Spark page's examples (``docs/spark.md``) run verbatim in a
fresh virtual environment from a clone.

One virtual environment is made for this file (``venv`` with pip, not ``--system-site-packages``: nothing of
the machine's Python is visible in it). The tutorial's install line (``python -m pip install
".[experiments]"``) runs in the clone's root, then its Python blocks (in order, as one script) and its other
shell blocks (the ``dpmo`` command lines) in an empty folder, with the virtual environment's ``python`` and
``dpmo`` first on ``PATH`` and nothing of this checkout on the path. Then the Spark page's install line
(``pip install ".[spark]"``) runs in the same environment, and its two examples (the graph and the candidate
table) as they are, in order as one script, in an empty folder beside ``shared/data``; Spark's Python
workers run the ``python3`` of ``PATH``, the environment's, as they would for a user of it. Running the
Spark page after the tutorial saves installing numpy, scipy, numba and pandas twice (pyspark itself comes
from pip's cache); that the Spark extra is enough on its own is checked by listing the modules of the
tutorial's extra that the examples imported (none).

Both install from the package index (the tutorial about 40 s with a warm pip cache on 2 idle cores; the
Spark page adds its extra and the two examples, each starting Spark), so they run only when
``DPMO_TUTORIAL_VENV=1``: ``.ci/run`` sets it in a step of its own, after the test suite.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("DPMO_DATA_DIR", ROOT.parent / "shared" / "data"))

pytestmark = pytest.mark.skipif(
    os.environ.get("DPMO_TUTORIAL_VENV") != "1", reason="installs into a fresh venv: set DPMO_TUTORIAL_VENV=1"
)

#: Modules of the extra "experiments" (the tutorial's) that the Spark examples must not need.
TUTORIAL_ONLY = ("sklearn", "networkx", "matplotlib", "joblib", "tqdm")


def _blocks(page: str, kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", (ROOT / "docs" / page).read_text(), re.S)


class Venv:
    """A fresh virtual environment and a shell that runs in it (its ``bin`` first on ``PATH``)."""

    def __init__(self, env_dir: Path):
        venv.EnvBuilder(with_pip=True, clear=True).create(env_dir)
        self.dir = env_dir
        bindir = env_dir / ("Scripts" if sys.platform == "win32" else "bin")
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP")}
        env.update(PATH=os.pathsep.join([str(bindir), env.get("PATH", "")]), VIRTUAL_ENV=str(env_dir))
        self.env = env

    def sh(self, script: str, cwd: Path) -> str:
        proc = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            cwd=cwd,
            env=self.env,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 0, f"{script}\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
        return proc.stdout


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory) -> Venv:
    return Venv(tmp_path_factory.mktemp("venv") / "venv")


def test_start_here_runs_verbatim_in_a_fresh_venv(fresh_venv, tmp_path):
    install, *commands = _blocks("start-here.md", "bash")
    assert 'pip install ".[experiments]"' in install
    out = fresh_venv.sh(install, ROOT)  # the install line, in the clone's root
    assert re.search(r"^dpmo \d", out, re.M)  # dpmo --version
    work = tmp_path / "tutorial"
    work.mkdir()
    (work / "tutorial.py").write_text("\n".join(_blocks("start-here.md", "python")))
    out = fresh_venv.sh("python tutorial.py", work)
    assert "1.5 0.5" in out and "refused:" in out
    located = fresh_venv.sh("python -c 'import dpmo; print(dpmo.__file__)'", work)
    assert str(fresh_venv.dir) in located  # the installed package, not this checkout
    out = fresh_venv.sh("\n".join(commands), work)
    assert "## tree 0" in out and "predict" in out


def test_the_spark_page_examples_run_verbatim_in_the_venv(fresh_venv, tmp_path, needs_java):
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real datasets not found in {SHARED_DATA} (set DPMO_DATA_DIR)")
    install = _blocks("spark.md", "bash")[0]
    assert 'pip install ".[spark]"' in install and "java -version" in install
    fresh_venv.sh(install, ROOT)  # the install line, in the clone's root
    examples = [b for b in _blocks("spark.md", "python") if b.startswith("# example:")]
    assert len(examples) == 2, "docs/spark.md: the graph and the table example"
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "data").symlink_to(SHARED_DATA)  # the page reads ../shared/data
    work = tmp_path / "work"
    work.mkdir()
    (work / "spark_examples.py").write_text("\n".join(examples))  # in order, as one script (one JVM)
    check = f"print('imported:', sorted(m for m in {TUTORIAL_ONLY!r} if m in sys.modules))"
    out = fresh_venv.sh(
        f"python -c \"import runpy, sys; runpy.run_path('spark_examples.py'); {check}\"", work
    )
    assert re.search(r"^\[(\d+, ){4}\d+\]$", out, re.M) and re.search(r"^1\.0 5$", out, re.M), out  # graph
    assert re.search(r"^\['m\d{4}', 'm\d{4}', 'm\d{4}'\]$", out, re.M), out  # table
    assert re.search(r"^1\.0 3$", out, re.M), out
    assert "imported: []" in out, out  # the Spark extra is enough: nothing of the tutorial's was needed
