"""batched_gemm's verify hooks (porter.families.hooks(family, "verify"))."""


def reference_slice(params: dict, case: dict, res):
    """A float64 reference of a large batched GEMM costs seconds and tens of GB: check a slice of the output (whole
    rows of the first two batches, so every reduction is complete) against the reference of the same slice
    (porter.verify.perf)."""
    if params.get("layout", "NN")[0] == "N" and case["shape"]["M"] > 512:
        if case["A"].dim() != 3:  # flat strided batches (strideA/B/C): no slice of rows to take, check it all
            return case, res
        sub = dict(case, A=case["A"][:2, :512], B=case["B"][:2], _slice="batches 0-1, rows 0-511")
        if "C0" in case:
            sub["C0"] = case["C0"][:2, :512]
        return sub, res[:2, :512]
    return case, res
