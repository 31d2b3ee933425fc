"""gemm (and batched_gemm, its blockIdx.z variant): a multiply-accumulate of two different operands into an
output; layout, alpha/beta and batch strides read from the indexing."""

from __future__ import annotations

from porter.convert.recognize import Candidate, Features, KernelReading, base_name, index_params, scored
from porter.fact_queries import strip


def candidate_of(k: KernelReading) -> Candidate:
    """The GEMM candidate, as gemm's when the kernel has no batch index (blockIdx.z), else as batched_gemm's."""
    f, outputs, dtype = k.f, k.outputs, k.dtype
    distinct_macs = {(a, b) for a, b, _ in f.macs}
    mac_pair = next(iter(sorted(distinct_macs)), ("", ""))
    gemm_map, layout, ab = _gemm_args(f, mac_pair, outputs)
    gemm_needs = {"a multiply-accumulate of two loaded operands (acc += a[..] * b[..])": bool(f.macs),
                  "an output written from the accumulator": bool(outputs),
                  "at least two input operands": len(f.pointers) >= 3}
    gemm_forbids = {"exponentials (softmax-like)": k.has_exp, "square roots (normalization-like)": k.has_rsqrt}
    batched = f.uses_block_z
    gemm_params: dict[str, object] = {"dtype": dtype, "layout": layout, "epilogue": "alpha_beta" if ab else "overwrite"}
    if batched:
        strides = _batch_strides(f, gemm_map[:3])
        if any(s for _, s in strides):     # a stride not found stays unbound: a refusal, not a guess
            gemm_map += strides
            gemm_params["strides"] = True
    return scored("batched_gemm" if batched else "gemm", gemm_needs, gemm_forbids, gemm_params, gemm_map)


def candidate(k: KernelReading) -> Candidate | None:
    return None if k.f.uses_block_z else candidate_of(k)


def _gemm_args(f: Features, pair: tuple[str, str], outputs: list[str]) -> tuple[list[tuple[str, str]], str, bool]:
    a, b = pair
    c = outputs[0] if outputs else ""
    # through shared memory the MAC reads tiles: map tiles back to the globals that filled them
    ptrs = [p for p in f.pointers if p != c]
    if a not in f.pointers or b not in f.pointers:
        a, b = (ptrs + ["", ""])[:2]
    arg_map = [("A", a), ("B", b), ("C", c)]
    n_param = next(iter(index_params(f.stores[c][0][0], f.ints)), "") if c in f.stores and f.stores[c] else ""
    k_param = ""
    for loop in f.loops:
        cond = loop.children[1] if len(loop.children) == 4 else None
        if cond is not None and cond.kind == "binop" and cond.op in ("<", "<="):
            refs = [n.op for n in cond.children[1].walk() if n.kind == "ref" and n.op in f.ints]
            if refs and refs[0] != n_param:
                k_param = refs[0]
                break
    m_param = next((p for p in f.ints if p not in (n_param, k_param)), "")
    arg_map += [("M", m_param), ("N", n_param), ("K", k_param)]
    a_strides = [s for idx in f.loads.get(a, []) for s in index_params(idx, f.ints)]
    b_strides = [s for idx in f.loads.get(b, []) for s in index_params(idx, f.ints)]
    layout = ("T" if m_param and m_param in a_strides else "N") + ("T" if k_param and k_param in b_strides else "N")
    alpha, beta = _alpha_beta(f, c)
    ab = bool(alpha and beta)
    if ab:
        arg_map += [("alpha", alpha), ("beta", beta)]
    return arg_map, layout, ab


def _alpha_beta(f: Features, c: str) -> tuple[str, str]:
    """(alpha, beta) by what they multiply: beta scales the old C (a load of C), alpha the product."""
    beta = alpha = ""
    for _, value in f.stores.get(c, []):
        for n in value.walk():
            if n.kind == "binop" and n.op == "*" and len(n.children) == 2:
                for i, child in enumerate(n.children):
                    child = strip(child)
                    other = n.children[1 - i]
                    if child.kind == "ref" and child.op in f.floats:
                        reads_c = any(m.kind == "index" and base_name(m) == c for m in other.walk()) or \
                            any(m.kind == "ref" and m.op == c for m in other.walk())
                        if reads_c:
                            beta = beta or child.op
                        else:
                            alpha = alpha or child.op
    return (alpha, beta) if alpha != beta else ("", "")


def _batch_strides(f: Features, operands: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """strideA/B/C: the integer parameter each operand's address multiplies the batch index (blockIdx.z) by."""
    out = []
    for name, root in operands:
        offsets = list(f.loads.get(root, [])) + [i for i, _ in f.stores.get(root, [])]
        stride = ""
        for off in offsets:
            for n in off.walk():
                if n.kind == "binop" and n.op == "*" and len(n.children) == 2:
                    for i, child in enumerate(n.children):
                        child = strip(child)
                        if child.kind == "ref" and child.op in f.ints and any(
                                m.kind == "member" and m.op == "z" for m in n.children[1 - i].walk()):
                            stride = stride or child.op
        out.append((f"stride{name}", stride))
    return out
