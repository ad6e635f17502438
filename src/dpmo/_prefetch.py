"""A software prefetch hint for compiled kernels whose memory accesses are random and known ahead.

``prefetch(a, i)`` asks the CPU to bring the cache line of ``a[i]`` closer (LLVM's ``llvm.prefetch``:
a read, high temporal locality, data cache). It is only a hint: LLVM's language reference states that
prefetches have no effect on the behaviour of the program, only on its performance, so it changes no value
and no result, only when memory is read. (The kernels here only ask for elements inside their arrays.)
Kernels that walk a large array in an order decided by another array (the forward triangle count, the
graph's records) issue it a few steps ahead, so that several cache misses overlap instead of following
each other (at 10^7 nodes the arrays are ten times the last-level cache).

If the installed numba/llvmlite cannot compile the hint, :data:`prefetch` is a compiled no-op (checked
once, at import): the kernels are then slower on large inputs, never different.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir
from numba.core import types
from numba.extending import intrinsic

__all__ = ["prefetch", "PREFETCH_COMPILED"]


@intrinsic
def _prefetch_hint(typingctx, array, index):
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        aryty, _ = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        # the address only: no bounds check, no load
        ptr = builder.gep(ary.data, [args[1]])
        byte_ptr = ir.IntType(8).as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [byte_ptr, ir.IntType(32), ir.IntType(32), ir.IntType(32)])
        fn = builder.module.declare_intrinsic("llvm.prefetch", [byte_ptr], fnty)
        i32 = ir.IntType(32)
        # read (0), high temporal locality (3), data cache (1)
        builder.call(fn, [builder.bitcast(ptr, byte_ptr), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


@numba.njit(cache=True, nogil=True, inline="always")
def _with_hint(a, i):  # pragma: no cover - compiled
    _prefetch_hint(a, i)


@numba.njit(cache=True, nogil=True, inline="always")
def _no_hint(a, i):  # pragma: no cover - compiled
    pass


def _probe() -> bool:
    try:
        _with_hint(np.zeros(8, np.int32), 3)
        _with_hint(np.zeros(8, np.int64), 3)
    except Exception:  # noqa: BLE001 - any failure to compile the hint: fall back to the no-op
        return False
    return True


#: Whether the hint compiled on this installation (False: :data:`prefetch` does nothing).
PREFETCH_COMPILED: bool = _probe()

#: ``prefetch(a, i)`` inside compiled code: a read hint for ``a[i]`` (see the module notes).
prefetch = _with_hint if PREFETCH_COMPILED else _no_hint
