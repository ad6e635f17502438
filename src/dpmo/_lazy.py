"""Public names loaded on first use (PEP 562), for the packages whose ``import`` must stay cheap.

:func:`lazy_exports` makes a package's ``__getattr__`` and ``__dir__`` from its table of public names
(name -> the submodule that defines it) and, optionally, the submodules reachable as attributes.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, namespace: dict, exports: Mapping[str, str], submodules: Iterable[str] = ()
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: a name of ``exports`` is imported from its submodule the
    first time it is asked for and kept in ``namespace`` (the package's ``globals()``); a name of
    ``submodules`` imports that submodule. O(1) per lookup after the first."""
    subs = frozenset(submodules)

    def __getattr__(name: str):
        module = exports.get(name)
        if module is not None:
            value = getattr(importlib.import_module(f"{package}.{module}"), name)
            namespace[name] = value
            return value
        if name in subs:
            return importlib.import_module(f"{package}.{name}")
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(exports) | subs)

    return __getattr__, __dir__
