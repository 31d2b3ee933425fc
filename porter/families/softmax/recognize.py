"""softmax: exp, max, normalization by a sum; of x * scale + mask where the stored value shows them."""

from __future__ import annotations

from porter.convert.recognize import Candidate, Features, KernelReading, roots_in, scored
from porter.fact_queries import strip
from porter.facts import Node


def candidate(k: KernelReading) -> Candidate:
    f, row_map = k.f, k.row_map
    sm_params, sm_x, sm_extra = _softmax_scores(f, k.inputs, k.outputs)
    sm_map = [("x", sm_x or row_map[0][1]), *sm_extra[:1], *row_map[1:], *sm_extra[1:]]
    return scored("softmax", {"an exponential": k.has_exp, "a maximum (max subtraction)": k.has_max or f.neg_inf,
                              "a reduction over the row": k.reduces, "one input and one output":
                              len(k.inputs) >= 1 and len(k.outputs) == 1},
                  {"a matrix product (multiply-accumulate of loaded operands)": bool(f.macs),
                   "square roots": k.has_rsqrt},
                  {"dtype": k.dtype, **sm_params}, sm_map)


def _softmax_scores(f: Features, inputs: list[str], outputs: list[str]) -> tuple[dict[str, object], str,
                                                                                list[tuple[str, str]]]:
    """(scale/mask params, the input softmax is taken of, [("mask", p)] + [("scale", p)]) from the stored value:
    a run-time float multiplying a load of one input is the scale, a second input added to it, read at the same
    [row, col] position, is an additive mask. Anything else stays unbound (a refusal, not a guess)."""
    params: dict[str, object] = {"scale": False, "mask": False}
    if len(outputs) != 1 or not 1 <= len(inputs) <= 2:
        return params, "", []
    values = [v for _, v in f.stores.get(outputs[0], [])]
    x, scale = "", ""
    for value in values:
        for n in value.walk():
            if n.kind == "binop" and n.op == "*" and len(n.children) == 2 and len(f.floats) == 1:
                for i, c in enumerate(n.children):
                    roots = roots_in(n.children[1 - i], inputs)
                    if strip(c).kind == "ref" and strip(c).op == f.floats[0] and len(roots) == 1:
                        x, scale = roots.pop(), f.floats[0]
    mask = ""
    others = [p for p in inputs if p != x] if x else []
    if len(inputs) == 2 and len(others) <= 1:
        for value in values:
            for n in value.walk():
                if n.kind == "binop" and n.op == "+" and len(n.children) == 2:
                    a, b = (roots_in(c, inputs) for c in n.children)
                    for one, other in ((a, b), (b, a)):
                        if len(one) == 1 and len(other) == 1 and one != other and (not x or x in other):
                            cand_mask = next(iter(one))
                            if _same_position(f, cand_mask, next(iter(other))):
                                mask, x = cand_mask, next(iter(other))
    extra = ([("mask", mask)] if mask else []) + ([("scale", scale)] if scale else [])
    return {"scale": bool(scale), "mask": bool(mask)}, x, extra


def _same_position(f: Features, a: str, b: str) -> bool:
    """Some load of `a` reads the element some load of `b` reads (the same sum of index products)."""
    return any(_terms(i) == _terms(j) for i in f.loads.get(a, []) for j in f.loads.get(b, []))


def _terms(node: Node) -> list[tuple[str, ...]]:
    """An index expression as sorted sum-of-products terms (`row * N + j` == `j + N * row`)."""
    node = strip(node)
    if node.kind == "binop" and node.op == "+" and len(node.children) >= 2:
        return sorted(t for c in node.children for t in _terms(c))
    if node.kind == "binop" and node.op == "*" and len(node.children) == 2:
        return [tuple(sorted(x for c in node.children for t in _terms(c) for x in t))]
    if node.kind == "member" and node.children:
        return [(f"{strip(node.children[0]).op}.{node.op}",)]
    return [(str(node.value) if node.value is not None else f"{node.kind}:{node.op}:{node.ref}",)]
