"""One array type per argument of a compiled (numba) kernel, whatever the caller holds.

numba compiles a kernel once per distinct tuple of argument types, and an array's type includes its
dtype, its layout (C, F or neither) and whether it is read-only: a kernel called once with a caller's
array and once with a frozen attribute is compiled twice (about 0.2 to 1.5 s of CPU each, paid by every
process with an empty cache). :func:`kernel_input` gives the one type the kernels of this package are
compiled for: C-contiguous, of the dtype the kernel reads, read-only (a view: the caller's array keeps its
flags). It copies only when the dtype or the layout differs; the values are those of the input.
"""

from __future__ import annotations

import numpy as np

__all__ = ["kernel_input"]


def kernel_input(a, dtype) -> np.ndarray:
    """``a`` as a read-only C-contiguous array of ``dtype`` (a view when it is one already). O(1) or a copy.

    Examples
    --------
    >>> import numpy as np
    >>> from dpmo._kernel_args import kernel_input
    >>> x = np.arange(6, dtype=np.int32).reshape(2, 3)
    >>> v = kernel_input(x, np.int32)
    >>> v.flags.c_contiguous, v.flags.writeable, np.shares_memory(v, x), x.flags.writeable
    (True, False, True, True)
    >>> kernel_input(x.T, np.float64).tolist()  # F order and another dtype: a C copy
    [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    """
    out = np.asarray(a, dtype=dtype, order="C").view()
    out.flags.writeable = False
    return out
