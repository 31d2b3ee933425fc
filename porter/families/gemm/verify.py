"""gemm's verify hooks (porter.families.hooks(family, "verify"))."""


def reference_slice(params: dict, case: dict, res):
    """A float64 reference of a large GEMM costs seconds and tens of GB: check a slice of the output (whole rows, so
    every reduction is complete) against the reference of the same slice (porter.verify.perf)."""
    if params.get("layout", "NN")[0] == "N" and case["shape"]["M"] > 512:
        sub = dict(case, A=case["A"][:512], _slice="rows 0-511")
        if "C0" in case:
            sub["C0"] = case["C0"][:512]
        return sub, res[:512]
    return case, res
