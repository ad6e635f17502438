"""Sphinx configuration of the dpmo documentation site.

Build: ``sphinx-build -W docs docs/_build/html`` (``pip install -e ".[docs]"``); the test suite builds it
too (``tests/test_docs.py``), with warnings as errors.

Why Sphinx: the API reference is generated from the numpydoc docstrings by ``autodoc`` + ``napoleon``
(MkDocs would need mkdocstrings and a separate docstring parser), the existing Markdown pages are read as
they are by ``myst-parser``, and ``-W`` turns every broken reference or malformed docstring into a build
error, which the tests rely on.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "src")))

import dpmo  # noqa: E402

project = "dpmo"
author = "dpmo developers"
copyright = "2026, dpmo developers"  # noqa: A001
release = dpmo.__version__
version = dpmo.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# numpydoc docstrings through napoleon
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_ivar = True
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}

# Markdown pages: headings get anchors so that [text](#section) links resolve
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]

# The pages cite source files and folders of the repository (`src/dpmo/...`, `tests/...`, `benchmarks/...`)
# and GitHub-style anchors; those are not documents of the site.
suppress_warnings = ["myst.xref_missing", "myst.header"]

# dpmo.graphs.spark imports pyspark (the optional "spark" extra): without it, document it from a mock
try:
    import pyspark  # noqa: F401
except ImportError:
    autodoc_mock_imports = ["pyspark"]

html_theme = "alabaster"
html_title = f"dpmo {release}"


def _skip_foreign(app, what, name, obj, skip, options):
    """Leave out members that scikit-learn adds to the estimators (``set_fit_request``, ...)."""
    module = getattr(obj, "__module__", None) or ""
    if module.startswith("sklearn"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_foreign)
