"""pytest configuration of the timing benchmarks (pytest-benchmark; ``docs/benchmarks.md``).

* Markers: ``slow`` (seconds per call: real-data fits, a cold numba compilation), ``huge`` (the issue-21
  scale, 10^6 and 10^7-node graphs, minutes and GBs): ``huge`` runs only when asked for with ``-m huge``.
* Without pytest-benchmark installed (the test suite's environment), a stand-in ``benchmark`` fixture calls
  each function once, so that ``tests/test_benchmarks.py`` can check the definitions anywhere.
* pytest-benchmark's machine information gets the path of the ``dpmo`` package imported, so that
  ``benchmarks/compare.py`` can check that each side measured its own code.
"""

from __future__ import annotations

import pytest

try:
    import pytest_benchmark  # noqa: F401

    HAVE_PYTEST_BENCHMARK = True
except ImportError:  # pragma: no cover - depends on the installation
    HAVE_PYTEST_BENCHMARK = False


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a benchmark taking seconds per call")
    config.addinivalue_line("markers", "huge: minutes and gigabytes; only with -m huge")


def pytest_collection_modifyitems(config, items):
    if "huge" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="huge benchmark: run it with -m huge")
    for item in items:
        if "huge" in item.keywords:
            item.add_marker(skip)


def pytest_benchmark_update_machine_info(config, machine_info):
    import dpmo

    machine_info["dpmo_file"] = dpmo.__file__


if not HAVE_PYTEST_BENCHMARK:  # pragma: no cover - depends on the installation

    class _Once:
        """The part of pytest-benchmark's fixture the benchmarks use; calls the function once."""

        def __init__(self):
            self.extra_info: dict = {}

        def __call__(self, f, *args, **kwargs):
            return f(*args, **kwargs)

        def pedantic(self, f, args=(), kwargs=None, setup=None, rounds=1, iterations=1, warmup_rounds=0):
            if setup is not None:
                made = setup()
                if made is not None:
                    args, kwargs = made
            return f(*args, **(kwargs or {}))

    @pytest.fixture
    def benchmark():
        return _Once()
