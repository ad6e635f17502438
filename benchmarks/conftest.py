"""pytest configuration of the timing benchmarks (pytest-benchmark; ``docs/benchmarks.md``).

* Markers: ``slow`` (a fresh interpreter per call: imports, numba's cache or compilation), ``huge`` (the
  issue-21 scale, 10^6 and 10^7-node graphs, minutes and GBs): ``huge`` runs only when asked for with
  ``-m huge``.
* Without pytest-benchmark (not installed, or ``-p no:benchmark``: the test suite's environment), a stand-in
  ``benchmark`` fixture calls each function once, so that ``tests/test_benchmarks.py`` can check the
  definitions anywhere.
* pytest-benchmark's machine information gets the path of the ``dpmo`` package imported, so that
  ``benchmarks/compare.py`` can check that each side measured its own code.
"""

from __future__ import annotations

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a benchmark taking seconds per call")
    config.addinivalue_line("markers", "huge: minutes and gigabytes; only with -m huge")
    if config.pluginmanager.hasplugin("benchmark"):
        config.pluginmanager.register(_MachineInfo(), "dpmo-benchmark-machine-info")
    else:  # pytest-benchmark not installed (or -p no:benchmark): call each function once
        config.pluginmanager.register(_Fallback(), "dpmo-benchmark-fallback")


def pytest_collection_modifyitems(config, items):
    if "huge" in (config.getoption("-m") or ""):
        return
    skip = pytest.mark.skip(reason="huge benchmark: run it with -m huge")
    for item in items:
        if "huge" in item.keywords:
            item.add_marker(skip)


class _MachineInfo:
    """Adds the path of the ``dpmo`` imported to pytest-benchmark's machine information."""

    def pytest_benchmark_update_machine_info(self, config, machine_info):
        import dpmo

        machine_info["dpmo_file"] = dpmo.__file__


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


class _Fallback:
    @pytest.fixture
    def benchmark(self):
        return _Once()
