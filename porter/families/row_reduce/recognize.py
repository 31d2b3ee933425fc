"""row_reduce: a reduction over each row; a predicate count (`c += x > t`) counts the elements that pass against
a run-time threshold."""

from __future__ import annotations

from porter.convert.recognize import Candidate, KernelReading, scored


def candidate(k: KernelReading) -> Candidate:
    f, inputs, outputs = k.f, k.inputs, k.outputs
    kinds = {kind for kind, _ in f.accumulations}
    op = "max" if "max" in kinds and "sum" not in kinds else ("mean" if f.divisions_by_int else "sum")
    counts = {(c, t) for c, root, t in f.counted if root in inputs}
    count_map: list[tuple[str, str]] = []
    if len(counts) == 1:
        (cmp, threshold), = counts
        op = {">": "count_gt", ">=": "count_ge", "<": "count_lt", "<=": "count_le"}[cmp]
        count_map = [("threshold", threshold)]
    out_type = f.pointers.get(outputs[0], "") if len(outputs) == 1 else ""
    return scored("row_reduce", {"a reduction (accumulation, shuffles or shared memory)": k.reduces or bool(counts),
                                 "one input and one output": len(inputs) == 1 and len(outputs) == 1},
                  {"an exponential": k.has_exp, "square roots": k.has_rsqrt, "a matrix product": bool(f.macs),
                   "comparisons with more than one threshold": len(counts) > 1},
                  {"dtype": k.dtype, "op": op, "out_dtype": {"int": "int32", "int32_t": "int32"}.get(out_type,
                                                                                                       out_type)},
                  k.row_map + count_map)
