"""Optional dependencies: import one, or say in one line which extra of ``dpmo`` provides it.

``pip install .`` installs the core (numpy, scipy, numba): selection, dampening, the multi-objective
approaches and the graphs. The estimators, the experiments and the file formats beyond CSV need more, each
named by an extra of ``pyproject.toml``; :func:`require` turns "No module named 'sklearn'" into a message
that names the extra. This module imports nothing of ``dpmo``, so every layer may use it.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require", "EXTRAS"]

#: Top-level module -> (distribution to install, extra of dpmo that installs it).
EXTRAS = {
    "sklearn": ("scikit-learn", "trees"),
    "pandas": ("pandas", "experiments"),
    "networkx": ("networkx", "experiments"),
    "matplotlib": ("matplotlib", "experiments"),
    "joblib": ("joblib", "experiments"),
    "tqdm": ("tqdm", "experiments"),
    "dask": ("dask[distributed]", "dask"),
    "pyarrow": ("pyarrow", "parquet"),
}


def require(module: str, what: str) -> ModuleType:
    """Import ``module`` (e.g. ``"sklearn.base"``), or raise a one-line ImportError naming the extra.

    Parameters
    ----------
    module : str
        The module to import; its top-level package must be a key of :data:`EXTRAS`.
    what : str
        What needs it, for the message (e.g. ``"dpmo.trees"``).

    Examples
    --------
    >>> from dpmo._extras import require
    >>> require("numpy", "this example").__name__  # installed: the module itself
    'numpy'
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        top = module.split(".")[0]
        if exc.name is None or exc.name.split(".")[0] != top or top not in EXTRAS:
            raise
        dist, extra = EXTRAS[top]
        raise ImportError(
            f'{what} needs {dist}, which is not installed: pip install ".[{extra}]" from the dpmo clone '
            f'(or pip install "{dist}")'
        ) from None
