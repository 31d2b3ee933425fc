"""transpose: every store writes a loaded value unchanged, at an index that swaps rows and columns."""

from __future__ import annotations

from porter.convert.recognize import Candidate, KernelReading, scored


def candidate(k: KernelReading) -> Candidate:
    f, (pure_copy, swapped) = k.f, k.copy_shape
    return scored("transpose", {"the output is a loaded value, unchanged": pure_copy,
                                "output and input indices differ (rows and columns swapped)": swapped},
                  {"arithmetic on the value": not pure_copy and bool(k.outputs),
                   "a reduction": bool(f.shuffles or f.accumulations)},
                  {"dtype": k.dtype}, k.row_map)
