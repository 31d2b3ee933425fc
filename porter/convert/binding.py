"""The `ORIGINAL` record of a conversion (/work/helpers/CONTRACT.md, issue #12): how the original kernel is launched
on the module's cases, so that `porter verify` can run it as written and compare.

Every parameter of the original is bound to a key of the module's case (a tensor or a run-time scalar) or of its
shape dict (a size); a parameter that cannot be bound is a refusal, never a note. The launch geometry is read from
the original's own launch site and rewritten over the module's shape symbols; a launch that cannot be rewritten is
a refusal too, since a guessed grid would verify nothing.
"""

from __future__ import annotations

import re
from typing import Iterable

from porter.launch_grammar import CTYPES
from porter.convert.recognize import Candidate, Features, Recognition
from porter.facts import FileFacts, Launch, Node
from porter.fact_queries import FileView, FunctionView, strip

SCHEMA = 1
DEFAULT_BLOCK = 256     # block size for a launcher whose block size is its caller's argument
MAX_COVERING_BLOCKS = 1024   # grid of a grid-stride kernel launched without a launch site in the file


class Refusal(Exception):
    """The kernel cannot be converted faithfully; the message says which argument or fact and why."""


def original_record(rec: Recognition, cand: Candidate, file_name: str,
                    shape_keys: list[str]) -> tuple[dict[str, object], str]:
    """(the ORIGINAL constant, a one-line description of the launch for the module's header); raises Refusal."""
    args = bind_args(cand, rec.features, shape_keys)
    geometry = launch_geometry(rec.file_view, rec.file_view.facts, rec.view, args, shape_keys)
    targs = ", ".join(a for _, a in rec.view.fn.template_args)
    record = {"schema": SCHEMA, "file": file_name,
              "kernel": f"{rec.view.fn.name}<{targs}>" if targs else rec.view.fn.name,
              "args": args, "grid": geometry["grid"], "block": geometry["block"],
              "shared_bytes": geometry["shared_bytes"]}
    where = (f"from the launch at line {geometry['launch_line']}" if geometry["launch_line"] else
             "a covering grid: the file has no launch of the kernel, whose grid-stride loop gives the same result "
             "for any grid")
    text = (f"grid {_dims(record['grid'])}, block {_dims(record['block'])}, shared "
            f"{describe(record['shared_bytes'])} bytes, {where}")
    for name, value in geometry["chosen"].items():
        text += f"; its block size '{name}' is the launcher's argument: porter launches with {value}"
    return record, text


def ctype(spelling: str) -> str:
    """`const float *__restrict` -> `const float*`: the parameter's C type without qualifiers that do not change
    how a value is passed."""
    text = re.sub(r"\b(__restrict__|__restrict|restrict|volatile)\b", " ", spelling)
    text = re.sub(r"\s*\*\s*", "*", " ".join(text.split()))
    return text.strip()


def bind_args(cand: Candidate, f: Features, shape_keys: Iterable[str]) -> list[dict[str, object]]:
    """The original's parameters in declaration order, each bound to the module's case or shape."""
    shape_keys = set(shape_keys)
    if cand.refusal:
        raise Refusal(cand.refusal)
    unbound = [t for t, orig in cand.arg_map if not orig]
    if unbound:
        raise Refusal(f"the template's argument(s) {', '.join(unbound)} have no counterpart among the original's "
                      f"parameters (the original computes them some other way); porter does not guess them")
    by_orig: dict[str, str] = {}
    for tmpl, orig in cand.arg_map:
        if orig in by_orig:
            raise Refusal(f"parameter '{orig}' would stand for both '{by_orig[orig]}' and '{tmpl}'")
        by_orig[orig] = tmpl
    args: list[dict[str, object]] = []
    for p in f.params:
        key = by_orig.get(p.name)
        if key is None:
            raise Refusal(f"run-time argument '{p.name}' ({ctype(p.type)}) {_unbound_reason(p.name, f)}; the "
                          f"'{cand.family}' template has no argument with its meaning, so a conversion would "
                          f"change the result")
        written = ctype(p.type)
        # a typedef of a type porter passes (`floatX*`) is recorded as what it stands for in this configuration
        spelled = written if written in CTYPES or not p.canonical else ctype(p.canonical)
        entry: dict[str, object] = {"name": p.name, "ctype": spelled,
                                    "bind": "shape" if key in shape_keys else "case", "key": key}
        if p.name in f.stores:
            entry["output"] = True
        args.append(entry)
    return args


def _unbound_reason(name: str, f: Features) -> str:
    if name in f.selectors:
        return "selects the computation at run time (it is compared with constants)"
    if name in f.pointers:
        return "is a tensor the template does not read"
    return "is not used the way any template argument is"


# ------------------------------------------------------------------------------------------ launch geometry

class Unresolved(Exception):
    pass


def launch_geometry(fv: FileView, facts: FileFacts, kernel: FunctionView,
                    args: list[dict[str, object]], shape_keys: Iterable[str]) -> dict[str, object]:
    """grid/block/shared_bytes of the original's launch as expressions over the module's shape symbols."""
    launch = launch_of(facts, kernel)
    if launch is None and _grid_stride(kernel):
        # no launch site, but a grid-stride loop computes the same result for any grid: a covering one
        sizes = [str(a["key"]) for a in args if a["bind"] == "shape"]
        count: object = sizes[0] if sizes else 1
        for s in sizes[1:]:
            count = ["*", count, s]
        return {"grid": [["min", ["cdiv", count, DEFAULT_BLOCK], MAX_COVERING_BLOCKS], 1, 1],
                "block": [DEFAULT_BLOCK, 1, 1], "shared_bytes": 0, "launch_line": None, "chosen": {}}
    if launch is None:
        raise Refusal("the file does not launch the kernel (no <<<>>> or hipLaunchKernelGGL site), so porter "
                      "cannot tell its grid and block; add the host launcher to the file")
    host = next((v for v in fv.views if v.fn.usr == launch.caller), None)
    if host is None:
        raise Refusal(f"the launch of '{kernel.fn.name}' is outside a function porter read")
    to_kernel = host_to_kernel(launch, kernel)
    symbols = {str(a["name"]): str(a["key"]) for a in args if a["bind"] == "shape"}
    # A block size the launcher takes as an argument (llm.c's `block_size`) is the caller's choice, not part of the
    # computation: porter launches with the kernel's __launch_bounds__, else 256, and says so.
    host_params = {p.name for p in host.fn.params}
    chosen = kernel.fn.launch_bounds[0] if kernel.fn.launch_bounds else DEFAULT_BLOCK
    free = {n.op: chosen for n in (launch.block.walk() if launch.block is not None else ())
            if n.kind == "ref" and n.op in host_params and n.ref not in to_kernel and not host.defs.get(n.ref)}
    resolver = Resolver(host, to_kernel, symbols, set(shape_keys), free)
    try:
        grid = resolver.dim3(launch.grid)
        block = resolver.dim3(launch.block)
        shared = resolver.expr(launch.shared_bytes) if launch.shared_bytes is not None and \
            strip(launch.shared_bytes).kind != "default" else 0
    except Unresolved as exc:
        line = launch.loc.line
        raise Refusal(f"the launch at line {line} computes its geometry from {exc}, which porter cannot rewrite "
                      f"over the kernel's parameters; without the original's grid the comparison would be "
                      f"meaningless") from None
    return {"grid": grid, "block": block, "shared_bytes": shared, "launch_line": launch.loc.line,
            "chosen": free}


def _grid_stride(kernel: FunctionView) -> bool:
    """A loop whose step is the whole grid (`i += blockDim.x * gridDim.x`): every grid gives the same result."""
    for node in kernel.nodes():
        if node.kind == "for" and len(node.children) == 4:
            step = node.children[2]
            if any(n.kind == "ref" and n.op == "gridDim" or n.kind == "member" and n.children and
                   strip(n.children[0]).op == "gridDim" for n in step.walk()):
                return True
            for n in step.walk():       # i += stride, with `stride = blockDim.x * gridDim.x`
                d = kernel.definition(n.ref) if n.kind == "ref" and n.ref else None
                if d is not None and any(m.kind == "ref" and m.op == "gridDim" for m in d.walk()):
                    return True
    return False


def launch_of(facts: FileFacts, kernel: FunctionView) -> Launch | None:
    wanted = tuple(a for _, a in kernel.fn.template_args)
    for lc in facts.launches:
        if lc.kernel == kernel.fn.name and (not wanted or tuple(a.replace(" ", "") for a in lc.template_args)
                                            == tuple(a.replace(" ", "") for a in wanted)):
            return lc
    return None


def host_to_kernel(launch: Launch, kernel: FunctionView) -> dict[str, str]:
    """Host variable id -> kernel parameter name, for launch arguments that pass a host variable unchanged."""
    out: dict[str, str] = {}
    for node, param in zip(launch.args, kernel.fn.params):
        n = strip(node)
        if n.kind == "ref" and n.ref:
            out.setdefault(n.ref, param.name)
    return out


_BINOPS = {"+": "+", "-": "-", "*": "*", "/": "//", "%": "%"}


class Resolver:
    def __init__(self, host: FunctionView, to_kernel: dict[str, str], symbols: dict[str, str],
                 shape_keys: set[str], free: dict[str, int]) -> None:
        self.host, self.to_kernel, self.symbols, self.shape_keys = host, to_kernel, symbols, shape_keys
        self.free = free
        self.host_params = {p.name for p in host.fn.params}

    def dim3(self, node: Node | None) -> list[object]:
        if node is None:
            raise Unresolved("a missing launch argument")
        n = strip(node)
        if n.kind == "ref" and "dim3" in (n.type or ""):
            d = self._single_def(n)
            return self.dim3(d)
        if n.kind in ("call", "init_list") and (n.op == "dim3" or n.kind == "init_list"):
            dims = [1 if strip(c).kind == "default" else self.expr(c) for c in n.children[:3]]
            return dims + [1] * (3 - len(dims))
        if n.kind == "decl" and n.children:
            return self.dim3(n.children[0])
        return [self.expr(n), 1, 1]

    def _single_def(self, n: Node) -> Node:
        defs = self.host.defs.get(n.ref, [])
        if len(defs) == 1:
            return defs[0]
        decl = self.host.decls.get(n.ref)
        if not defs and decl is not None and decl.children:   # dim3 grid(a, b): the constructor is the decl's
            return decl.children[0]
        raise Unresolved(f"'{n.op}', assigned {len(defs)} times")

    def expr(self, node: Node, depth: int = 0) -> object:
        n = strip(node)
        if depth > 12:
            raise Unresolved("a too deeply nested expression")
        if n.value is not None and n.kind != "ref":
            return int(n.value)
        if n.kind == "cast" and n.children:      # (int), (long long), size_t(...)
            return self.expr(n.children[0], depth + 1)
        if n.kind == "ref":
            return self._ref(n, depth)
        if n.kind == "binop" and n.op in _BINOPS and len(n.children) == 2:
            return [_BINOPS[n.op], self.expr(n.children[0], depth + 1), self.expr(n.children[1], depth + 1)]
        if n.kind == "call" and n.op in ("ceil_div", "cdiv", "div_up", "DIV_UP") and len(n.children) == 2:
            return ["cdiv", self.expr(n.children[0], depth + 1), self.expr(n.children[1], depth + 1)]
        if n.kind == "call" and n.op in ("min", "max", "std::min", "std::max") and len(n.children) == 2:
            return [n.op.rsplit(":", 1)[-1], self.expr(n.children[0], depth + 1), self.expr(n.children[1], depth + 1)]
        raise Unresolved(f"an expression porter does not rewrite (line {n.loc.line})")

    def _ref(self, n: Node, depth: int) -> object:
        if n.ref in self.to_kernel:
            param = self.to_kernel[n.ref]
            if param in self.symbols:
                return self.symbols[param]
            raise Unresolved(f"'{n.op}', which reaches the kernel as '{param}', not as a size")
        if n.op in self.host_params and not self.host.defs.get(n.ref):   # `block_size = 32;` overrides the caller
            if n.op in self.shape_keys:       # a size only the launch uses (batch = grid.z)
                return n.op
            if n.op in self.free:
                return self.free[n.op]
            raise Unresolved(f"the launcher's argument '{n.op}', which the kernel never receives")
        defs = self.host.defs.get(n.ref, [])
        if not defs:
            raise Unresolved(f"'{n.op}'")
        value = self.expr(defs[0], depth + 1)
        for later in defs[1:]:
            value = self._clamp(n, later, value, depth)
        return value

    def _clamp(self, var: Node, assigned: Node, value: object, depth: int) -> object:
        """`if (v > c) v = c;` / `if (v < c) v = c;` after v's definition: min / max."""
        cond = None
        for anc in self.host.ancestors(assigned):
            if anc.kind == "if":
                cond = strip(anc.children[0])
                break
        if cond is None or cond.kind != "binop" or cond.op not in (">", ">=", "<", "<=") or len(cond.children) != 2:
            raise Unresolved(f"'{var.op}', reassigned outside a clamp")
        lhs, rhs = strip(cond.children[0]), strip(cond.children[1])
        bound = self.expr(assigned, depth + 1)
        if lhs.kind != "ref" or lhs.ref != var.ref or self.expr(rhs, depth + 1) != bound:
            raise Unresolved(f"'{var.op}', reassigned outside a clamp")
        return ["min" if cond.op in (">", ">=") else "max", value, bound]


def _dims(exprs: object) -> str:
    return "(" + ", ".join(describe(e) for e in exprs) + ")"  # type: ignore[attr-defined]


def describe(expr: object) -> str:
    """An expression of the grammar as C-like text, for the module's header."""
    if isinstance(expr, list):
        op, a, b = expr
        if op in ("min", "max", "cdiv"):
            return f"{op}({describe(a)}, {describe(b)})"
        return f"({describe(a)} {'/' if op == '//' else op} {describe(b)})"
    return str(expr)
