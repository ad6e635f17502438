"""One compile of each cached numba kernel for the whole test run, not one per xdist worker.

With an empty cache (a fresh clone, a new numba), both workers of ``pytest -n 2`` meet the same kernels at
about the same time and both compile them (numba's cache is written only once a compile ends).
:func:`install` wraps numba's ``Dispatcher.compile``: before compiling a kernel that has an on-disk cache, a
process takes an exclusive file lock named after the kernel (``fcntl.flock``; the operating system releases
it if the process dies); a worker that wants the same kernel meanwhile waits, then finds it in the cache.
Nested compiles (a kernel calling another) take the callee's lock inside the caller's: the call graph has
no cycle, so two workers never wait for each other; within a process, threads first queue for numba's own
compiler lock. A process waits at most :data:`WAIT` seconds, then
compiles anyway. The lock changes when a kernel is compiled and by whom, never what it computes; where
numba lacks what is wrapped here (another version), nothing is wrapped.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time

#: Seconds a process waits for another's compile of the same kernel before compiling it itself.
WAIT = 120.0

_held: dict[str, int] = {}  # lock file -> nesting depth in this process (under numba's compiler lock)


def _lock_file(dispatcher) -> str:
    """One lock file per kernel and cache location (two checkouts never share a lock)."""
    func = dispatcher.py_func
    where = os.environ.get("NUMBA_CACHE_DIR") or os.path.dirname(os.path.abspath(func.__code__.co_filename))
    digest = hashlib.sha1(where.encode()).hexdigest()[:16]
    folder = os.path.join(tempfile.gettempdir(), f"dpmo-numba-compile-{digest}")
    os.makedirs(folder, exist_ok=True)
    return os.path.join(folder, f"{func.__module__}.{func.__qualname__}.lock")


def install() -> bool:
    """Wrap ``numba``'s ``Dispatcher.compile`` (once per process); whether it is wrapped."""
    try:
        import fcntl

        from numba.core import sigutils
        from numba.core.caching import NullCache
        from numba.core.compiler_lock import global_compiler_lock
        from numba.core.dispatcher import Dispatcher
    except ImportError:  # no fcntl (Windows) or another numba layout: compile as usual
        return False
    original = Dispatcher.compile
    if getattr(original, "_dpmo_once", False):
        return True

    def compile(self, sig):
        cache = getattr(self, "_cache", None)
        if cache is None or isinstance(cache, NullCache):  # not cached on disk: nothing to share
            return original(self, sig)
        args, _ = sigutils.normalize_signature(sig)
        if self.overloads.get(tuple(args)) is not None:  # compiled or loaded already: no lock
            return original(self, sig)
        # numba's process-wide compiler lock first (re-entrant; numba takes it to compile anyway): threads
        # of one process queue there, and only then for the file lock, so a thread holding a file lock never
        # waits for a thread of its own process
        with global_compiler_lock:
            return locked(self, sig)

    def locked(self, sig):
        try:
            path = _lock_file(self)
            fd = None if path in _held else os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
        except OSError:  # no writable temporary folder: compile as usual
            return original(self, sig)
        if fd is None:  # this process holds it already (a recursive compile)
            _held[path] += 1
            try:
                return original(self, sig)
            finally:
                _held[path] -= 1
        try:
            deadline = time.monotonic() + WAIT
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        break  # compile without the lock rather than wait longer
                    time.sleep(0.02)
            _held[path] = 1
            try:
                return original(self, sig)  # loads from the cache what another process compiled meanwhile
            finally:
                del _held[path]
        finally:
            os.close(fd)  # releases the lock

    compile._dpmo_once = True
    Dispatcher.compile = compile
    return True
