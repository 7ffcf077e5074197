"""How the statistics library compiles its few loops (numba): strict IEEE, cached, GIL released.

numba's default arithmetic is strict (no fast-math, no fused multiply-adds), so a compiled loop
doing the same operations in the same order as numpy or the interpreter gives the same bits; the
modules that use this say which operations they do and test them against the plain versions.
Compiled once per machine and cached beside the module (or in numba's user cache when the
package directory is read-only; with neither writable, as in a read-only image without a home,
compiled once per process instead). The GIL is released, so the bootstrap's fit threads run
compiled loops side by side. Modules that use this are imported only where their work runs, so
the rest of the library does not pay numba's import.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numba

Function = TypeVar("Function", bound=Callable[..., object])


def compiled(function: Function) -> Function:
    try:
        return numba.njit(cache=True, nogil=True)(function)  # type: ignore[no-any-return]
    except RuntimeError:  # numba found no writable place for its cache
        return numba.njit(nogil=True)(function)  # type: ignore[no-any-return]
