"""Recognize what a kernel computes from its Facts (the computation, not the names) and map it to a template
family with parameters and an argument mapping.

The recognizer reads a kernel's IR (and the device functions it calls) into a small set of features: which
pointer parameters are read and written, multiply-accumulate patterns, reductions, the math functions used,
how output and input indices relate. Each family states which features it needs and which it cannot have (its
`candidate(k)` in porter/families/<family>/recognize.py, over the KernelReading made here once per kernel); the
best-scoring family wins, and a near tie is reported instead of guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Iterable

from porter.facts import FileFacts, Node, Param
from porter.fact_queries import SHUFFLES, FileView, FunctionView, same_expr, strip
from porter.families import FAMILIES, hooks

EXP = {"expf", "__expf", "exp", "exp2f", "__exp2f", "exp2", "hexp", "h2exp"}
RSQRT = {"rsqrtf", "rsqrt", "__frsqrt_rn", "hrsqrt"}
SQRT = {"sqrtf", "sqrt", "__fsqrt_rn", "hsqrt"}
MAX = {"fmaxf", "fmax", "max", "__hmax"}
TANH = {"tanhf", "tanh"}
ERF = {"erff", "erf"}
ELEM_DTYPES = {"float": "float32", "__half": "float16", "half": "float16", "__hip_bfloat16": "bfloat16",
               "hip_bfloat16": "bfloat16", "__nv_bfloat16": "bfloat16", "double": "float64"}


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
    refusal: str = ""                  # why the original's arguments cannot be bound to the family's, if known


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
    selectors: set[str] = field(default_factory=set)    # names compared with a constant (`act == 1`)
    float_values: dict[int, float] = field(default_factory=dict)   # id(float literal node) -> its value
    conds: list[Node] = field(default_factory=list)   # `c ? a : b`
    # (comparison normalized as load OP threshold, loaded root, float parameter) of each element counted:
    # `c += x[i] > t ? 1 : 0`, `c += (x[i] > t)`, `if (x[i] > t) ++c;`
    counted: list[tuple[str, str, str]] = field(default_factory=list)
    callees: set[str] = field(default_factory=set)      # the file's device functions the kernel calls


def _address(view: FunctionView, node: Node, params: set[str], depth: int = 0) -> tuple[str, list[Node]]:
    """(pointer parameter an address is based on ('' if none), the offset expressions added on the way:
    subscripts and pointer arithmetic like `x + row * N`)."""
    node = strip(node)
    if depth > 8:
        return "", []
    if node.kind == "ref":
        if node.op in params:
            return node.op, []
        d = view.definition_at(node.ref, node)
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
            if f.pointers[p.name] not in ELEM_DTYPES.values() and p.canonical:   # a typedef: `floatX*`
                f.pointers[p.name] = _elem_dtype(p.canonical)
        elif re.search(r"\b(float|double|__half|half)\b", p.type):
            f.floats.append(p.name)
        elif re.search(r"\b(int|long|size_t|unsigned|int64_t|int32_t)\b", p.type):
            f.ints.append(p.name)
    views = [kernel, *fv.callees(kernel)]
    f.callees = {v.fn.name for v in views[1:]}
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
                    f.stores.setdefault(root, []).append((_offset(view, offs), _expand(view, rhs, 4)))
                if node.op == "+=" or (node.op == "=" and strip(rhs).kind == "binop" and strip(rhs).op == "+"):
                    _mac(view, node, rhs, names, f)
                if lhs.kind == "ref" and not _address(view, lhs, names)[0]:
                    _accumulation(view, node, lhs, rhs, names, f)
            elif node.kind == "call":
                # sqrtf(2.0f / M_PI) is a constant and rsqrtf((float)D) a scale, not a normalization: a square
                # root normalizes only when it reads something computed in the kernel
                if not (node.op in SQRT | RSQRT and all(n.op in f.ints or n.op in f.floats
                                                        for n in node.walk() if n.kind == "ref")):
                    f.calls.add(node.op)
                if node.op in SHUFFLES:
                    f.shuffles += 1
                if node.op in ("fmaf", "fma", "__fmaf_rn") and len(node.children) == 3:
                    a, b = (_load_root(view, c, names) or _shared_name(view, c) for c in node.children[:2])
                    if a and b:
                        f.macs.append((a, b, node))
            elif node.kind == "for":
                f.loops.append(node)
            elif node.kind == "cond" and len(node.children) == 3:
                f.conds.append(node)
            elif node.kind == "decl" and node.macro == "shared":
                f.shared += 1
            elif node.kind == "member" and node.op == "z" and node.children and strip(node.children[0]).op == "blockIdx":
                f.uses_block_z = True
            elif node.kind == "binop" and node.op == "*" and len(node.children) == 2:
                a, b = strip(node.children[0]), strip(node.children[1])
                if same_expr(a, b):
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
            if node.kind == "binop" and node.op in ("==", "!=") and len(node.children) == 2:
                a, b = (strip(c) for c in node.children)
                for ref, other in ((a, b), (b, a)):
                    if ref.kind == "ref" and other.value is not None:
                        f.selectors.add(ref.op)
            elif node.kind == "float" and node.loc.line:
                value = _float_literal(fv.facts, node)
                if value is not None:
                    f.float_values[id(node)] = value
            if node.kind in ("binop",) and node.op in (">", "<", ">=", "<=") and len(node.children) == 2:
                if all(strip(c).kind == "ref" and view.definition(strip(c).ref) is not None
                       for c in node.children) and view.depends_on_thread(node):
                    f.compare_loop_vars = True
        _counts(view, names, f)
        for node in view.nodes():
            if node.kind == "index" and id(node) not in written:
                root, offs = _address(view, node, names)
                if root and offs:
                    f.loads.setdefault(root, []).append(_offset(view, offs))
    f.neg_inf = f.neg_inf or any("INFINITY" in n or "inf" in n for n in f.calls if n.startswith("__builtin"))
    return f


_FLIPPED = {">": "<", ">=": "<=", "<": ">", "<=": ">="}


def _predicate(view: FunctionView, node: Node, names: set[str], f: Features) -> tuple[str, str, str] | None:
    """`x[i] > t` / `t < x[i]` with x loaded and t a run-time float: (op as `x OP t`, x, t)."""
    node = strip(node)
    if node.kind != "binop" or node.op not in _FLIPPED or len(node.children) != 2:
        return None
    for i, side in enumerate(node.children):
        other = strip(node.children[1 - i])
        root = _load_root(view, side, names)
        if root and other.kind == "ref" and other.op in f.floats:
            return (node.op if i == 0 else _FLIPPED[node.op]), root, other.op
    return None


def _is_int(node: Node, value: int) -> bool:
    node = strip(node)
    return node.kind == "int" and node.value == value


def _counts(view: FunctionView, names: set[str], f: Features) -> None:
    """Elements counted by a comparison with a run-time threshold (a predicate count)."""
    for node in view.nodes():
        if node.kind == "binop" and node.op == "+=" and len(node.children) == 2:
            rhs = strip(node.children[1])
            test = rhs.children[0] if rhs.kind == "cond" and len(rhs.children) == 3 and \
                _is_int(rhs.children[1], 1) and _is_int(rhs.children[2], 0) else rhs
            pred = _predicate(view, test, names, f)
        elif node.kind == "if" and node.children:
            body = node.children[1:2]
            increments = [n for b in body for n in b.walk() if (n.kind == "unop" and n.op == "++") or (
                n.kind == "binop" and n.op == "+=" and len(n.children) == 2 and _is_int(n.children[1], 1))]
            pred = _predicate(view, node.children[0], names, f) if increments else None
        else:
            continue
        if pred:
            f.counted.append(pred)


def _float_literal(facts: FileFacts, node: Node) -> float | None:
    """The value of a float literal, read from its source span (the IR keeps integer values only)."""
    loc = node.loc
    if loc.line != loc.end_line or not 0 < loc.line <= len(facts.lines):
        return None
    m = re.fullmatch(r"\s*(\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)[fF]?\s*",
                     facts.lines[loc.line - 1][loc.col - 1:loc.end_col - 1])
    return float(m.group(1)) if m else None


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

@dataclass(frozen=True)
class KernelReading:
    """What every family's recognizer (porter/families/<family>/recognize.py, `candidate(k)`) reads: the kernel's
    features and the facts several families derive from them, computed once."""
    f: Features
    facts: FileFacts
    inputs: list[str]                # pointers read and never written
    outputs: list[str]               # pointers written
    dtype: str
    has_exp: bool
    has_rsqrt: bool
    has_max: bool
    reduces: bool                    # shuffles, a scalar accumulation or a shared-memory tree
    row_map: list[tuple[str, str]]   # x, out, M, N of a row-wise kernel
    gamma_beta: list[str]            # inputs besides the row's x (a norm's weights, a bias)
    eps: tuple[dict[str, object] | None, list[tuple[str, str]]]   # _eps
    copy_shape: tuple[bool, bool]    # _copy_shape: (a pure copy, indices swapped)


def read(f: Features, facts: FileFacts) -> KernelReading:
    inputs = [p for p in f.pointers if p in f.loads and p not in f.stores]
    outputs = [p for p in f.pointers if p in f.stores]
    row_map = _row_args(f, inputs, outputs)
    return KernelReading(
        f, facts, inputs, outputs, dtype=_dtype([f.pointers[p] for p in inputs] or list(f.pointers.values())),
        has_exp=bool(f.calls & EXP), has_rsqrt=bool(f.calls & (RSQRT | SQRT)), has_max=bool(f.calls & MAX),
        reduces=bool(f.shuffles or f.accumulations or f.shared_reduce), row_map=row_map,
        gamma_beta=[p for p in inputs if p not in row_map_values(row_map)], eps=_eps(f),
        copy_shape=_copy_shape(f, inputs, outputs))


def scored(family: str, needs: dict[str, bool], forbids: dict[str, bool], params: dict[str, object],
              arg_map: Iterable[tuple[str, str]], refusal: str = "") -> Candidate:
    """A family's candidate, scored by the share of its needs present, less half a point per conflict."""
    present = [k for k, v in needs.items() if v]
    missing = [k for k, v in needs.items() if not v]
    conflicts = [k for k, v in forbids.items() if v]
    score = len(present) / max(len(needs), 1) - 0.5 * len(conflicts)
    return Candidate(family, round(max(score, 0.0), 3), params, tuple(arg_map), tuple(present),
                     tuple(missing), tuple(conflicts), refusal=refusal)


def _candidates(f: Features, facts: FileFacts) -> list[Candidate]:
    """Each registered family's candidate (a family may have none: gemm for a batched kernel)."""
    k = read(f, facts)
    found = (hooks(family, "recognize").candidate(k) for family in FAMILIES)
    return [c for c in found if c is not None]


EPS_FOUND = "an eps (a run-time argument or one small float constant in the code)"

def roots_in(node: Node, names: list[str]) -> set[str]:
    return {n.op for n in node.walk() if n.kind == "ref" and n.op in names}


def row_map_values(arg_map: Iterable[tuple[str, str]]) -> set[str]:
    return {v for _, v in arg_map}


def positional(names: tuple[str, ...], values: list[str]) -> list[tuple[str, str]]:
    return list(zip(names, values))


def _dtype(types: list[str]) -> str:
    """The element type of the tensors; one porter does not know (a typedef it could not resolve, int8) is
    returned as spelled, so rendering refuses it instead of assuming fp32."""
    for t in types:
        if t in ("float16", "bfloat16", "float32"):
            return t
    return types[0] if types else "float32"


def _eps(f: Features) -> tuple[dict[str, object] | None, list[tuple[str, str]]]:
    """(template params, argument mapping) for eps: the one float parameter (run-time eps, drawn per case), else
    the one small float constant written in the code; None when neither (comments are never read)."""
    if len(f.floats) == 1:
        return {"runtime_eps": True}, [("eps", f.floats[0])]
    small = sorted({v for v in f.float_values.values() if 0 < v < 1e-2})
    if not f.floats and len(small) == 1:
        return {"runtime_eps": False, "eps": small[0]}, []
    return None, []


def index_params(node: Node, ints: list[str]) -> list[str]:
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


def base_name(node: Node) -> str:
    node = strip(node)
    while node.kind == "index" and node.children:
        node = strip(node.children[0])
    return node.op if node.kind == "ref" else ""


def _row_args(f: Features, inputs: list[str], outputs: list[str]) -> list[tuple[str, str]]:
    x = inputs[0] if inputs else ""
    out = outputs[0] if outputs else ""
    strides = [s for idx in f.loads.get(x, []) for s in index_params(idx, f.ints)]
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
            if v.kind == "index" and len(v.children) == 2 and not same_expr(strip(v.children[1]), strip(idx)):
                swapped = True
            if v.kind == "index" and len(v.children) == 2 and any(n.kind == "ref" and n.op in ("threadIdx",)
                                                                   for n in v.walk()):
                swapped = swapped or not same_expr(strip(v.children[1]), strip(idx))
    loads_idx = [i for x in inputs for i in f.loads.get(x, [])]
    store_idx = [i for o in outputs for i, _ in f.stores[o]]
    if loads_idx and store_idx and not any(same_expr(strip(a), strip(b)) for a in loads_idx for b in store_idx):
        swapped = True
    return pure, swapped


# ------------------------------------------------------------------------------------------------ interface

@dataclass(frozen=True)
class Recognition:
    kernel: str
    best: Candidate
    candidates: tuple[Candidate, ...]
    ambiguous: bool
    features: Features
    view: FunctionView           # the kernel (instantiation) that was read
    file_view: FileView


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
    return Recognition(kernel, best, tuple(cands), ambiguous=bool(ties) and best.score >= THRESHOLD, features=f,
                       view=views[0], file_view=fv)


def kernels(facts: FileFacts) -> list[str]:
    seen: list[str] = []
    for fn in facts.functions:
        if fn.kind == "kernel" and fn.body is not None and fn.name not in seen:  # a declaration has nothing to read
            seen.append(fn.name)
    return seen


def _notes(c: Candidate, f: Features, view: FunctionView, all_views: list[FunctionView]) -> tuple[str, ...]:
    """Which instantiation of a template kernel was converted, so the user is not surprised."""
    notes = []
    insts = [v for v in all_views if v.fn.template_args]
    if len(insts) > 1:
        chosen = ",".join(a for _, a in view.fn.template_args)
        others = "; ".join("<" + ",".join(a for _, a in v.fn.template_args) + ">" for v in insts if v is not view)
        notes.append(f"the kernel is a template instantiated several times: converted <{chosen}>; "
                     f"also instantiated as {others} (select one with --kernel 'NAME<args>')")
    return tuple(notes)
