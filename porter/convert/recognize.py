"""Recognize what a kernel computes from its Facts (the computation, not the names) and map it to a template
family with parameters and an argument mapping.

The recognizer reads a kernel's IR (and the device functions it calls) into a small set of features: which
pointer parameters are read and written, multiply-accumulate patterns, reductions, the math functions used,
how output and input indices relate. Each family states which features it needs and which it cannot have; the
best-scoring family wins, and a near tie is reported instead of guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Iterable

from porter.facts import FileFacts, Node, Param
from porter.ir import SHUFFLES, FileView, FunctionView, strip

EXP = {"expf", "__expf", "exp", "exp2f", "__exp2f", "exp2", "hexp", "h2exp"}
RSQRT = {"rsqrtf", "rsqrt", "__frsqrt_rn", "hrsqrt"}
SQRT = {"sqrtf", "sqrt", "__fsqrt_rn", "hsqrt"}
MAX = {"fmaxf", "fmax", "max", "__hmax"}
TANH = {"tanhf", "tanh"}
ERF = {"erff", "erf"}
ELEM_DTYPES = {"float": "float32", "__half": "float16", "half": "float16", "__hip_bfloat16": "bfloat16",
               "hip_bfloat16": "bfloat16", "__nv_bfloat16": "bfloat16", "double": "float64"}
FAMILIES = ("attention", "batched_gemm", "gemm", "softmax", "layernorm", "rmsnorm", "row_reduce", "transpose",
            "elementwise")


class UnknownKernel(Exception):
    """The file has no (defined) kernel of that name or instantiation."""


@dataclass(frozen=True)
class Candidate:
    family: str
    score: float                       # 0..1: share of the family's required facts present
    params: dict[str, object]
    arg_map: tuple[tuple[str, str], ...]   # (template argument, original kernel argument or expression)
    evidence: tuple[str, ...]          # facts that matched
    missing: tuple[str, ...]           # facts the family needs that were not found
    conflicts: tuple[str, ...] = ()    # facts that rule the family out
    notes: tuple[str, ...] = ()        # what the conversion cannot carry over, said to the user


@dataclass
class Features:
    params: tuple[Param, ...]
    pointers: dict[str, str] = field(default_factory=dict)      # param -> element dtype name
    ints: list[str] = field(default_factory=list)
    floats: list[str] = field(default_factory=list)
    loads: dict[str, list[Node]] = field(default_factory=dict)   # root param -> index expressions
    stores: dict[str, list[tuple[Node, Node]]] = field(default_factory=dict)   # root -> (index, value)
    macs: list[tuple[str, str, Node]] = field(default_factory=list)   # (root a, root b, node)
    half_macs: int = 0
    calls: set[str] = field(default_factory=set)
    shuffles: int = 0
    loops: list[Node] = field(default_factory=list)
    shared: int = 0
    shared_reduce: bool = False     # a shared array updated from itself (tree reduction)
    moduli: list[str] = field(default_factory=list)   # int params used as `i % P` (row length of a flat index)
    uses_block_z: bool = False
    accumulations: list[tuple[str, str]] = field(default_factory=list)   # (op, root) of `acc op= x[..]`
    squares: int = 0
    sub_then_square: bool = False
    divisions_by_int: int = 0
    compare_loop_vars: bool = False
    neg_inf: bool = False
    template_args: tuple[tuple[str, str], ...] = ()


def _address(view: FunctionView, node: Node, params: set[str], depth: int = 0) -> tuple[str, list[Node]]:
    """(pointer parameter an address is based on ('' if none), the offset expressions added on the way:
    subscripts and pointer arithmetic like `x + row * N`)."""
    node = strip(node)
    if depth > 8:
        return "", []
    if node.kind == "ref":
        if node.op in params:
            return node.op, []
        d = view.definition(node.ref)
        return _address(view, d, params, depth + 1) if d is not None else ("", [])
    if node.kind == "binop" and node.op in ("+", "-") and len(node.children) == 2:
        for i, child in enumerate(node.children):
            root, offs = _address(view, child, params, depth + 1)
            if root:
                return root, offs + [node.children[1 - i]]
    if node.kind == "unop" and node.op == "&" and node.children:
        return _address(view, node.children[0], params, depth + 1)
    if node.kind == "index" and len(node.children) == 2:
        root, offs = _address(view, node.children[0], params, depth + 1)
        return root, offs + [node.children[1]]
    return "", []


def _root(view: FunctionView, node: Node, params: set[str]) -> str:
    return _address(view, node, params)[0]


def _offset(view: FunctionView, parts: list[Node]) -> Node:
    """All offsets of an address as one expression (their sum), local variables replaced by their
    definitions so that strides like `idx = row * N + col` show."""
    node = parts[0] if len(parts) == 1 else Node("binop", op="+", children=tuple(parts))
    return _expand(view, node, 4)


def _expand(view: FunctionView, node: Node, depth: int) -> Node:
    node = strip(node)
    if depth <= 0:
        return node
    if node.kind == "ref" and len(view.defs.get(node.ref, [])) == 1:
        return _expand(view, view.defs[node.ref][0], depth - 1)
    if not node.children:
        return node
    return Node(node.kind, op=node.op, type=node.type, value=node.value, ref=node.ref, loc=node.loc,
                children=tuple(_expand(view, c, depth) for c in node.children))


def _shared_name(view: FunctionView, node: Node) -> str:
    node = strip(node)
    while node.kind == "index" and node.children:
        node = strip(node.children[0])
    decl = view.decls.get(node.ref) if node.kind == "ref" else None
    return node.op if decl is not None and decl.macro == "shared" else ""


def _elem_dtype(type_spelling: str) -> str:
    base = re.sub(r"\b(const|volatile|__restrict__|__restrict|restrict)\b|\*", " ", type_spelling).split()
    return ELEM_DTYPES.get(" ".join(base), " ".join(base))


def features(fv: FileView, kernel: FunctionView) -> Features:
    fn = kernel.fn
    f = Features(params=fn.params, template_args=fn.template_args)
    for p in fn.params:
        if "*" in p.type:
            f.pointers[p.name] = _elem_dtype(p.type)
        elif re.search(r"\b(float|double|__half|half)\b", p.type):
            f.floats.append(p.name)
        elif re.search(r"\b(int|long|size_t|unsigned|int64_t|int32_t)\b", p.type):
            f.ints.append(p.name)
    views = [kernel, *fv.callees(kernel)]
    for view in views:
        # a device helper's own pointer parameters are roots too (dot(q, k) reads two operands)
        names = set(f.pointers) | {p.name for p in view.fn.params if "*" in p.type}
        written: set[int] = set()
        for node in view.nodes():
            if node.kind == "binop" and node.op in ("=", "+=", "-=", "*=", "/=") and len(node.children) == 2:
                lhs, rhs = strip(node.children[0]), node.children[1]
                written.add(id(lhs))
                sname = _shared_name(view, lhs) if lhs.kind == "index" else ""
                if sname and any(n.kind == "ref" and n.op == sname for n in rhs.walk()) or (
                        sname and node.op in ("+=", "-=")):
                    f.shared_reduce = True
                root, offs = _address(view, lhs, names) if lhs.kind in ("index", "unop") else ("", [])
                if root and offs:
                    f.stores.setdefault(root, []).append((_offset(view, offs), rhs))
                if node.op == "+=" or (node.op == "=" and strip(rhs).kind == "binop" and strip(rhs).op == "+"):
                    _mac(view, node, rhs, names, f)
                if lhs.kind == "ref" and not _address(view, lhs, names)[0]:
                    _accumulation(view, node, lhs, rhs, names, f)
            elif node.kind == "call":
                f.calls.add(node.op)
                if node.op in SHUFFLES:
                    f.shuffles += 1
                if node.op in ("fmaf", "fma", "__fmaf_rn") and len(node.children) == 3:
                    a, b = (_load_root(view, c, names) or _shared_name(view, c) for c in node.children[:2])
                    if a and b:
                        f.macs.append((a, b, node))
            elif node.kind == "for":
                f.loops.append(node)
            elif node.kind == "decl" and node.macro == "shared":
                f.shared += 1
            elif node.kind == "member" and node.op == "z" and node.children and strip(node.children[0]).op == "blockIdx":
                f.uses_block_z = True
            elif node.kind == "binop" and node.op == "*" and len(node.children) == 2:
                a, b = strip(node.children[0]), strip(node.children[1])
                if _same_expr(a, b):
                    f.squares += 1
                    d = view.definition(a.ref) if a.kind == "ref" else a
                    if d is not None and strip(d).kind == "binop" and strip(d).op == "-":
                        f.sub_then_square = True
            elif node.kind == "binop" and node.op in ("/", "/=", "%") and len(node.children) == 2:
                divisor = strip(node.children[1])
                if divisor.kind == "ref" and divisor.op in f.ints:
                    if node.op == "%":
                        f.moduli.append(divisor.op)
                    elif not view.depends_on_thread(node.children[0]):
                        f.divisions_by_int += 1
            elif node.kind == "unop" and node.op == "-" and node.children and strip(node.children[0]).kind == "call" \
                    and strip(node.children[0]).op in ("__builtin_inff", "INFINITY"):
                f.neg_inf = True
            if node.kind in ("binop",) and node.op in (">", "<", ">=", "<=") and len(node.children) == 2:
                if all(strip(c).kind == "ref" and view.definition(strip(c).ref) is not None
                       for c in node.children) and view.depends_on_thread(node):
                    f.compare_loop_vars = True
        for node in view.nodes():
            if node.kind == "index" and id(node) not in written:
                root, offs = _address(view, node, names)
                if root and offs:
                    f.loads.setdefault(root, []).append(_offset(view, offs))
    f.neg_inf = f.neg_inf or any("INFINITY" in n or "inf" in n for n in f.calls if n.startswith("__builtin"))
    return f


def _same_expr(a: Node, b: Node) -> bool:
    if a.kind != b.kind or a.op != b.op or a.ref != b.ref or a.value != b.value or len(a.children) != len(b.children):
        return False
    return all(_same_expr(strip(x), strip(y)) for x, y in zip(a.children, b.children))


def _load_root(view: FunctionView, node: Node, names: set[str], depth: int = 0) -> str:
    node = strip(node)
    if node.kind == "index":
        found = _root(view, node, names) or _shared_name(view, node)
        base = strip(node)
        while base.kind == "index" and base.children:
            base = strip(base.children[0])
        if not found and base.kind == "ref" and depth < 4:
            # a local (register) array: where was it filled from?
            for n in view.nodes():
                if n.kind == "binop" and n.op == "=" and len(n.children) == 2:
                    lhs = strip(n.children[0])
                    while lhs.kind == "index" and lhs.children:
                        lhs = strip(lhs.children[0])
                    if lhs.kind == "ref" and lhs.ref == base.ref and lhs is not base:
                        found = _contains_load(view, n.children[1], names)
                        if found:
                            break
        return found
    if node.kind == "ref" and depth < 4:
        d = view.definition(node.ref)
        if d is not None:
            return _load_root(view, d, names, depth + 1)
    if node.kind in ("call",) and node.op in ("__half2float", "__bfloat162float", "float") and node.children:
        return _load_root(view, node.children[0], names, depth + 1)
    return ""


def _contains_load(view: FunctionView, node: Node, names: set[str]) -> str:
    for n in node.walk():
        if n.kind == "index":
            r = _root(view, n, names) or _shared_name(view, n)
            if r:
                return r
        if n.kind == "ref" and n.op not in names:
            d = view.definition(n.ref)
            if d is not None and strip(d).kind == "index":
                r = _root(view, strip(d), names) or _shared_name(view, strip(d))
                if r:
                    return r
    return ""


def _accumulation(view: FunctionView, node: Node, lhs: Node, rhs: Node, names: set[str], f: Features) -> None:
    """`acc += <expr of a load>` or `acc = g(acc, <expr of a load>)`: a reduction into a scalar."""
    src = _contains_load(view, rhs, names)
    if not src:
        return
    if node.op in ("+=", "-="):
        f.accumulations.append(("sum", src))
    elif node.op == "=" and any(n.kind == "ref" and n.ref == lhs.ref for n in rhs.walk()):
        r = strip(rhs)
        kind = "max" if (r.kind == "call" and r.op in MAX) or r.kind == "cond" else "sum"
        f.accumulations.append((kind, src))


def _mac(view: FunctionView, node: Node, rhs: Node, names: set[str], f: Features) -> None:
    """`acc += a[..] * b[..]` (or `acc = acc + a * b`) with a and b read from memory."""
    expr = strip(rhs)
    if node.op == "=" and expr.kind == "binop" and expr.op == "+":
        expr = next((strip(c) for c in expr.children if strip(c).kind == "binop" and strip(c).op == "*"), expr)
    if expr.kind != "binop" or expr.op != "*" or len(expr.children) != 2:
        return
    a, b = expr.children
    ra = _load_root(view, a, names) or _shared_name(view, a)
    rb = _load_root(view, b, names) or _shared_name(view, b)
    if ra and rb:
        f.macs.append((ra, rb, expr))
    elif ra or rb:
        f.half_macs += 1   # computed x loaded, e.g. P . V in attention


# ------------------------------------------------------------------------------------------------- families

def _candidates(f: Features, facts: FileFacts) -> list[Candidate]:
    out = []
    inputs = [p for p in f.pointers if p in f.loads and p not in f.stores]
    outputs = [p for p in f.pointers if p in f.stores]
    dtype = _dtype([f.pointers[p] for p in inputs] or list(f.pointers.values()))
    has_exp = bool(f.calls & EXP)
    has_rsqrt = bool(f.calls & (RSQRT | SQRT))
    has_max = bool(f.calls & MAX)
    reduces = bool(f.shuffles or f.accumulations or f.shared_reduce)
    distinct_macs = {(a, b) for a, b, _ in f.macs}

    def cand(family: str, needs: dict[str, bool], forbids: dict[str, bool], params: dict[str, object],
             arg_map: Iterable[tuple[str, str]]) -> None:
        present = [k for k, v in needs.items() if v]
        missing = [k for k, v in needs.items() if not v]
        conflicts = [k for k, v in forbids.items() if v]
        score = len(present) / max(len(needs), 1) - 0.5 * len(conflicts)
        out.append(Candidate(family, round(max(score, 0.0), 3), params, tuple(arg_map), tuple(present),
                             tuple(missing), tuple(conflicts)))

    # GEMM family: multiply-accumulate of two different operands into an output
    mac_pair = next(iter(sorted(distinct_macs)), ("", ""))
    gemm_map, layout, ab = _gemm_args(f, mac_pair, outputs)
    gemm_needs = {"a multiply-accumulate of two loaded operands (acc += a[..] * b[..])": bool(f.macs),
                  "an output written from the accumulator": bool(outputs),
                  "at least two input operands": len(f.pointers) >= 3}
    gemm_forbids = {"exponentials (softmax-like)": has_exp, "square roots (normalization-like)": has_rsqrt}
    batched = f.uses_block_z
    cand("batched_gemm" if batched else "gemm", gemm_needs, gemm_forbids,
         {"dtype": dtype, "layout": layout, "epilogue": "alpha_beta" if ab else "overwrite"}, gemm_map)

    # attention: two matrix products around an exponential
    att_needs = {"two products accumulated (Q.K^T and P.V)": len(f.macs) + f.half_macs >= 2 and bool(f.macs),
                 "an exponential (softmax)": has_exp,
                 "a running maximum (max subtraction)": has_max or f.neg_inf,
                 "four tensors (Q, K, V, O)": len(f.pointers) >= 4}
    causal = f.compare_loop_vars and f.neg_inf
    head_dim = next((int(v) for k, v in f.template_args if re.search(r"(?i)dim|head", k) and v.isdigit()), None) \
        or _const_ints(facts, (64, 128, 256))
    cand("attention", att_needs, {"square roots (normalization-like)": has_rsqrt},
         {"dtype": dtype, "causal": causal, "head_dim": head_dim or 128},
         # sizes are passed in too many conventions (B*H fused, separate seq lengths) to map safely
         _positional(("Q", "K", "V", "O"), [p for p in f.pointers]) + _positional(("scale",), f.floats)
         + [(size, "") for size in ("batch", "heads", "seq_q", "seq_kv")])

    row_map = _row_args(f, inputs, outputs)
    # softmax: exp, max, normalization by a sum
    cand("softmax", {"an exponential": has_exp, "a maximum (max subtraction)": has_max or f.neg_inf,
                     "a reduction over the row": reduces, "one input and one output": len(inputs) >= 1 and
                     len(outputs) == 1},
         {"a matrix product (multiply-accumulate of loaded operands)": bool(f.macs), "square roots": has_rsqrt},
         {"dtype": dtype}, row_map)

    # layernorm / rmsnorm
    gamma_beta = [p for p in inputs if p not in row_map_values(row_map)]
    cand("layernorm", {"a (reciprocal) square root": has_rsqrt, "a mean (sum divided by the row length)":
                       f.divisions_by_int > 0 or reduces, "a centred square ((x - mean)^2)": f.sub_then_square,
                       "a reduction over the row": reduces},
         {"an exponential": has_exp, "a matrix product": len(f.macs) >= 2},
         {"dtype": dtype, "affine": len(gamma_beta) >= 2, "eps": _eps(facts)},
         row_map + _positional(("gamma", "beta"), gamma_beta) + _positional(("eps",), f.floats))
    cand("rmsnorm", {"a (reciprocal) square root": has_rsqrt, "a sum of squares (x * x)": f.squares > 0,
                     "a reduction over the row": reduces, "a weight vector": len(gamma_beta) >= 1},
         {"an exponential": has_exp, "mean subtraction ((x - mean)^2)": f.sub_then_square,
          "a matrix product": len(f.macs) >= 2},
         {"dtype": dtype, "eps": _eps(facts)}, row_map + _positional(("weight",), gamma_beta))

    # row reduction
    kinds = {k for k, _ in f.accumulations}
    op = "max" if "max" in kinds and "sum" not in kinds else ("mean" if f.divisions_by_int else "sum")
    cand("row_reduce", {"a reduction (accumulation, shuffles or shared memory)": reduces,
                        "one input and one output": len(inputs) == 1 and len(outputs) == 1},
         {"an exponential": has_exp, "square roots": has_rsqrt, "a matrix product": bool(f.macs)},
         {"dtype": dtype, "op": op}, row_map)

    # transpose and elementwise: stores of loaded values, no reductions
    pure_copy, swapped = _copy_shape(f, inputs, outputs)
    cand("transpose", {"the output is a loaded value, unchanged": pure_copy,
                       "output and input indices differ (rows and columns swapped)": swapped},
         {"arithmetic on the value": not pure_copy and bool(outputs), "a reduction": bool(f.shuffles or
                                                                                         f.accumulations)},
         {"dtype": dtype}, row_map)
    act = _activation(f)
    bias = [p for p in inputs if p not in row_map_values(row_map)]
    cand("elementwise", {"one output element per thread from inputs at the same position": bool(outputs) and
                         not swapped and bool(inputs)},
         {"a reduction": bool(f.shuffles or f.accumulations or f.macs or f.shared_reduce),
          "square roots": has_rsqrt},
         {"dtype": dtype, "bias": bool(bias), "activation": act},
         row_map[:1] + _positional(("bias",), bias) + row_map[1:])
    return out


def row_map_values(arg_map: Iterable[tuple[str, str]]) -> set[str]:
    return {v for _, v in arg_map}


def _positional(names: tuple[str, ...], values: list[str]) -> list[tuple[str, str]]:
    return list(zip(names, values))


def _dtype(types: list[str]) -> str:
    for t in types:
        if t in ("float16", "bfloat16", "float32"):
            return t
    return "float32"


def _eps(facts: FileFacts) -> float:
    """A small float literal in the source (the usual eps), else the common default."""
    for line in facts.lines:
        for m in re.finditer(r"\b(\d+(?:\.\d*)?[eE]-\d+)f?\b", line):
            v = float(m.group(1))
            if 0 < v < 1e-2:
                return v
    return 1e-5


def _const_ints(facts: FileFacts, allowed: tuple[int, ...]) -> int | None:
    for m in facts.macros:
        if m.value in allowed and re.search(r"(?i)dim|head|d_?k|hd", m.name):
            return int(m.value)  # type: ignore[arg-type]
    return None


def _index_params(node: Node, ints: list[str]) -> list[str]:
    """Integer parameters an index expression multiplies by (row strides)."""
    out = []
    for n in node.walk():
        if n.kind == "binop" and n.op == "*" and len(n.children) == 2:
            for i, c in enumerate(n.children):
                c = strip(c)
                other = n.children[1 - i]
                # batch strides multiply the batch index (blockIdx.z), not a row
                batch = any(m.kind == "member" and m.op == "z" for m in other.walk())
                if c.kind == "ref" and c.op in ints and not batch:
                    out.append(c.op)
    return out


def _gemm_args(f: Features, pair: tuple[str, str], outputs: list[str]) -> tuple[list[tuple[str, str]], str, bool]:
    a, b = pair
    c = outputs[0] if outputs else ""
    # through shared memory the MAC reads tiles: map tiles back to the globals that filled them
    ptrs = [p for p in f.pointers if p != c]
    if a not in f.pointers or b not in f.pointers:
        a, b = (ptrs + ["", ""])[:2]
    arg_map = [("A", a), ("B", b), ("C", c)]
    n_param = next(iter(_index_params(f.stores[c][0][0], f.ints)), "") if c in f.stores and f.stores[c] else ""
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
    a_strides = [s for idx in f.loads.get(a, []) for s in _index_params(idx, f.ints)]
    b_strides = [s for idx in f.loads.get(b, []) for s in _index_params(idx, f.ints)]
    layout = ("T" if m_param and m_param in a_strides else "N") + ("T" if k_param and k_param in b_strides else "N")
    floats = f.floats
    ab = len(floats) >= 2
    if ab:
        arg_map += [("alpha", floats[0]), ("beta", floats[1])]
    return arg_map, layout, ab


def _row_args(f: Features, inputs: list[str], outputs: list[str]) -> list[tuple[str, str]]:
    x = inputs[0] if inputs else ""
    out = outputs[0] if outputs else ""
    strides = [s for idx in f.loads.get(x, []) for s in _index_params(idx, f.ints)]
    n_param = strides[0] if strides else (f.moduli[0] if f.moduli else next((p for p in f.ints), ""))
    m_param = next((p for p in f.ints if p != n_param), "")
    return [("x", x), ("out", out), ("M", m_param), ("N", n_param)]


def _copy_shape(f: Features, inputs: list[str], outputs: list[str]) -> tuple[bool, bool]:
    """(every store writes a loaded value unchanged, some store's index differs from its load's index)."""
    if not outputs:
        return False, False
    pure, swapped = True, False
    for out in outputs:
        for idx, value in f.stores[out]:
            v = strip(value)
            if v.kind != "index" and not (v.kind == "ref"):
                pure = False
                continue
            if v.kind == "index" and len(v.children) == 2 and not _same_expr(strip(v.children[1]), strip(idx)):
                swapped = True
            if v.kind == "index" and len(v.children) == 2 and any(n.kind == "ref" and n.op in ("threadIdx",)
                                                                   for n in v.walk()):
                swapped = swapped or not _same_expr(strip(v.children[1]), strip(idx))
    loads_idx = [i for x in inputs for i in f.loads.get(x, [])]
    store_idx = [i for o in outputs for i, _ in f.stores[o]]
    if loads_idx and store_idx and not any(_same_expr(strip(a), strip(b)) for a in loads_idx for b in store_idx):
        swapped = True
    return pure, swapped


def _activation(f: Features) -> str:
    if f.calls & ERF or f.calls & TANH:
        return "gelu_tanh" if f.calls & TANH else "gelu"
    if f.calls & EXP:
        return "silu"
    if f.calls & MAX:
        return "relu"
    return "none"


# ------------------------------------------------------------------------------------------------ interface

@dataclass(frozen=True)
class Recognition:
    kernel: str
    best: Candidate
    candidates: tuple[Candidate, ...]
    ambiguous: bool


THRESHOLD = 0.99     # every required fact must be present
TIE = 0.0            # candidates at the same score are a tie


def recognize(facts: FileFacts, kernel: str) -> Recognition:
    fv = FileView(facts)
    name, _, targs = kernel.partition("<")
    all_views = fv.kernel_by_name(name.strip())
    views = [v for v in fv.kernel_by_name(name.strip()) if not v.fn.is_template] or fv.kernel_by_name(name.strip())
    if targs:
        wanted = [a.strip() for a in targs.rstrip(">").split(",")]
        views = [v for v in views if [a for _, a in v.fn.template_args] == wanted]
    if not views:
        raise UnknownKernel(kernel)
    f = features(fv, views[0])
    cands = sorted(_candidates(f, facts), key=lambda c: (-c.score, FAMILIES.index(c.family)))
    cands = [replace(c, notes=_notes(c, f, views[0], all_views)) for c in cands]
    best = cands[0]
    ties = [c for c in cands[1:] if c.score >= THRESHOLD and best.score - c.score <= TIE]
    return Recognition(kernel, best, tuple(cands), ambiguous=bool(ties) and best.score >= THRESHOLD)


def kernels(facts: FileFacts) -> list[str]:
    seen: list[str] = []
    for fn in facts.functions:
        if fn.kind == "kernel" and fn.body is not None and fn.name not in seen:  # a declaration has nothing to read
            seen.append(fn.name)
    return seen


def _notes(c: Candidate, f: Features, view: FunctionView, all_views: list[FunctionView]) -> tuple[str, ...]:
    """What the generated module does not carry over from the original, so the user is not surprised."""
    notes = []
    mapped = {orig for _, orig in c.arg_map if orig}
    insts = [v for v in all_views if v.fn.template_args]
    if len(insts) > 1:
        chosen = ",".join(a for _, a in view.fn.template_args)
        others = "; ".join("<" + ",".join(a for _, a in v.fn.template_args) + ">" for v in insts if v is not view)
        notes.append(f"the kernel is a template instantiated several times: converted <{chosen}>; "
                     f"also instantiated as {others} (select one with --kernel 'NAME<args>')")
    for p in f.params:
        if p.name in mapped or "*" in p.type:
            continue
        if p.name in f.floats:
            notes.append(f"run-time argument '{p.name}' has no counterpart in the generated function: the template "
                         f"fixes it at render time (see --param; e.g. scale, eps)")
        elif p.name in f.ints and c.family == "attention":
            notes.append(f"size argument '{p.name}' is not mapped: call the generated function with batch, heads, "
                         f"seq_q and seq_kv as your launch computes them")
        elif p.name in f.ints:
            notes.append(f"run-time argument '{p.name}' has no counterpart in the generated function: if it selects "
                         f"behaviour (an activation, a reduction op), the generated module fixes it to "
                         f"{_chosen_behaviour(c)}; pick another with --param")
    return tuple(notes)


def _chosen_behaviour(c: Candidate) -> str:
    picked = {k: v for k, v in c.params.items() if k in ("activation", "op", "causal", "head_dim")}
    return ", ".join(f"{k}={v}" for k, v in picked.items()) or "the recognized variant"
