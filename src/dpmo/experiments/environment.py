"""What produced a run: dpmo's version and git commit, Python's and the main packages' versions.

Written into ``OUT/meta.json`` by ``dpmo reproduce`` (one record per experiment) and into the header of
``report.md``, so that a reviewer can tell which code computed the numbers.
"""

from __future__ import annotations

import platform
import subprocess
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["PACKAGES", "environment", "environment_text", "git_commit"]

#: Packages whose versions are recorded (distribution names).
PACKAGES = ("numpy", "scipy", "numba", "scikit-learn", "networkx")


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        out = subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=10,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def git_commit(package_dir: str | Path | None = None) -> dict[str, Any] | None:
    """The git commit of dpmo's own source tree, or None when dpmo is not run from a git checkout.

    Runs ``git rev-parse`` in the package's directory (guarded: no git, no repository, a timeout all give
    None). A repository counts only when it is dpmo's own, i.e. the package sits at ``src/dpmo`` or
    ``dpmo`` under its top level: an installed copy inside some other repository (a virtual environment in a
    user's project) gives None rather than that project's commit.

    Returns
    -------
    dict or None
        ``{"commit": full hash, "short": 7 characters, "dirty": bool}``; ``dirty`` means the source had
        uncommitted changes to tracked files.

    Examples
    --------
    >>> import tempfile
    >>> from dpmo.experiments.environment import git_commit
    >>> with tempfile.TemporaryDirectory() as folder:  # not a git checkout
    ...     git_commit(folder) is None
    True
    >>> info = git_commit()  # dpmo's own checkout, or None for an installed copy
    >>> info is None or len(info["commit"]) == 40
    True
    """
    if package_dir is None:
        package_dir = Path(__file__).resolve().parents[1]
    package_dir = Path(package_dir).resolve()
    if not package_dir.is_dir():
        return None
    top = _git(["rev-parse", "--show-toplevel"], package_dir)
    if not top:
        return None
    top_path = Path(top).resolve()
    if package_dir not in (top_path / "src" / "dpmo", top_path / "dpmo"):
        return None
    commit = _git(["rev-parse", "HEAD"], package_dir)
    if not commit:
        return None
    status = _git(["status", "--porcelain", "--untracked-files=no"], top_path)
    return {"commit": commit, "short": commit[:7], "dirty": bool(status)}


def environment() -> dict[str, Any]:
    """dpmo's version and commit, Python's version and platform, and the versions of :data:`PACKAGES`.

    A package that is not installed has version None. O(1) plus two or three ``git`` calls.

    Examples
    --------
    >>> import platform
    >>> from dpmo.experiments.environment import PACKAGES, environment
    >>> env = environment()
    >>> env["python"] == platform.python_version()
    True
    >>> sorted(env["packages"]) == sorted(PACKAGES)
    True
    """
    import dpmo

    packages = {}
    for name in PACKAGES:
        try:
            packages[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            packages[name] = None
    return {
        "dpmo": dpmo.__version__,
        "git": git_commit(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": packages,
    }


def environment_text(env: dict[str, Any]) -> str:
    """One line for the report: ``dpmo 0.1.0 (git 1a2b3c4), Python 3.11.7 (Linux-...); numpy 1.26.4, ...``.

    Examples
    --------
    >>> from dpmo.experiments.environment import environment_text
    >>> env = {"dpmo": "0.1.0", "git": None, "python": "3.11.7", "platform": "Linux",
    ...        "packages": {"numpy": "2.0.0", "networkx": None}}
    >>> environment_text(env)
    'dpmo 0.1.0 (no git checkout), Python 3.11.7 (Linux); numpy 2.0.0, networkx not installed'
    """
    git = env.get("git")
    if git:
        where = f"git {git['short']}" + (" with uncommitted changes" if git.get("dirty") else "")
    else:
        where = "no git checkout"
    head = f"dpmo {env.get('dpmo', '?')} ({where}), Python {env.get('python', '?')}"
    if env.get("platform"):
        head += f" ({env['platform']})"
    pkgs = ", ".join(
        f"{name} {version}" if version else f"{name} not installed"
        for name, version in (env.get("packages") or {}).items()
    )
    return head + (f"; {pkgs}" if pkgs else "")
