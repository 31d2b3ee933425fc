"""layernorm: a mean, a centred square and a (reciprocal) square root over the row, with an eps."""

from __future__ import annotations

from porter.convert.recognize import EPS_FOUND, Candidate, KernelReading, positional, scored


def candidate(k: KernelReading) -> Candidate:
    f, reduces, (eps_params, eps_map) = k.f, k.reduces, k.eps
    return scored("layernorm", {"a (reciprocal) square root": k.has_rsqrt, "a mean (sum divided by the row length)":
                                f.divisions_by_int > 0 or reduces, "a centred square ((x - mean)^2)":
                                f.sub_then_square, "a reduction over the row": reduces,
                                EPS_FOUND: eps_params is not None},
                  {"an exponential": k.has_exp, "a matrix product": len(f.macs) >= 2},
                  {"dtype": k.dtype, "affine": len(k.gamma_beta) >= 2, **(eps_params or {})},
                  k.row_map + positional(("gamma", "beta"), k.gamma_beta) + eps_map)
