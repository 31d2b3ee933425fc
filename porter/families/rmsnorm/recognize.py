"""rmsnorm: a sum of squares and a (reciprocal) square root over the row, a weight vector, an eps."""

from __future__ import annotations

from porter.convert.recognize import EPS_FOUND, Candidate, KernelReading, positional, scored


def candidate(k: KernelReading) -> Candidate:
    f, (eps_params, eps_map) = k.f, k.eps
    return scored("rmsnorm", {"a (reciprocal) square root": k.has_rsqrt, "a sum of squares (x * x)": f.squares > 0,
                              "a reduction over the row": k.reduces, "a weight vector": len(k.gamma_beta) >= 1,
                              EPS_FOUND: eps_params is not None},
                  {"an exponential": k.has_exp, "mean subtraction ((x - mean)^2)": f.sub_then_square,
                   "a matrix product": len(f.macs) >= 2},
                  {"dtype": k.dtype, **(eps_params or {})}, k.row_map + positional(("weight",), k.gamma_beta)
                  + eps_map)
