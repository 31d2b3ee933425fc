"""attention: two matrix products around an exponential; causal from a masked comparison of loop variables."""

from __future__ import annotations

import re
from dataclasses import replace

from porter.convert.binding import Refusal, Resolver, Unresolved, host_to_kernel, launch_of
from porter.convert.recognize import Candidate, Features, KernelReading, Recognition, positional, scored
from porter.facts import FileFacts


def candidate(k: KernelReading) -> Candidate:
    f, facts, dtype = k.f, k.facts, k.dtype
    att_needs = {"two products accumulated (Q.K^T and P.V)": len(f.macs) + f.half_macs >= 2 and bool(f.macs),
                 "an exponential (softmax)": k.has_exp,
                 "a running maximum (max subtraction)": k.has_max or f.neg_inf,
                 "four tensors (Q, K, V, O)": len(f.pointers) >= 4}
    causal = f.compare_loop_vars and f.neg_inf
    head_dim = next((int(v) for name, v in f.template_args if re.search(r"(?i)dim|head", name) and v.isdigit()), None) \
        or _const_ints(facts, (64, 128, 256))
    return scored("attention", att_needs, {"square roots (normalization-like)": k.has_rsqrt},
                  {"dtype": dtype, "causal": causal, "head_dim": head_dim or 128},
                  # sizes are passed in too many conventions (B*H fused, separate seq lengths) to map safely
                  positional(("Q", "K", "V", "O"), [p for p in f.pointers]) + positional(("scale",), f.floats)
                  + [(size, "") for size in ("batch", "heads", "seq_q", "seq_kv")], _attention_refusal(f, dtype))


def _attention_refusal(f: Features, dtype: str) -> str:
    """Why the attention template cannot take this kernel's sizes: it has batch, heads, seq_q and seq_kv as
    separate run-time sizes and head_dim fixed; porter does not split a fused size or equate two lengths."""
    if len(f.ints) == 1:
        return (f"its only size argument '{f.ints[0]}' is both the query and the key sequence length (seq_q = "
                f"seq_kv) and batch x heads come from the grid; the attention template takes batch, heads, seq_q "
                f"and seq_kv separately, and porter neither fixes seq_kv = seq_q nor guesses batch and heads")
    return ""    # the sizes are read from the launch grid when the arguments are bound (bind, below)


def loop_bounds(f: Features) -> set[str]:
    """Integer parameters that bound a for loop (`j < Sk`)."""
    return {n.op for loop in f.loops if len(loop.children) == 4 for n in loop.children[1].walk()
            if n.kind == "ref" and n.op in f.ints}


def _const_ints(facts: FileFacts, allowed: tuple[int, ...]) -> int | None:
    for m in facts.macros:
        if m.value in allowed and re.search(r"(?i)dim|head|d_?k|hd", m.name):
            return int(m.value)  # type: ignore[arg-type]
    return None


def bind(rec: Recognition, cand: Candidate) -> Candidate:
    """Convert's hook for the arguments the kernel's body does not show: batch, heads, seq_q and seq_kv, by
    evidence: the launch's grid is (f(seq_q), heads, batch) (grid z and y each exactly one size argument, grid x
    computed from one other), and seq_kv is the remaining size, which must bound the key loop. Anything else is a
    refusal with the reason."""
    if cand.refusal:
        raise Refusal(cand.refusal)
    f = rec.features
    reason = (f"its size arguments ({', '.join(f.ints)}) do not show batch, heads, seq_q and seq_kv separately "
              f"(a fused batch x heads, a run-time head_dim or a grid that is not (f(seq_q), heads, batch)); the "
              f"attention template takes those four and a head_dim fixed at conversion")
    launch = launch_of(rec.file_view.facts, rec.view)
    host = next((v for v in rec.file_view.views if launch is not None and v.fn.usr == launch.caller), None)
    if launch is None or host is None or len(f.ints) != 4:
        raise Refusal(reason)
    symbols = {p: p for p in f.ints}
    resolver = Resolver(host, host_to_kernel(launch, rec.view), symbols, set(f.ints), {})
    try:
        dims = [sorted(_symbols_in(d)) for d in resolver.dim3(launch.grid)]
    except Unresolved:
        raise Refusal(reason) from None
    x_dim, heads, batch = dims
    if len(x_dim) != 1 or len(heads) != 1 or len(batch) != 1 or len({*x_dim, *heads, *batch}) != 3:
        raise Refusal(reason)
    rest = [p for p in f.ints if p not in (*x_dim, *heads, *batch)]
    if len(rest) != 1 or rest[0] not in loop_bounds(f):
        raise Refusal(reason)
    sizes = {"batch": batch[0], "heads": heads[0], "seq_q": x_dim[0], "seq_kv": rest[0]}
    return replace(cand, arg_map=tuple((t, sizes.get(t, o)) for t, o in cand.arg_map))


def _symbols_in(expr: object) -> set[str]:
    if isinstance(expr, list):
        return set().union(*(_symbols_in(e) for e in expr[1:]))
    return {expr} if isinstance(expr, str) else set()
