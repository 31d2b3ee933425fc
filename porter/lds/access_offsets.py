"""From a kernel's Facts to LDS model inputs: which block the kernel runs with, and for each `__shared__` access
the per-lane byte offset as an expression of tid.x/y/z, bdim.x/y/z and sampled loop iterations.

Symbols produced (see porter.lds.affine): "tid.x".."bdim.z" as the model binds them; "it<k>" is the iteration
index of the k-th enclosing loop (its variable becomes a ?:-chain over the sampled iterations, or an affine
`init + it * step`); "u:<name>" is a runtime value the same in every lane (a kernel argument, blockIdx). Uniform
values that only shift every lane's address equally do not change bank conflicts and are bound to 0; any other
use makes the access undetermined, and such accesses are returned as `Unresolved` rather than guessed.

The access walk reads function bodies directly (not FileFacts.shared_accesses) so that multi-dimensional
subscripts, reinterpret casts of `&tile[r][c]` and pointer aliases are seen whole. A call of a project header's
helper that dereferences a pointer parameter (`load128(smem + off)` with `*reinterpret_cast<const int4*>(p)`) is an
access at the call site: the argument is followed like any pointer, the helper gives the width and the direction.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from functools import cached_property
from math import prod
from typing import Iterator, Sequence

from porter.facts import FileFacts, Function, Launch, Node, SharedDecl
from porter.fact_queries import (TORCH_ROCM_FIXED_WAVE, TORCH_WAVE, FileView, FunctionView, builtin_width, call_args,
                                 device_wave_vars, host_wave_value, involves_device_wave, is_device_wave_query,
                                 strip)
from porter.lds.affine import EvalError, Expr, evaluate, symbols
from porter.lds.padding import padded_width
from porter.rule_context import RuleContext

# Hard caps on the work done per loop / per expression; not hardware numbers.
MAX_TRIP = 4096          # iterations simulated to find a loop's trip count
MAX_SAMPLED_ITERS = 8    # iterations of one loop whose lanes are evaluated
MAX_DEPTH = 24           # definition chains followed through local variables
MAX_HELPER_DEPTH = 4     # header helpers walked inside one another for one access
# The C library's block copies (HIP's device memcpy/memset): their pointer arguments, then the byte count.
_BLOCK_COPIES = frozenset({"memcpy", "memset", "__builtin_memcpy", "__builtin_memset"})
_FILLS = frozenset({"memset", "__builtin_memset"})   # the second argument is a value, not a pointer
BARRIERS = frozenset({"__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or"})
PARAM_REF = "param:"     # ref prefix of a pointer parameter taken for shared memory (see _uncalled_shared)
SIZEOF_PREFIX = "sizeof:"  # symbol of an element size that is a template parameter (see _Dependent)

_COMPOUND = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%", "<<=": "<<", ">>=": ">>", "&=": "&",
             "|=": "|", "^=": "^"}
_BINOPS = {"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "<", "<=", ">", ">=", "==", "!=", "&&", "||"}
_DIM_SYMBOL = {"threadIdx": "tid", "blockDim": "bdim"}
_BIT_INTRINSICS = {"__ffs": 32, "__ffsll": 64, "__popc": 32, "__popcll": 64, "__clz": 32, "__clzll": 64}  # operand bits
_LOG2 = ("log2", "log2f", "__log2f")  # float logarithms an index casts to an integer level count
_UNIFORM_DIMS = ("blockIdx", "gridDim")
# Sizes of scalar member types, for `vec_array[i].x` (the compiler loads only the field).
_SCALAR_BYTES = {"float": 4, "int": 4, "unsigned int": 4, "unsigned": 4, "uint32_t": 4, "int32_t": 4,
                 "double": 8, "long long": 8, "unsigned long long": 8, "int64_t": 8, "uint64_t": 8,
                 "half": 2, "__half": 2, "_Float16": 2, "short": 2, "unsigned short": 2, "__hip_bfloat16": 2,
                 "char": 1, "unsigned char": 1, "signed char": 1, "int8_t": 1, "uint8_t": 1}


# Element types whose size the instantiation evidence reads beyond the scalars above (library half/bfloat16 types)
_LIBRARY_BYTES = {"c10::Half": 2, "at::Half": 2, "c10::BFloat16": 2, "at::BFloat16": 2, "hip_bfloat16": 2,
                  "__nv_bfloat16": 2, "nv_bfloat16": 2, "__nv_half": 2, "long": 8, "unsigned long": 8, "size_t": 8}


ASSUMED_ELEMENT = (4, "float")  # an open element type the file binds to nothing: what most kernels hold
DEPENDENT_TYPE = "type-parameter-"  # how libclang's canonical spelling names a template parameter


def type_bytes(spelling: str) -> int | None:
    """The size of a scalar type as a template argument spells it (qualifiers and a leading :: dropped)."""
    name = " ".join(w for w in spelling.split() if w not in ("const", "volatile")).removeprefix("::")
    return _SCALAR_BYTES.get(name) or _LIBRARY_BYTES.get(name)


def element_evidence(facts: FileFacts, fn: Function, param: str) -> tuple[tuple[int, str], ...]:
    """(size, type) for each scalar type the file binds template parameter `param` of pattern `fn` to: the
    instantiations it makes (those libclang gives no body for included) and the template arguments of launches of
    it (dispatch macros bind scalar_t before the launch). () when the file gives none of known size."""
    base = fn.usr.split("<", 1)[0]
    types = {dict(f.template_args).get(param, "") for f in facts.functions
             if f.template_args and f.usr.split("<", 1)[0] == base}
    if param in fn.template_params:
        pos = fn.template_params.index(param)
        types.update(ln.template_args[pos] for ln in facts.launches
                     if ln.kernel_usr.split("<", 1)[0] == base and pos < len(ln.template_args))
    return tuple(sorted({(size, t) for t in types if t and (size := type_bytes(t))}))


class Undetermined(Exception):
    """The lane mapping of an access cannot be derived; `reason` says why in words a user can act on."""

    def __init__(self, reason: str, node: Node | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.node = node


# ------------------------------------------------------------------------------------------------ block dims

@dataclass(frozen=True)
class BlockGuess:
    dims: tuple[int, int, int]
    source: str          # where the dims come from, for the message
    assumed: bool        # True when no launch site or bound fixes them

    def text(self) -> str:
        return "x".join(map(str, self.dims))


def uses_dim(fn: Function, dim: str) -> bool:
    """Whether the body reads threadIdx.<dim> (or blockDim.<dim>)."""
    if fn.body is None:
        return False
    return any(n.kind == "member" and n.op == dim and n.children and strip(n.children[0]).op in _DIM_SYMBOL
               for n in fn.body.walk())


def _launches_of(facts: FileFacts, fn: Function) -> Iterator[Launch]:
    """The launches in the file that run `fn` (an instantiation: those naming its own template arguments; an
    argument the launch leaves dependent, `k<T><<<...>>>` inside a host template, may be any of them)."""
    base_usr = fn.usr.split("<", 1)[0]
    targs = tuple(v for _, v in fn.template_args)
    overloads = len({f.usr.split("<", 1)[0] for f in facts.functions if f.kind == "kernel" and f.name == fn.name})
    for launch in (*facts.launches, *facts.lambda_launches):
        # a launch libclang leaves unresolved (inside a host template) names its kernel by name only: of
        # overloaded kernels, the one taking as many arguments
        same = launch.kernel_usr.split("<", 1)[0] == base_usr if launch.kernel_usr else \
            launch.kernel == fn.name and (len(launch.args) == len(fn.params) or overloads == 1)
        if same and not (targs and launch.template_args and not _same_arguments(launch.template_args, targs)):
            yield launch


def _same_arguments(launched: Sequence[str], instance: Sequence[str]) -> bool:
    return len(launched) == len(instance) and all(a in ("?", b) for a, b in zip(launched, instance))


def launch_constants(fv: FileView, fn: Function) -> dict[str, int]:
    """Integer kernel parameters that every launch of the kernel in this file passes the same constant for
    (`const int Bc = 32; k<<<g, b>>>(..., Bc)`)."""
    if fn.kind != "kernel":
        return {}
    # a launch in a host template pattern runs as its instantiations' launches, which bind its parameters
    instantiated = _instantiated(fv.facts)
    launches = [ln for ln in _launches_of(fv.facts, fn)
                if not ((caller := fv.facts.function(ln.caller)) is not None and _shadowed(caller, instantiated))]
    out: dict[str, int] = {}
    for i, p in enumerate(fn.params):
        if not _is_integer(p.type):
            continue
        values = {host_value(fv, ln.caller, ln.args[i]) if i < len(ln.args) else None for ln in launches}
        if len(values) == 1 and None not in values:
            out[p.name] = int(values.pop())  # type: ignore[arg-type]
    return out


def host_value(fv: FileView, fn_usr: str, node: Node, depth: int = 0) -> int | None:
    """The integer a host expression always has: constants, arithmetic on them, locals assigned once, and
    parameters that every call site in the file passes the same value for (main's `int C = 768` reaching a
    launch as `d = C / NH` two calls down). None when any step is not known."""
    if node.value is not None:
        return int(node.value)
    if depth > MAX_DEPTH:
        return None
    node = strip(node)
    if node.kind == "member" and node.op in ("x", "y", "z") and node.children:
        return _dim3_extent(fv, fn_usr, node, depth)
    if node.kind == "binop" and node.op in ("+", "-", "*", "/", "%", "<<", ">>") and len(node.children) == 2:
        a, b = (host_value(fv, fn_usr, c, depth + 1) for c in node.children)
        if a is None or b is None:
            return None
        try:
            return evaluate((node.op, a, b), {})
        except EvalError:
            return None
    if node.kind != "ref" or not _is_integer(node.type):
        return None
    view = next((v for v in fv.views if v.fn.usr == fn_usr), None)
    if view is None:
        return None
    defs = view.defs.get(node.ref, [])
    if any(n.kind in ("binop", "unop") and n.op in (*_COMPOUND, "++", "--", "post++", "post--", "&") and n.children
           and strip(n.children[0]).ref == node.ref for n in view.nodes()):
        return None  # changed in place, or its address taken
    if defs:
        return host_value(fv, fn_usr, defs[0], depth + 1) if len(defs) == 1 else None
    names = [p.name for p in view.fn.params]
    if node.op not in names or node.ref in view.decls:
        return None
    pos = names.index(node.op)
    # a host template's parameter (a launch in `filtering<T>`) is bound by the calls of each instantiation
    callees = [fn_usr] + ([f.usr for f in fv.facts.functions if f.usr.startswith(fn_usr + "<")]
                          if view.fn.is_template else [])
    values = {host_value(fv, caller.fn.usr, args[pos], depth + 1) if pos < len(args) else None
              for usr in callees for caller, args in _call_sites(fv, usr)}
    return values.pop() if len(values) == 1 else None


def _dim3_extent(fv: FileView, fn_usr: str, member: Node, depth: int) -> int | None:
    """`threads.y` of a host `dim3 threads(16, 16)` defined once and never changed (a launch passing the block's
    own width as an argument: `k<<<g, threads>>>(..., threads.x)`); a missing extent is 1."""
    base = strip(member.children[0])
    view = next((v for v in fv.views if v.fn.usr == fn_usr), None)
    if base.kind != "ref" or view is None or len(view.defs.get(base.ref, [])) != 1:
        return None
    ctor = strip(view.defs[base.ref][0])
    if ctor.kind != "call" or ctor.op != "dim3" or any(
            n.kind == "binop" and n.op in ("=", *_COMPOUND) and n.children and strip(n.children[0]).kind == "member"
            and strip(strip(n.children[0]).children[0]).ref == base.ref for n in view.nodes()):
        return None
    axis = "xyz".index(member.op)
    return host_value(fv, fn_usr, ctor.children[axis], depth + 1) if axis < len(ctor.children) else 1


def _call_sites(fv: FileView, usr: str) -> Iterator[tuple[FunctionView, tuple[Node, ...]]]:
    """Every call of the function `usr` in the file: (calling function, arguments without a method's object)."""
    callee = fv.facts.function(usr)
    for caller in fv.views:
        for call in caller.calls():
            if call.ref == usr or (callee is not None and _dependent_call_of(call, callee)):
                yield caller, call_args(call)


def _dependent_call_of(call: Node, fn: Function) -> bool:
    """A call libclang left unresolved because it depends on template parameters (`blockReduce<Op, T>(sdata, v)`
    inside a template): it names `fn` when the name and the argument count match (a lookup by name only would
    take every overload)."""
    return not call.ref and call.op == fn.name and len(call_args(call)) == len(fn.params)


def kernel_blocks(fv: FileView, fn: Function, default: Sequence[int], wave: int) -> list[BlockGuess]:
    """Candidate block shapes: constant launch configurations of this kernel (all distinct ones, a block built
    from the device's wavefront width taken at the target's `wave`), else its __launch_bounds__ total as a 1-D
    block, else `default` (stated as assumed)."""
    facts = fv.facts
    out: dict[tuple[int, int, int], BlockGuess] = {}
    unresolved: list[int] = []  # lines of this kernel's launches whose block is not a constant
    partial = None              # the first launch whose block is constant in some dimensions
    for launch in _launches_of(facts, fn):
        if launch.block_dims is None and launch.block_partial is not None:
            launch = _wave_block(fv, launch, wave)
        if launch.block_dims is None:
            unresolved.append(launch.loc.line)
            if launch.block_partial is not None and partial is None:
                partial = launch
            continue
        dims = tuple(int(d) for d in launch.block_dims)
        where = f"from {launch.block_source}" if launch.block_source else f"from the launch at line {launch.loc.line}"
        out.setdefault(dims, BlockGuess(dims, where, False))  # type: ignore[arg-type]
    if out:
        return list(out.values())
    asserted, asserts = _asserted_dims(fn)
    # the threads a partly known block holds in all: its launch bound, else the default block's
    total = int(fn.launch_bounds[0]) if fn.launch_bounds else prod(int(d) for d in default)
    if partial is not None or asserted:
        known = list(partial.block_partial if partial is not None and partial.block_partial else (None, None, None))
        for i, v in asserted.items():
            known[i] = v
        origin = [partial.block_source or f"the launch at line {partial.loc.line}"] if partial is not None else []
        return [_complete(tuple(known), ", ".join(origin + ([asserts] if asserts else [])), total)]
    flat = _flattened_block(fv, fn)
    if flat is not None:
        (bx, by), line = flat
        return [_complete((bx, by, None), f"the thread index flattened as tz * {bx * by} + ty * {bx} + tx at line "
                          f"{line}", total)]
    two_d = uses_dim(fn, "y")
    if fn.launch_bounds and not two_d:
        n = int(fn.launch_bounds[0])
        return [BlockGuess((n, 1, 1), f"from __launch_bounds__({n}), 1-D assumed", False)]
    dims = tuple(int(d) for d in default) + (1,) * (3 - len(default))
    why = "no constant launch or __launch_bounds__"
    if fn.block_param:
        why = f"no constant launch; __launch_bounds__({fn.block_param}) of the open template parameter"
    if unresolved:
        why = f"the block of the launch at line {unresolved[0]} is not a constant; no __launch_bounds__"
    if fn.launch_bounds:
        dims = (int(fn.launch_bounds[0]), 1, 1)
        why = f"__launch_bounds__({dims[0]}) gives no shape"
    if two_d and dims[1] == 1 and dims[2] == 1:
        # A 2-D kernel under a 1-D default would see threadIdx.y == 0 only: shape the threads as rows of the
        # tile width (the innermost extent of its 2-D shared array), 32 when unknown, and say so.
        total = dims[0]
        bx = min(_tile_width(facts, fn) or 32, total)
        dims = (bx, max(1, total // bx), 1)
        why += f"; {total} threads shaped as rows of {bx}"
    return [BlockGuess(dims, f"assumed ({why}; set --block X,Y,Z)", True)]  # type: ignore[arg-type]


def _flattened_block(fv: FileView, fn: Function) -> tuple[tuple[int, int], int] | None:
    """((X, Y), line) when the kernel numbers its threads as tz * X * Y + ty * X + tx with constant X and Y (the
    same for every such expression): that numbering is one-to-one only in a block of X by Y by any threads, so it
    is the block's shape when no launch in the file gives one."""
    if fn.body is None:
        return None
    view = next((v for v in fv.views if v.fn.usr == fn.usr), None)
    if view is None:
        return None
    found: set[tuple[int, int]] = set()
    line = 0
    for n in fn.body.walk():
        if n.kind != "binop" or n.op != "+":
            continue
        terms = _thread_terms(fv, view, n, 0)
        if terms is None or set(terms) != {"x", "y", "z"} or terms["x"] != 1 or terms["y"] < 2 or \
                terms["z"] % terms["y"] or terms["z"] // terms["y"] < 2:
            continue
        found.add((terms["y"], terms["z"] // terms["y"]))
        line = line or n.loc.line
    return (found.pop(), line) if len(found) == 1 else None


def _thread_terms(fv: FileView, view: FunctionView, node: Node, depth: int) -> dict[str, int] | None:
    """The constant coefficient of each threadIdx dimension in a sum of thread indices times constants (locals
    defined once as threadIdx.x and the like included); None for anything else."""
    node = strip(node)
    if depth > MAX_DEPTH:
        return None
    if node.kind == "member" and node.op in ("x", "y", "z") and node.children and \
            strip(node.children[0]).op == "threadIdx":
        return {node.op: 1}
    if node.kind == "ref" and node.ref in view.decls:
        defs = view.defs.get(node.ref, [])
        return _thread_terms(fv, view, defs[0], depth + 1) if len(defs) == 1 else None
    if node.kind != "binop" or len(node.children) != 2 or node.op not in ("+", "*"):
        return None
    a, b = node.children
    if node.op == "+":
        left, right = _thread_terms(fv, view, a, depth + 1), _thread_terms(fv, view, b, depth + 1)
        if left is None or right is None or set(left) & set(right):
            return None
        return {**left, **right}
    for terms, const in ((a, b), (b, a)):
        k = host_value(fv, view.fn.usr, const)
        inner = _thread_terms(fv, view, terms, depth + 1) if k is not None else None
        if inner is not None:
            return {d: c * int(k) for d, c in inner.items()}
    return None


def _wave_block(fv: FileView, launch: Launch, wave: int) -> Launch:
    """The launch with its block's open extents filled where they are built from the device's wavefront width
    (`dim3 threads(warp_size, 4)` with `warp_size = at::cuda::warp_size()`): on the analysis target that width is
    `wave`. Unchanged when any open extent depends on anything else."""
    view = next((v for v in fv.views if v.fn.usr == launch.caller), None)
    if view is None or launch.block is None or launch.block_partial is None:
        return launch
    block = strip(launch.block)
    if block.kind == "ref" and view.definition(block.ref) is not None:
        block = strip(view.definition(block.ref))  # type: ignore[arg-type]
    extents = block.children if block.kind == "call" and block.op == "dim3" else (block,)
    filled = device_wave_vars(view)
    dims = list(launch.block_partial)
    names = []
    for i, known in enumerate(dims):
        if known is not None:
            continue
        if i >= len(extents) or not involves_device_wave(view, extents[i], filled):
            return launch
        dims[i] = host_wave_value(view, extents[i], {}, filled, wave)
        if dims[i] is None:
            return launch
        names.append(_wave_name(view, extents[i], filled))
    where = launch.block_source or f"the launch at line {launch.loc.line}"
    return replace(launch, block_dims=tuple(dims), block_partial=None,  # type: ignore[arg-type]
                   block_source=f"{where}; {names[0]}: the target's wavefront width, {wave}")


def _wave_name(view: FunctionView, extent: Node, filled: frozenset[str]) -> str:
    """How a block extent names the device's width, for the message: its variable (`warp_size`), the properties
    field (`prop.warpSize`) or the call (`at::cuda::warp_size()`)."""
    for k in extent.walk():
        if k.kind == "member" and is_device_wave_query(k, filled) and k.children and strip(k.children[0]).op:
            return f"{strip(k.children[0]).op}.{k.op}"
        if k.kind in ("call", "mcall") and is_device_wave_query(k, filled):
            return f"{k.op}()"
        if k.kind == "ref" and k.op and involves_device_wave(view, k, filled):
            return k.op
    return "the device's wavefront width"


def _complete(known: tuple[int | None, ...], where: str, total: int) -> BlockGuess:
    """A block constant in some dimensions (dim3(4, 8, n)): the first unknown one is sized so that the block
    has `total` threads, the others are 1; stated as assumed."""
    fixed = prod(d for d in known if d is not None)
    dims, first = [], True
    for d in known:
        if d is None:
            dims.append(max(1, total // fixed) if first else 1)
            first = False
        else:
            dims.append(d)
    if first:
        return BlockGuess((dims[0], dims[1], dims[2]), f"from {where}", False)
    spelled = "x".join("?" if d is None else str(d) for d in known)
    return BlockGuess((dims[0], dims[1], dims[2]), f"assumed ({spelled} from {where}, the unknown dimension sized "
                      f"for {total} threads; set --block X,Y,Z)", True)


def _asserted_dims(fn: Function) -> tuple[dict[int, int], str]:
    """Block extents the kernel asserts unconditionally at its top level (`assert(blockDim.x == 4)`)."""
    out: dict[int, int] = {}
    lines: list[str] = []
    for stmt in fn.body.children if fn.body is not None else ():
        if stmt.kind != "cond" or not any(n.macro == "assert" for n in stmt.walk()):
            continue
        test = strip(stmt.children[0]) if stmt.children else stmt
        if test.kind != "binop" or test.op != "==" or len(test.children) != 2:
            continue
        for dim, const in (test.children, test.children[::-1]):
            d, c = strip(dim), strip(const)
            if d.kind == "member" and d.op in ("x", "y", "z") and d.children and strip(d.children[0]).op == "blockDim" \
                    and const.value is not None:
                out["xyz".index(d.op)] = int(const.value)
                lines.append(f"assert(blockDim.{d.op} == {const.value}) at line {stmt.loc.line}")
                break
    return out, ", ".join(lines)


def _tile_width(facts: FileFacts, fn: Function) -> int | None:
    """The innermost extent of a 2-D shared array of the function, a proxy for the x extent of the block; a row
    padded for bank conflicts (tile[16][16 + 1]) holds the unpadded width of data, the threads of one row."""
    for d in facts.shared:
        if d.function in (fn.usr, "") and len(d.dims) >= 2 and d.dims[-1]:
            padded = padded_width(int(d.dims[-1]))
            return padded[0] if padded else int(d.dims[-1])
    return None


# ------------------------------------------------------------------------------------------------- accesses

@dataclass(frozen=True)
class LdsAccess:
    decl: SharedDecl
    node: Node                       # the access expression (its loc is reported)
    op: str                          # read | write
    width: int                       # bytes per lane
    offset: Expr                     # byte offset from the start of the array
    indices: tuple[Expr, ...] | None  # element indices per dimension when the access goes through arr[i][j]
    predicate: Expr | None
    samples: dict[str, tuple[int, ...]]
    loop_vars: tuple[tuple[str, str, Expr], ...] = ()   # (iteration symbol, variable, its value) for messages
    written: str = ""                # the name the source writes at the access (an alias of decl, or decl itself)

    element: str = ""                # the template parameter that is the element type when its size is open
                                     # (width 0 then, and the offset holds its `sizeof:` symbol)
    element_types: tuple[tuple[int, str], ...] = ()  # (size, type) that element has by the file's evidence
    via: str = ""                    # where a header helper the call passes the array to makes the access
    open_values: tuple[tuple[str, tuple[int, ...]], ...] = ()  # runtime-uniform variables the lane pattern
                                     # depends on, each known to be one of these values (`u:offset`: 1, 2, 4, ...)

    def with_element_size(self, size: int) -> "LdsAccess":
        """The access as it runs when the template parameter's element has `size` bytes."""
        return replace(self, width=size, element="",
                       offset=_substitute(self.offset, {f"{SIZEOF_PREFIX}{self.element}": size}))

    def with_values(self, values: dict[str, int]) -> "LdsAccess":
        """The access as it runs when its open runtime values are `values`."""
        return replace(self, open_values=(), offset=_substitute(self.offset, values))

    @property
    def vector(self) -> int:
        return max(1, self.width // (self.decl.elem_bytes or self.width or 1))


@dataclass(frozen=True)
class Unresolved:
    decl: SharedDecl
    node: Node
    reason: str
    written: str = ""                # as LdsAccess.written
    via: str = ""                    # as LdsAccess.via


@dataclass(frozen=True)
class _CallFrame:
    """A header helper walked for one call: the walker of the calling function, the call, and what it passes for
    each of the helper's parameters (by name). The helper runs in the caller's thread, so its lane expressions are
    the caller's."""

    caller: "AccessWalker"
    call: Node
    args: dict[str, Node]

    @property
    def depth(self) -> int:
        return 1 + (self.caller.frame.depth if self.caller.frame is not None else 0)


@dataclass
class _Ptr:
    decl: SharedDecl
    offset: Expr                     # bytes
    pointee: int | None              # bytes per step of a subscript on this pointer
    indices: tuple[Expr, ...] | None  # full element indices when the pointer is &arr[i][j] (or arr itself: ())
    depth: int = 0                   # subscripts applied to the array itself (arr[i] of a 2-D array: 1)


@dataclass(frozen=True)
class ParamDeref:
    """A dereference a helper makes of one of its pointer parameters: `*reinterpret_cast<const int4*>(p)`, `p[k]`."""
    param: int                       # position of the pointer parameter
    op: str                          # read | write
    width: int                       # bytes per lane
    step: int                        # bytes per unit of the subscript
    index: int | None                # a constant subscript (0 for `*p`) ...
    index_param: int | None          # ... or the position of the integer parameter that is the subscript


@dataclass
class _Loop:
    node: Node
    symbol: str
    var: str                         # variable id
    name: str
    iters: tuple[int, ...]           # sampled iteration indices
    value: Expr                      # the variable as an expression of the iteration symbol
    carried: dict[str, Expr] = field(default_factory=dict)  # other variables stepped once per iteration
    # carried variables stepped before the end of the body: (where the step ends, the value reads after it see)
    stepped: dict[str, tuple[tuple[int, int], Expr]] = field(default_factory=dict)
    exits: dict[str, int] = field(default_factory=dict)  # carried values after the last iteration, when counted
    decoupled: frozenset[str] = frozenset()  # enclosing loops' symbols its values are no longer paired with


class AccessWalker:
    """Accesses of one function under one block shape."""

    def __init__(self, ctx: RuleContext, view: FunctionView, block: tuple[int, int, int], wave_size: int = 0,
                 frame: _CallFrame | None = None) -> None:
        self.ctx = ctx
        self.frame = frame  # set when the function is a header helper walked for one call
        self.fv = ctx.view
        self.facts = ctx.facts
        self.view = view
        self.block = block
        self.wave_size = wave_size  # the target's wavefront: the value of warpSize and the lane-id modulus
        self.used_args: dict[str, int] = {}  # the launch constants the addresses were computed with
        self.used_pins: dict[str, int] = {}  # the template parameters a static_assert fixed that they used
        self.used_block_param = ""  # a pattern's __launch_bounds__ parameter an address read, as the block's size
        fn_usr = view.fn.usr
        self.decls: dict[str, SharedDecl] = {}
        for d in self.facts.shared:
            if d.function in (fn_usr, "") or d.ref not in self.decls:
                if d.function == fn_usr or d.ref not in self.decls:
                    self.decls[d.ref] = d
        self.mutations: dict[str, list[Node]] = {}
        for n in view.nodes():
            if n.kind == "binop" and n.op in _COMPOUND and n.children:
                lhs = strip(n.children[0])
                if lhs.kind == "ref":
                    self.mutations.setdefault(lhs.ref, []).append(n)
            elif n.kind == "unop" and n.op in ("++", "--", "post++", "post--") and n.children:
                lhs = strip(n.children[0])
                if lhs.kind == "ref":
                    self.mutations.setdefault(lhs.ref, []).append(n)
        self._loops: dict[int, _Loop | None] = {}
        self._loop_error: dict[int, str] = {}
        self._parameter_arrays: dict[str, SharedDecl | None] = {}  # see _parameter_array
        self.changing: dict[str, str] = {}  # `u:` symbol -> id of the uniform variable it names, when that
                                            # variable is assigned or changed more than once
        self.block_env = {"bdim.x": block[0], "bdim.y": block[1], "bdim.z": block[2]}

    # -- the walk
    def accesses(self) -> tuple[list[LdsAccess], list[Unresolved]]:
        found: list[LdsAccess] = []
        unresolved: list[Unresolved] = []
        consumed: set[int] = set()
        for node in self.view.nodes():
            if id(node) in consumed:
                continue
            if node.kind == "unop" and node.op == "&":
                self._consume_chain(node.children[0] if node.children else node, consumed)
                continue
            if node.kind == "call" and node.op in _BLOCK_COPIES:
                self._block_copy(node, found, unresolved)
                continue
            if node.kind in ("call", "mcall") and (node.ref or node.op):
                # a call left unresolved in a template pattern (its arguments depend on the template's
                # parameters) still runs the file's one device function of that name: _file_helper decides
                self._helper_call(node, found, unresolved)
                continue
            if node.kind == "decl" and self._shared_reference(node.ref) is not None:
                self._consume_chain(node.children[0], consumed)  # binding a reference reads nothing
                continue
            if node.kind == "ref" and (element := self._shared_reference(node.ref)) is not None:
                self._reference_access(node, element, found, unresolved)
                continue
            is_deref = node.kind == "unop" and node.op == "*" and bool(node.children)
            if node.kind != "index" and not is_deref:
                continue
            try:
                hit = self._access(node, consumed)
            except Undetermined as exc:
                decl = self._shared_under(node)
                if decl is not None:
                    unresolved.append(Unresolved(decl, node, exc.reason, _base_name(node)))
                continue
            if hit is None:
                continue
            decl, offset, indices, width = hit
            for op in self._ops(node):
                try:
                    found.append(self._finish(node, decl, op, width, offset, indices))
                except Undetermined as exc:
                    unresolved.append(Unresolved(decl, node, exc.reason, _base_name(node)))
                    break
        return found, unresolved

    def _shared_reference(self, ref: str) -> Node | None:
        """The shared element a reference variable is bound to (`MyMinLoc& mymin = minloc[threadIdx.x];`, a
        reduction's running value kept in LDS): its initializer, when that subscripts a shared array and the
        reference is bound once. None otherwise."""
        decl = self.view.decls.get(ref)
        if decl is None or not decl.type.rstrip().endswith("&") or len(decl.children) != 1:
            return None
        init = _peel(decl.children[0])
        return init if init.kind == "index" and self._shared_under(init) is not None else None

    def _reference_access(self, use: Node, element: Node, found: list[LdsAccess],
                          unresolved: list[Unresolved]) -> None:
        """A use of a reference to a shared element (`mymin.val = x[i]`) accesses that element where the use
        stands, under its loops and guards, with the width of the field it touches."""
        parent = self.view.parent(use)
        at = parent if parent is not None and parent.kind == "member" else use
        try:
            hit = self._access(element, set(), width_at=use)
            if hit is None:
                return
            decl, offset, indices, width = hit
            for op in self._ops(at):
                found.append(self._finish(use, decl, op, width, offset, indices))
        except Undetermined as exc:
            decl = self._shared_under(element)
            if decl is not None:
                unresolved.append(Unresolved(decl, use, exc.reason, _base_name(element)))

    def _helper_call(self, call: Node, found: list[LdsAccess], unresolved: list[Unresolved]) -> None:
        """The accesses a header helper (a function or a member function) makes through the shared pointers this
        call passes it, at the call: the helper's body is walked with its parameters bound to this call's
        arguments (pointers to the caller's arrays, integers to the caller's lane expressions), with the
        caller's loops and guards around it."""
        helper = self.fv.helper(call)
        local = helper is None
        if local:
            helper = self._file_helper(call)
        if helper is None or (self.frame is not None and self.frame.depth >= MAX_HELPER_DEPTH):
            return
        args = call_args(call)
        if not any(self._shared_under(a) is not None for a in args):
            return
        bound = {p.name: a for p, a in zip(helper.fn.params, args) if p.name}
        walker = AccessWalker(self.ctx, helper, self.block, self.wave_size, _CallFrame(self, call, bound))
        accs, unres = walker.accesses()
        where = f"in '{helper.fn.name}'"
        if local:
            # the file's own helper: its accesses stay on its lines (where the file is read and reported), judged
            # with this call's arrays and lane values; the worst over its calls is what is reported there. One
            # at just the address the call hands it (a sort's `swap(&v[pos], &v[pos + stride])`) has its lanes
            # from the call's arguments: it is the call's, reported there as a header helper's is
            for a in accs:
                arg = bound.get(a.written)
                if arg is not None and _at_the_argument(a.node, a.written):
                    found.append(replace(a, node=call, written=_base_name(arg), via=a.via or f"{where} at "
                                                                                            f"{_short(a.node)}"))
                else:
                    found.append(replace(a, via=a.via or f"as called at line {call.loc.line}"))
            unresolved.extend(replace(u, via=u.via or f"as called at line {call.loc.line}") for u in unres)
            return
        for a in accs:
            arg = bound.get(a.written)
            found.append(replace(a, node=call, written=_base_name(arg) if arg is not None else a.written,
                                 via=a.via or f"{where} at {_short(a.node)}"))
        for u in unres:
            arg = bound.get(u.written)
            unresolved.append(replace(u, node=call, written=_base_name(arg) if arg is not None else u.written,
                                      via=u.via or f"{where} at {_short(u.node)}"))

    def _block_copy(self, call: Node, found: list[LdsAccess], unresolved: list[Unresolved]) -> None:
        """memcpy / memset of N constant bytes to or from a shared pointer: each lane moves N bytes from its own
        address, which the compiler emits as N / w accesses of w bytes each, w no wider than the pointer's
        element (the alignment it can rely on) nor than 16 (ds_write_b128): one access per piece, at the call."""
        args = call_args(call)
        *pointers, count = args[:3] if len(args) >= 3 else (None,)
        size = self.view.const(count) if count is not None else None
        for pos, arg in enumerate(pointers):
            op = "write" if pos == 0 else "read"
            decl = self._shared_under(arg)
            if (call.op in _FILLS and pos) or decl is None:
                continue
            try:
                p = self._pointer(_peel(arg), 0)
                if p is None:
                    continue
                align = int(p.pointee) if p.pointee and not isinstance(p.pointee, _Dependent) else 0
                if not isinstance(size, int) or size <= 0 or not align:
                    raise Undetermined(f"'{call.op}' of {size if isinstance(size, int) else 'unknown'} bytes "
                                       "through a pointer of unknown element size", call)
                width = min(16, align & -align, size & -size)
                for k in range(size // width):
                    found.append(self._finish(call, p.decl, op, width, _add(p.offset, k * width), None,
                                              written_at=arg))
            except Undetermined as exc:
                unresolved.append(Unresolved(decl, call, exc.reason, _base_name(arg)))

    def _file_helper(self, call: Node) -> FunctionView | None:
        """The device function of this file a call runs, when it is one function (not a template's several); a
        call that libclang left unresolved names it when the argument count matches too."""
        targets = self.fv.targets(call) if call.kind == "call" else []
        if len(targets) != 1 or targets[0] is self.view or targets[0].fn.kind not in ("device", "host_device"):
            return None
        return targets[0] if call.ref or _dependent_call_of(call, targets[0].fn) else None

    def _bound_arg(self, ref: Node) -> Node | None:
        """The argument the call being walked passes for the helper parameter `ref` names (None when this is not
        a helper walked for a call, or `ref` is not one of its never-assigned parameters)."""
        if self.frame is None or ref.kind != "ref" or ref.op not in self.frame.args:
            return None
        return self.frame.args[ref.op] if self._unassigned(ref) else None

    def _derefs_of_params(self) -> list[ParamDeref]:
        """This function's reads and writes through its own (never reassigned) pointer parameters, at a constant
        subscript or one that is an integer parameter; what a call site needs to judge the access."""
        out: list[ParamDeref] = []
        for node in self.view.nodes():
            if node.kind == "unop" and node.op == "*" and node.children:
                ptr, sub = _peel(node.children[0]), None
            elif node.kind == "index" and len(node.children) == 2:
                ptr, sub = _peel(node.children[0]), node.children[1]
            else:
                continue
            base = _peel(ptr.children[0]) if ptr.kind == "cast" and ptr.children else ptr
            pos = self._param(base, pointer=True)
            if pos is None:
                continue
            index = self.view.const(sub) if sub is not None else 0
            index_param = self._param(strip(sub), pointer=False) if sub is not None else None
            if not isinstance(index, int) and index_param is None:
                continue
            try:
                width = self._width(node, ptr, _SCALAR_BYTES.get(node.type.replace("const", "").strip(), 0))
            except Undetermined:
                continue
            step = int(ptr.ref) if ptr.kind == "cast" and ptr.ref else width
            for op in self._ops(node):
                out.append(ParamDeref(pos, op, width, step, index if isinstance(index, int) else None, index_param))
        return out

    def _param(self, node: Node, pointer: bool) -> int | None:
        """The position of the parameter `node` names, when the function never assigns it."""
        params = self.view.fn.params
        pos = next((i for i, p in enumerate(params) if p.name == node.op), None) if node.kind == "ref" else None
        if pos is None or not self._unassigned(node):
            return None
        return pos if ("*" in params[pos].type) == pointer else None

    def _unassigned(self, ref: Node) -> bool:
        """`ref` names a variable this function never declares again, assigns or changes in place (a parameter
        keeps its value)."""
        return ref.ref not in self.view.decls and ref.ref not in self.mutations and not self.view.defs.get(ref.ref)

    def _consume_chain(self, node: Node, consumed: set[int]) -> None:
        cur = node
        while True:
            cur = _peel(cur)
            if cur.kind == "index" and len(cur.children) == 2:
                consumed.add(id(cur))
                cur = cur.children[0]
            elif cur.kind == "cast" and cur.children:
                cur = cur.children[0]
            elif cur.kind == "unop" and cur.op == "&" and cur.children:
                cur = cur.children[0]
            elif cur.kind == "binop" and cur.op in ("+", "-") and cur.children:
                cur = cur.children[0]
            else:
                return

    def _shared_under(self, node: Node, depth: int = 0) -> SharedDecl | None:
        """The shared array an expression's base names, directly or through a local pointer."""
        for n in node.walk():
            if n.kind == "ref":
                if n.ref in self.decls:
                    return self.decls[n.ref]
                arg = self._bound_arg(n)
                if arg is not None and self.frame is not None:
                    hit = self.frame.caller._shared_under(arg, depth + 1)
                    if hit is not None:
                        return hit
                if depth < 4 and "*" in n.type:
                    for d in self.view.defs.get(n.ref, []):
                        hit = self._shared_under(d, depth + 1)
                        if hit is not None:
                            return hit
                    if n.ref in self.view.decls and not self.view.defs.get(n.ref):
                        try:
                            p = self._set_by_call(n, depth)
                        except Undetermined:
                            p = None
                        if p is not None:
                            return p.decl
                    elif n.ref not in self.view.decls and self._param(n, pointer=True) is not None:
                        hit = self._parameter_array(n, depth)
                        if hit is not None:
                            return hit
        return None

    def _parameter_array(self, param: Node, depth: int) -> SharedDecl | None:
        """The shared array a pointer parameter stands for (its callers' array, or the parameter taken for shared
        memory), once per parameter and walker: every access and call through it asks."""
        if param.ref not in self._parameter_arrays:
            try:
                p = self._argument(param, depth)
            except Undetermined:
                p = None
            self._parameter_arrays[param.ref] = p.decl if p is not None else None
        return self._parameter_arrays[param.ref]

    def _ops(self, node: Node) -> list[str]:
        """read, write, or both (compound assignment, ++)."""
        child, parent = node, self.view.parent(node)
        while parent is not None and parent.kind == "cast" and parent.op == "implicit":
            child, parent = parent, self.view.parent(parent)
        if parent is not None and parent.children and parent.children[0] is child:
            if parent.kind == "binop" and parent.op == "=":
                return ["write"]
            if parent.kind == "binop" and parent.op in _COMPOUND:
                return ["read", "write"]
            if parent.kind == "unop" and parent.op in ("++", "--", "post++", "post--"):
                return ["read", "write"]
            if parent.kind in ("call", "mcall") and parent.op.startswith("operator"):
                # vector types (float4, half2) assign through C++ operators
                op = parent.op[len("operator"):].strip()
                if op == "=":
                    return ["write"]
                if op in _COMPOUND:
                    return ["read", "write"]
        return ["read"]

    def _access(self, node: Node, consumed: set[int], width_at: Node | None = None
                ) -> tuple[SharedDecl, Expr, tuple[Expr, ...] | None, int] | None:
        """(array, byte offset, element indices or None, width) when `node` reads or writes a shared array; the width
        is a _Dependent when the element size is a template parameter (the offset then holds its `sizeof:` symbol).
        `width_at`: where the access is made when that is not `node` (a reference's use, see _reference_access)."""
        subs: list[Node] = []
        chain: list[Node] = []
        cur = node
        if cur.kind == "unop":  # *p
            subs.append(Node("int", value=0))
            cur = cur.children[0]
        else:
            while True:
                cur = _peel(cur)
                if cur.kind == "index" and len(cur.children) == 2:
                    chain.append(cur)
                    subs.append(cur.children[1])
                    cur = cur.children[0]
                else:
                    break
        subs.reverse()
        base = self._pointer(cur, 0)
        if base is None:
            return None
        for c in chain:
            consumed.add(id(c))
        self._consume_chain(cur, consumed)
        decl = base.decl
        dims = decl.dims
        if not dims:
            return None  # a scalar: every lane reads the same dword
        elem = decl.elem_bytes or 0
        whole = base.indices == () and base.depth == 0 and not isinstance(base.pointee, _Flat)
        open_rows = self._open_element(decl, rows=True) if not elem and whole and len(subs) == len(dims) else None
        if open_rows is not None and all(d is not None for d in dims[1:]):
            # T tile[16][17] of an open T: the row-major element index, in steps of sizeof(T)
            linear: Expr = 0
            for k, e in enumerate(self.expr(s) for s in subs):
                linear = _add(linear, _mul(e, prod(dims[k + 1:])))  # type: ignore[arg-type]
            for c in chain:
                consumed.add(id(c))
            self._consume_chain(cur, consumed)
            return decl, _scale(linear, open_rows), None, open_rows
        if not elem and (whole or base.pointee is None):
            raise Undetermined(f"element size of '{decl.name}' is unknown", node)
        if whole and len(subs) < len(dims):
            return None  # a partial subscript (a row used as a pointer) is not an access
        offset: Expr = base.offset
        indices: tuple[Expr, ...] | None = None
        sub_exprs = [self.expr(s) for s in subs]
        if whole:
            # arr[i][j]...: a subscript per dimension
            if len(subs) > len(dims):
                raise Undetermined(f"{len(subs)} subscripts on a {len(dims)}-D array", node)
            strides = _strides(dims, elem)
            if strides is None:
                raise Undetermined(f"extents of '{decl.name}' are not constant", node)
            for s, e in zip(strides, sub_exprs):
                offset = _add(offset, _mul(e, s))
            indices = tuple(sub_exprs)
        else:
            if len(subs) != 1 or base.pointee is None:
                raise Undetermined("subscript on a reinterpreted or aliased pointer of unknown element size",
                                   node)
            if isinstance(base.pointee, _Dependent):  # one element of the open type: the pointee is the width
                return decl, _add(offset, _scale(sub_exprs[0], base.pointee)), None, base.pointee
            step = int(base.pointee)
            offset = _add(offset, _mul(sub_exprs[0], step))
            if base.indices and step % elem == 0 and step > elem:
                # reinterpret_cast<T*>(&arr[i][j])[k]: still indexed through arr's subscripts
                indices = base.indices[:-1] + (_add(base.indices[-1], _mul(sub_exprs[0], step // elem)),)
        # In a template pattern the subscript's type can be dependent (arr[ncols][32]) while the element type is
        # known: a full subscript reads one element, a pointer subscript one pointee.
        fallback = elem if whole and len(subs) == len(dims) else \
            int(base.pointee) if not whole and len(subs) == 1 and base.pointee is not None else 0
        width = self._width(width_at or node, cur, fallback)
        return decl, offset, indices, width

    def _width(self, node: Node, base: Node, fallback: int = 0) -> int:
        parent = self.view.parent(node)
        while parent is not None and parent.kind == "cast" and parent.op == "implicit":
            parent = self.view.parent(parent)
        if parent is not None and parent.kind == "member":
            size = _SCALAR_BYTES.get(parent.type.replace("const", "").strip())
            if size:
                return size
        if node.kind == "index" and node.ref:
            width = int(node.ref)
        else:  # *p: the pointee of the pointer cast
            p = _peel(base)
            width = int(p.ref) if p.kind == "cast" and p.ref else 0
        width = width or fallback
        if width > 16 and width % 16 == 0:
            # a whole 32-byte slot (double4): clang emits one 16-byte access per half, and the second half is the
            # first one's banks shifted by 4 for every lane, so the first 16-byte access has the slot's degree
            width = 16
        if width not in (1, 2, 4, 8, 16):
            raise Undetermined(f"an access of {width or 'unknown'} bytes per lane is split into several LDS "
                               "instructions; not modelled", node)
        return width

    def _pointer(self, node: Node, depth: int) -> _Ptr | None:
        """What a pointer- or array-valued expression points at inside a shared array."""
        if depth > MAX_DEPTH:
            raise Undetermined("pointer defined through too many steps", node)
        n = node
        arg = self._bound_arg(n)
        if arg is not None and self.frame is not None:
            return self.frame.caller._pointer(arg, depth + 1)
        if n.kind == "ref":
            decl = self.decls.get(n.ref)
            if decl is not None:
                if not decl.dims:
                    return None
                element = self._open_element(decl)
                if element is not None:
                    return _Ptr(decl, 0, element, None, 0)
                strides = _strides(decl.dims, decl.elem_bytes or 0)
                pointee = strides[0] if strides else None
                return _Ptr(decl, 0, pointee, (), 0)
            defs = self.view.defs.get(n.ref, [])
            if len(defs) == 1 and n.ref not in self.mutations:
                p = self._pointer(defs[0], depth + 1)
                if p is not None:
                    # through an alias the subscripts no longer follow the array's rows
                    return replace(p, indices=None, pointee=_flat(p.pointee) if p.pointee is not None else None)
                return None
            if defs:
                raise Undetermined(f"pointer '{n.op}' is assigned more than once", node)
            if n.ref in self.view.decls:
                return self._set_by_call(n, depth)
            return self._argument(n, depth)
        if n.kind == "cast" and n.children:
            p = self._pointer(n.children[0], depth + 1)
            if p is None:
                return None
            if n.op == "implicit":
                return p
            pointee: int | None = int(n.ref) if n.ref else self._dependent_pointee(n)
            flat = p.indices is None or p.indices == ()
            return replace(p, pointee=_flat(pointee) if flat and pointee is not None else pointee,
                           indices=None if flat else p.indices)
        if n.kind == "unop" and n.op == "&" and n.children:
            inner = _peel(n.children[0])
            subs: list[Node] = []
            while inner.kind == "index" and len(inner.children) == 2:
                subs.append(inner.children[1])
                inner = _peel(inner.children[0])
            subs.reverse()
            p = self._pointer(inner, depth + 1)
            if p is None:
                return None
            if p.indices != () or p.depth:
                if len(subs) == 1 and p.pointee is not None:
                    # &p[k] of an open element is still a pointer to it (libclang gives no size for it)
                    same = p.pointee if isinstance(p.pointee, _Dependent) else None
                    return replace(p, offset=_add(p.offset, _scale(self.expr(subs[0]), p.pointee)),
                                   indices=None, pointee=_Flat(int(n.ref)) if n.ref else same)
                return None
            decl = p.decl
            strides = _strides(decl.dims, decl.elem_bytes or 0)
            if strides is None or len(subs) > len(decl.dims):
                raise Undetermined(f"extents of '{decl.name}' are not constant", node)
            offset: Expr = 0
            exprs = [self.expr(s) for s in subs]
            for s, e in zip(strides, exprs):
                offset = _add(offset, _mul(e, s))
            full = len(subs) == len(decl.dims)
            pointee = decl.elem_bytes if full else strides[len(subs)]
            return _Ptr(decl, offset, pointee, tuple(exprs) if full else None, 0 if full else len(subs))
        if n.kind == "index" and len(n.children) == 2:
            # arr[i] of a multi-dimensional array used as a pointer to its row
            subs = []
            inner = n
            while inner.kind == "index" and len(inner.children) == 2:
                subs.append(inner.children[1])
                inner = _peel(inner.children[0])
            subs.reverse()
            p = self._pointer(inner, depth + 1)
            if p is None or p.indices != ():
                return None
            decl = p.decl
            strides = _strides(decl.dims, decl.elem_bytes or 0)
            if strides is None or len(subs) >= len(decl.dims):
                return None
            offset = 0
            for s, e in zip(strides, subs):
                offset = _add(offset, _mul(self.expr(e), s))
            return _Ptr(decl, offset, _Flat(strides[len(subs)]), None, len(subs))
        if n.kind in ("call", "mcall") and not call_args(n):
            return self._returned(n, depth)
        if n.kind == "binop" and n.op in ("+", "-") and len(n.children) == 2:
            p = self._pointer(n.children[0], depth + 1)
            if p is None or p.pointee is None:
                return None
            step = _scale(self.expr(n.children[1]), p.pointee)
            return replace(p, offset=_add(p.offset, step if n.op == "+" else ("neg", step)),
                           indices=None, pointee=_flat(p.pointee))
        return None

    def _set_by_call(self, ref: Node, depth: int) -> _Ptr | None:
        """A local pointer declared without a value that the function hands by reference to a device function of
        the file which sets it once (`void alloc(int*& p) { __shared__ int a[256]; p = a; }`): what that
        function sets it to, when that is the same address in every thread. Handed by reference to anything
        else, it is not followed."""
        found: _Ptr | None = None
        for call in self.view.calls():
            for pos, arg in enumerate(call_args(call)):
                if strip(arg).kind != "ref" or strip(arg).ref != ref.ref:
                    continue
                target = self._file_helper(call)
                params = target.fn.params if target is not None else ()
                if pos < len(params) and "&" not in params[pos].type:
                    continue  # passed by value: the call cannot set it
                if found is not None or pos >= len(params) or not params[pos].type.replace(" ", "").endswith("*&"):
                    return None
                sets = [n.children[1] for n in target.nodes()
                        if n.kind == "binop" and n.op == "=" and len(n.children) == 2
                        and strip(n.children[0]).kind == "ref" and strip(n.children[0]).op == params[pos].name
                        and strip(n.children[0]).ref not in target.decls]
                if len(sets) != 1:
                    return None
                p = AccessWalker(self.ctx, target, self.block, self.wave_size)._pointer(sets[0], depth + 1)
                if p is None or symbols(p.offset):
                    return None
                found = p
        return found

    def _returned(self, call: Node, depth: int) -> _Ptr | None:
        """What an argument-less device function returns when that is a pointer into shared memory
        (`SharedMemory<T>::getPointer()` returning its `extern __shared__` array, CUDA samples' `operator T*()`):
        the array at the returned offset, read as a flat pointer. A call that depends on a template parameter may
        run any function of its name: every one must return a shared pointer at the same offset, and where their
        element sizes differ, the pointee is the pattern's open element limited to those sizes. A temporary of a
        class in a pattern (`T *p = SharedArray<T>();`, the call unnamed) runs one of the class's pointer
        conversions; one of the class template itself (`return (T*)smem;` for any T) leaves the element's size
        open."""
        found: list[_Ptr] = []
        converted = not call.op
        for target in self.fv.conversions(call) if converted else self.fv.targets(call):
            if target.fn.kind not in ("device", "host_device") or target is self.view:
                return None
            returned = [r.children[0] for r in target.nodes() if r.kind == "return" and r.children]
            if not returned:
                return None
            walker = AccessWalker(self.ctx, target, self.block, self.wave_size)
            for expr in returned:
                p = walker._pointer(expr, depth + 1)
                if p is None or (p.pointee is None and not converted) or symbols(p.offset):
                    return None  # not shared memory, or an address that depends on more than the array
                found.append(p)
        if not found or any(p.offset != found[0].offset for p in found):
            return None
        any_size = any(p.pointee is None for p in found)
        types = () if any_size else tuple(sorted({(int(p.pointee), p.decl.elem_type) for p in found
                                                  if p.pointee is not None}))
        if len({size for size, _ in types}) == 1:
            return replace(found[0], indices=None, pointee=_Flat(types[0][0]), depth=0)
        declared = self.view.parent(call)
        name = declared.type.replace("const", "").rstrip(" *") if declared is not None else ""
        if not self.view.fn.is_template or not (converted or "dependent" in call.type) or not name.isidentifier():
            return None
        return replace(found[0], indices=None, pointee=self._open(self.view.fn, name, types), depth=0)

    def _open_element(self, decl: SharedDecl, rows: bool = False) -> _Dependent | None:
        """A 1-D array whose element type is a template parameter of the pattern that declares it (`extern
        __shared__ acc_t smem[]` in a template the file never instantiates): read as a flat pointer to the open
        element, whose size comes from the file's evidence (see _open). One of a class template's parameters (a
        kernel that is a static member of `reduction<T, F>`) has no such evidence in the file. `rows`: a
        multi-dimensional array too (`T tile[16][17]`, read only through full subscripts, see _access)."""
        if decl.elem_bytes or (len(decl.dims) != 1 and not rows):
            return None
        fn = self.view.fn if decl.function == self.view.fn.usr else self.facts.function(decl.function)
        name = decl.elem_type.replace("const", "").replace("volatile", "").strip()
        if fn is not None and fn.is_template and name in fn.template_params:
            return self._open(fn, name)
        return _Dependent(name) if decl.elem_param and name.isidentifier() else None

    def _open(self, fn: Function, name: str, types: tuple[tuple[int, str], ...] = ()) -> _Dependent:
        """The open element `name` of pattern `fn`, with the types the code allows (`types`, a getter's
        specializations) or else the ones the file instantiates or launches it with."""
        return _Dependent(name, types or element_evidence(self.facts, fn, name))

    def _dependent_pointee(self, cast: Node) -> _Dependent | None:
        """In a template pattern, a cast to `T*` whose size libclang cannot give: T is a template parameter."""
        name = cast.type.replace("const", "").strip()
        if not self.view.fn.is_template or not name.endswith("*"):
            return None
        name = name[:-1].strip()
        return self._open(self.view.fn, name) if name.isidentifier() else None

    def _argument(self, param: Node, depth: int) -> _Ptr | None:
        """A pointer parameter of a device function that every call site in the file binds to the same shared
        array, at an offset that is a function of the thread index only (the caller's thread is this thread)."""
        fn = self.view.fn
        names = [p.name for p in fn.params]
        if fn.kind == "kernel" or self.frame is not None or param.op not in names or param.ref in self.view.decls:
            return None  # a helper walked for one call: what that call does not bind is not shared
        pos = names.index(param.op)
        found: _Ptr | None = None
        sites = list(_call_sites(self.fv, fn.usr))
        if unknown_memory(self.ctx, fn.usr, pos):
            return self._uncalled_shared(pos)  # no caller in the file says what memory it is
        for caller, args in sites:
            if pos >= len(args):
                return None
            p = AccessWalker(self.ctx, caller, self.block, self.wave_size)._pointer(args[pos], depth + 1)
            if p is None:
                return None
            if any(not s.startswith(("tid.", "bdim.", "u:", SIZEOF_PREFIX)) for s in symbols(p.offset)):
                raise Undetermined(f"the shared pointer passed as '{param.op}' depends on a loop of the caller",
                                   param)
            p = replace(p, offset=_substitute(p.offset, {s: 0 for s in symbols(p.offset) if s.startswith("u:")}))
            if p.indices != () or p.depth or p.offset != 0:
                p = replace(p, indices=None, pointee=_flat(p.pointee) if p.pointee is not None else None)
            if found is not None and (found.decl.ref, found.offset) != (p.decl.ref, p.offset):
                raise Undetermined(f"'{param.op}' is bound to different shared addresses by its callers", param)
            found = p
        return found

    def _communicating_params(self) -> frozenset[int]:
        """See communicating_params()."""
        fn = self.view.fn
        if fn.kind not in ("device", "host_device") or fn.body is None or \
                not any(n.kind == "call" and n.op in BARRIERS for n in fn.body.walk()):
            return frozenset()
        writes: dict[int, set[tuple]] = {}
        reads: dict[int, set[tuple]] = {}
        for node in self.view.nodes():
            if node.kind == "index" and len(node.children) == 2:
                ptr, sub = node.children[0], node.children[1]
            elif node.kind == "unop" and node.op == "*" and node.children:
                ptr, sub = node.children[0], None
            else:
                continue
            moved = self._moved_param(ptr)
            if moved is None:
                continue
            pos, by_thread = moved
            ops = self._ops(node)
            # in a loop the same spelling can name another thread's element on the next iteration (a bitonic step)
            looped = any(a.kind in ("for", "while", "do") for a in self.view.ancestors(node))
            where = ("loop", id(node)) if looped else _form(node.children[0] if sub is None else sub)
            if "write" in ops and (by_thread or (sub is not None and self.view.depends_on_thread(sub))):
                writes.setdefault(pos, set()).add(where)
            if "read" in ops:
                reads.setdefault(pos, set()).add(where)
        # a thread that reads back only the elements it wrote itself, outside loops (`a[2 * tid] = temp[2 * tid] +
        # a[2 * tid]` on a global array updated in place) exchanges nothing through the pointer
        return frozenset(pos for pos, at in writes.items() if reads.get(pos, set()) - at)

    def _moved_param(self, ptr: Node) -> tuple[int, bool] | None:
        """(position, whether the offset differs between threads) when the pointer `ptr` is one of this function's
        never-assigned pointer parameters, cast or moved by an offset, directly or through a local pointer defined
        once that way (`T* const mine = buf + threadIdx.x;` then `*mine = v`, `T* all = (T*)buf;` handed on:
        Kokkos' block reductions)."""
        base, by_thread, aliased = ptr, False, False
        while True:
            base = _peel(base)
            if base.kind == "cast" and base.children:
                base = base.children[0]
            elif base.kind == "binop" and base.op in ("+", "-") and len(base.children) == 2:
                by_thread |= self.view.depends_on_thread(base.children[1])
                base = base.children[0]
            elif base.kind == "ref" and not aliased and base.ref in self.view.decls and \
                    not self.mutations.get(base.ref) and len(self.view.defs.get(base.ref, [])) == 1:
                base, aliased = self.view.defs[base.ref][0], True
            else:
                break
        pos = self._param(base, pointer=True)
        return (pos, by_thread) if pos is not None else None

    def _uncalled_shared(self, pos: int) -> _Ptr | None:
        """A pointer parameter of a device function nobody in the file calls (a header's block reduction analyzed
        on its own), taken for shared memory when the function exchanges values between threads through it:
        it writes through the pointer at a thread-dependent index, waits at __syncthreads() and reads through it
        again. What the pointee is then comes from the parameter's type; a template parameter stays open."""
        param = self.view.fn.params[pos]
        if pos not in communicating_params(self.ctx, self.view):
            return None
        pointee, canonical = (t.replace("const", "").replace("__restrict__", "").strip()[:-1].strip()
                              for t in (param.type, param.canonical))
        # a typedef of a scalar (`typedef int pfx_dtype`) has the size of the type it names
        size = _SCALAR_BYTES.get(pointee) or _SCALAR_BYTES.get(canonical)
        # a member of a class template has no template parameters of its own, but its parameter's canonical type
        # says the pointee depends on the class's (`Scalar*` = `typename type-parameter-0-0::value_type *`)
        dependent = self.view.fn.is_template or DEPENDENT_TYPE in param.canonical
        step: int | None = _Flat(size) if size else \
            self._open(self.view.fn, pointee) if dependent and pointee.isidentifier() else None
        if step is None:
            return None
        decl = SharedDecl(function=self.view.fn.usr, name=param.name, ref=f"{PARAM_REF}{self.view.fn.usr}:{param.name}",
                          elem_type=pointee, elem_bytes=size, dims=(None,), total_bytes=None, is_extern=True,
                          loc=self.view.fn.loc)
        return _Ptr(decl, 0, step, None)

    # -- expressions
    def expr(self, node: Node, depth: int = 0) -> Expr:
        """The value of an integer expression as an Expr; raises Undetermined."""
        if depth > MAX_DEPTH:
            raise Undetermined("value defined through too many steps", node)
        if node.value is not None and node.kind != "float":
            return int(node.value)
        k = node.kind
        if k == "cast" and node.children:
            return self.expr(node.children[0], depth + 1)
        if k == "member" and node.children:
            base = strip(node.children[0])
            if base.kind == "ref" and base.op in _DIM_SYMBOL and node.op in ("x", "y", "z"):
                return f"{_DIM_SYMBOL[base.op]}.{node.op}"
            if base.kind == "ref" and base.op in _UNIFORM_DIMS:
                return f"u:{base.op}.{node.op}"
            root = self._kernel_argument(base)
            if root:
                return f"u:{root}.{node.op}"  # `params.seqlen`: a field of a kernel argument, one value per launch
            field = self._constructed_field(base, node.op)
            if field is not None:
                return self.expr(field, depth + 1) if isinstance(field, Node) else field
            raise Undetermined(f"value of member '{node.op}'", node)
        if k == "ref":
            return self._ref(node, depth)
        if k == "binop" and len(node.children) == 2 and node.op in _BINOPS:
            return (node.op, self.expr(node.children[0], depth + 1), self.expr(node.children[1], depth + 1))
        if k == "unop" and node.children:
            a = self.expr(node.children[0], depth + 1)
            if node.op == "-":
                return ("neg", a)
            if node.op in ("~", "!"):
                return (node.op, a)
            if node.op == "+":
                return a
        if k == "cond" and len(node.children) == 3:
            c, a, b = (self.expr(ch, depth + 1) for ch in node.children)
            return ("?:", c, a, b)
        if k in ("call", "mcall"):
            args = [ch for ch in node.children if ch.kind != "default"]
            if node.op in ("min", "max", "umin", "umax", "__min", "__max") and len(args) == 2:
                a, b = (self.expr(x, depth + 1) for x in args)
                return ("?:", ("<", a, b) if "min" in node.op else (">", a, b), a, b)
            if node.op in ("__mul24", "__umul24") and len(args) == 2:
                return ("*", self.expr(args[0], depth + 1), self.expr(args[1], depth + 1))
            if node.op in _BIT_INTRINSICS and len(args) == 1:
                return self._bit_count(node, self.expr(args[0], depth + 1))
            if node.op in _LOG2 and len(args) == 1:
                return self._log2(node, self.expr(args[0], depth + 1))
            if node.op in ("__lane_id",) and self.wave_size:
                return ("%", ("+", ("+", "tid.x", ("*", "tid.y", "bdim.x")), ("*", ("*", "tid.z", "bdim.y"), "bdim.x")),
                        self.wave_size)
            getter = self._getter(node)
            if getter is not None:
                return getter[0].expr(getter[1], depth + 1)
            raise Undetermined(f"the result of '{node.op}()'", node)
        if k == "index":
            raise Undetermined("an index loaded from memory", node)
        raise Undetermined(f"a '{k}' expression", node)

    def _bit_count(self, call: Node, arg: Expr) -> int:
        """__ffs / __popc / __clz (and their 64-bit forms) of a value the block fixes (`__ffs(blockDim.x)`, a
        histogram's lane-id shuffle): a constant of the block being analyzed; a per-thread argument is not
        followed."""
        try:
            return _bit_result(call.op, evaluate(arg, self.block_env))
        except EvalError:
            raise Undetermined(f"the result of '{call.op}()' of a value that is not the same in every lane",
                               call) from None

    def _log2(self, call: Node, arg: Expr) -> int:
        """log2 of a positive value the block fixes, as an integer index uses it (`(int)log2(BLOCKSIZE)`, a
        tree's level count): the floor of the logarithm."""
        try:
            v = evaluate(arg, self.block_env)
        except EvalError:
            v = 0
        if v <= 0:
            raise Undetermined(f"the result of '{call.op}()' of a value that is not a known positive constant", call)
        return v.bit_length() - 1

    def _getter(self, call: Node) -> "tuple[AccessWalker, Node] | None":
        """The one device function a call runs when its body only computes a value: local declarations, then one
        `return` (a lane-id getter `int getLaneId() { return __lane_id(); }`, an index helper
        `int at(int r, int c) { return r * LD + c; }`, a rounding division with a local): a walker of it whose
        parameters are this call's arguments (the helper runs in the caller's thread, so their values are the
        caller's lane expressions), and the returned expression. None for anything else."""
        targets = self.fv.targets(call) if call.kind == "call" else []
        if len(targets) != 1 or targets[0] is self.view or targets[0].fn.kind not in ("device", "host_device") or \
                targets[0].fn.body is None or (self.frame is not None and self.frame.depth >= MAX_HELPER_DEPTH):
            return None
        fn = targets[0].fn
        args = call_args(call)
        body = fn.body.children
        if len(args) != len(fn.params) or not body or body[-1].kind != "return" or not body[-1].children or \
                any(st.kind not in ("decl", "decls") for st in body[:-1]):
            return None
        bound = {p.name: a for p, a in zip(fn.params, args) if p.name}
        frame = _CallFrame(self, call, bound) if bound else None
        return AccessWalker(self.ctx, targets[0], self.block, self.wave_size, frame), body[-1].children[0]

    def _kernel_argument(self, node: Node) -> str:
        """The spelled path (`params`, `params.shape`) when `node` is a kernel parameter, or a field of one, that the
        kernel never assigns; "" otherwise."""
        fn = self.view.fn
        if fn.kind != "kernel":
            return ""
        if node.kind == "member" and node.children:
            root = self._kernel_argument(strip(node.children[0]))
            return f"{root}.{node.op}" if root else ""
        if node.kind == "ref" and any(p.name == node.op for p in fn.params) and self._unassigned(node):
            return node.op
        return ""

    def _constructed_field(self, base: Node, field: str) -> Node | int | None:
        """The x, y or z of a local `dim3 idx(tx + 1, ty + 1, tz + 1)` that is never changed afterwards: the
        constructor's argument for that field, 1 for one it leaves out (dim3's default). None otherwise."""
        if base.kind != "ref" or field not in ("x", "y", "z") or base.ref not in self.view.decls:
            return None
        defs = self.view.defs.get(base.ref, [])
        init = strip(defs[0]) if len(defs) == 1 else None
        if init is None or init.kind != "call" or init.op != "dim3" or base.ref in self.mutations:
            return None
        for n in self.view.nodes():  # `idx.x = ...`, `idx.x++` or `&idx`: the field is not the constructor's
            if n.kind in ("binop", "unop") and n.children and \
                    n.op in ("=", *_COMPOUND, "++", "--", "post++", "post--", "&"):
                target = strip(n.children[0])
                target = strip(target.children[0]) if target.kind == "member" and target.children else target
                if target.kind == "ref" and target.ref == base.ref and (n.op != "&" or n.kind == "unop"):
                    return None
        pos = "xyz".index(field)
        args = [a for a in init.children if a.kind != "default"]
        return args[pos] if pos < len(args) else 1

    def _ref(self, node: Node, depth: int) -> Expr:
        ref = node.ref
        arg = self._bound_arg(node)
        if arg is not None and self.frame is not None:
            return self.frame.caller.expr(arg, depth + 1)
        if builtin_width(self.view.facts, node):
            # the builtin: at run time it is the wavefront size, whether or not it is a compile-time constant
            if not self.wave_size:
                raise Undetermined("warpSize in an index (the target's wavefront size is not known)", node)
            return self.wave_size
        if node.op == TORCH_WAVE and not ref and self.wave_size == TORCH_ROCM_FIXED_WAVE:
            return self.wave_size  # PyTorch's macro without its header: every release's device value here
        loop = self._loop_of_var(node)
        if loop is not None:
            return loop.value
        for lp in self._enclosing_loops(node):
            if ref in lp.carried:
                after = lp.stepped.get(ref)
                return after[1] if after is not None and (node.loc.line, node.loc.col) >= after[0] else \
                    lp.carried[ref]
        defs = self.view.defs.get(ref, [])
        if ref in self.mutations and (settled := self._value_at(node, ref, depth)) is not None:
            return settled
        if (ref in self.mutations or len(defs) > 1) and self._uniform(ref, defs):
            self.changing[f"u:{node.op}"] = ref
            return f"u:{node.op}"  # e.g. a double-buffer index toggled by every thread alike
        if ref in self.mutations:
            value = self._stepped_value(node, defs, depth)
            if value is None:
                raise Undetermined(f"'{node.op}' changes in a way the model does not follow", node)
            return value
        if len(defs) == 1:
            return self.expr(defs[0], depth + 1)
        if len(defs) > 1:
            reaching = self._reaching_definition(node, defs)
            if reaching is not None:
                return self.expr(reaching, depth + 1)
            clamped = self._clamped(node, defs, depth)
            if clamped is None:
                raise Undetermined(f"'{node.op}' is assigned in several places", node)
            return clamped
        c = self.view.facts_global_const(ref)
        if isinstance(c, int):
            return c
        if ref in self.view.pinned:
            self.used_pins[node.op] = self.view.pinned[ref]
            return self.view.pinned[ref]
        if node.op and node.op == self.view.fn.block_param and ref not in self.view.decls:
            # __launch_bounds__(P) of a pattern: P threads is the block it is written for, the one analyzed here
            self.used_block_param = node.op
            return prod(self.block)
        if ref not in self.view.decls and _is_integer(node.type):
            value = self.launch_args.get(node.op)
            if value is None:
                return f"u:{node.op}"  # a kernel argument: the same in every lane
            self.used_args[node.op] = value  # ... and the same constant at every launch in the file
            return value
        raise Undetermined(f"the value of '{node.op}'", node)

    def _clamped(self, use: Node, defs: list[Node], depth: int) -> Expr | None:
        """A read after a guarded override that tests the variable itself, `if (right >= n) right = n - 1;` (an
        index clamped to the array's end, as cyclic reduction does): `cond ? value : before`, with the condition
        and `before` read at the `if` (its reaching definition there). None for other shapes."""
        d = self.view.definition_at(use.ref, use)
        assign = self.view.parent(d) if d is not None else None
        guard, child = None, assign
        for anc in self.view.ancestors(assign) if assign is not None and assign.kind == "binop" and \
                assign.op == "=" else ():
            if anc.kind == "block" and len(anc.children) == 1:
                child = anc
                continue
            if anc.kind == "if" and len(anc.children) == 2 and anc.children[1] is child:
                guard = anc
            break
        if guard is None or (guard.loc.line, guard.loc.col) > (use.loc.line, use.loc.col):
            return None
        reads = [n for n in guard.children[0].walk() if n.kind == "ref" and n.ref == use.ref]
        if not reads or self._reaching_definition(use, [x for x in defs if x is not d], guard) is None:
            return None
        return ("?:", self.expr(guard.children[0], depth + 1), self.expr(d, depth + 1), self._ref(reads[0], depth + 1))

    def _reaching_definition(self, use: Node, defs: list[Node], d: Node | None = None) -> Node | None:
        """The one assignment of a variable assigned in several places that every path to `use` last passes
        through (`ai = ...` of a scan's up-sweep, then another `ai = ...` in its down-sweep): the last one before
        the use when it stands unconditionally in a block that encloses the use, and no later one can come
        round to the use through a loop that does not also repeat it. None when that is not so. Given `d` (a
        statement, see _clamped), whether that statement is so."""
        statement = d is not None
        d = d if statement else self.view.definition_at(use.ref, use)
        if d is None or (d.loc.end_line or d.loc.line, d.loc.end_col or d.loc.col) > (use.loc.line, use.loc.col):
            return None
        around_use = {id(a): a for a in self.view.ancestors(use)}
        stmt, block = d, None
        for anc in self.view.ancestors(d):
            if id(anc) in around_use:
                block = anc
                break
            if _branches(anc):
                return None  # the assignment is conditional, or repeated, where the use is not
            stmt = anc
        if block is None or block.kind != "block" or (stmt is d and not statement):
            return None
        around_d = {id(a) for a in self.view.ancestors(d)}
        loops = [a for a in around_use.values() if a.kind in ("for", "while", "do") and id(a) not in around_d]
        for other in defs:
            if other is d or self._within(use, other):
                continue  # `m = (m < 0) ? 0 : m` reads the value from before it
            if (other.loc.line, other.loc.col) > (use.loc.line, use.loc.col):
                around_other = {id(a) for a in self.view.ancestors(other)}
                if any(id(lp) in around_other for lp in loops):
                    return None  # assigned again later in a loop that brings it back to the use
            elif (other.loc.line, other.loc.col) > (d.loc.line, d.loc.col):
                return None
        return d

    def _stepped_value(self, node: Node, defs: list[Node], depth: int) -> Expr | None:
        """The value a read of a local variable sees when the variable is declared with a value and then only
        stepped by compound assignments (`idx += warpSize`), each in straight-line code (under no branch or
        loop) and reading nothing of the variable itself: its initializer with the steps that end before the
        read. None otherwise, or when a step and the read overlap (`s[idx++]`)."""
        decl = self.view.decls.get(node.ref)
        steps = self.mutations[node.ref]
        if decl is None or len(defs) != 1 or not decl.children or decl.children[0] is not defs[0] \
                or not all(self._straight_line(n) for n in (decl, *steps)):
            return None
        value = self.expr(defs[0], depth + 1)
        at = (node.loc.line, node.loc.col)
        for step in sorted(steps, key=lambda n: (n.loc.line, n.loc.col)):
            end = (step.loc.end_line, step.loc.end_col)
            if (step.loc.line, step.loc.col) > at:
                break
            if end > at or not step.loc.end_line:
                return None
            if step.kind == "unop":
                value = ("+" if "++" in step.op else "-", value, 1)
                continue
            rhs = step.children[-1]
            if any(n.kind == "ref" and n.ref == node.ref for n in rhs.walk()):
                return None
            value = (_COMPOUND[step.op], value, self.expr(rhs, depth + 1))
        return value

    def _straight_line(self, node: Node) -> bool:
        """The statement runs once, in every thread that reaches the function's body: no branch, loop or
        short-circuit operand holds it."""
        return not any(a.kind in ("if", "for", "while", "do", "cond", "switch")
                       or (a.kind == "binop" and a.op in ("&&", "||")) for a in self.view.ancestors(node))

    @cached_property
    def launch_args(self) -> dict[str, int]:
        return launch_constants(self.fv, self.view.fn)  # only when an address reads a kernel argument

    def _uniform(self, ref: str, defs: list[Node]) -> bool:
        """A variable assigned several times is still the same in every lane when no assigned value reads the
        thread index and no assignment sits under a branch or loop whose condition does."""
        updates = [m.children[-1] for m in self.mutations.get(ref, []) if m.kind == "binop"]
        sites = defs + self.mutations.get(ref, [])
        if any(self.view.depends_on_thread(v) for v in defs + updates):
            return False
        for site in sites:
            for anc in self.view.ancestors(site):
                cond = anc.children[0] if anc.kind in ("if", "while") and anc.children else \
                    anc.children[1] if anc.kind == "for" and len(anc.children) == 4 else None
                if cond is not None and self.view.depends_on_thread(cond):
                    return False
        return True

    # -- loops
    def _enclosing_loops(self, node: Node) -> list[_Loop]:
        out = []
        child = node
        for anc in self.view.ancestors(node):
            if (anc.kind == "for" and len(anc.children) == 4 or anc.kind == "while" and len(anc.children) == 2) \
                    and anc.children[-1] is child:
                lp = self._loop(anc)
                if lp is not None:
                    out.append(lp)
            child = anc
        return out

    def _loop_of_var(self, node: Node) -> _Loop | None:
        child = node
        for anc in self.view.ancestors(node):
            if anc.kind == "for" and len(anc.children) == 4 and child is not anc.children[0]:
                if _loop_var(anc)[0] == node.ref:
                    lp = self._loop(anc)
                    if lp is None:
                        raise Undetermined(self._loop_error.get(id(anc), "loop not understood"), anc)
                    return lp
            child = anc
        return None

    def _loop(self, loop: Node) -> _Loop | None:
        key = id(loop)
        if key in self._loops:
            return self._loops[key]
        self._loops[key] = None
        try:
            self._loops[key] = self._build_while(loop) if loop.kind == "while" else self._build_loop(loop)
        except Undetermined as exc:
            self._loop_error[key] = f"loop at line {loop.loc.line}: {exc.reason}"
        return self._loops[key]

    def _build_loop(self, loop: Node) -> _Loop:
        init, cond, inc, body = loop.children
        var, name, start_node = _loop_var(loop)
        if not var or start_node is None:
            raise Undetermined("no counted loop variable")
        if any(any(a is body for a in self.view.ancestors(n)) for n in (*self.mutations.get(var, ()),
                                                                           *self.view.defs.get(var, ()))):
            # `for (d = 0; d < n; d <<= 1) { d += 1; ...}`: the header alone gives other values than the body sees
            raise Undetermined(f"'{name}' is also changed in the loop's body")
        depth = sum(1 for a in self.view.ancestors(loop) if a.kind == "for")
        sym = f"it{depth}@{loop.loc.line}"
        if self.frame is not None:  # a helper's loops live in another file: keep them apart from the caller's
            sym += f"/{self.frame.depth}"
        step = _step(inc, var)
        if step is None:
            raise Undetermined(f"the step of '{name}' is not a constant update")
        op, step_node = step
        step_e = self.expr(step_node)
        start_e = self.expr(start_node)
        bound: tuple[str, Expr] | None = None
        raw = _bound(cond, var)
        if raw is not None:
            try:
                bound = (raw[0], self.expr(raw[1]))
            except Undetermined:
                bound = None  # unknown trip count: the first iterations are sampled
        uniform_start = not (symbols(start_e) & {"tid.x", "tid.y", "tid.z"})
        if bound is not None and any(x.startswith("it") for x in symbols(bound[1])) and \
                not symbols(bound[1]) & {"tid.x", "tid.y", "tid.z"}:
            bound = None  # the same in every lane but changing with an enclosing loop: the first iterations
        outer = {x for e in (start_e, step_e, bound[1] if bound else 0) for x in symbols(e) if x.startswith("it")}
        # trip count: simulate with lane 0's values, at each sampled iteration of the enclosing loops it depends on
        env0 = {**self.block_env, "tid.x": 0, "tid.y": 0, "tid.z": 0}
        runs = [self._simulate(start_e, op, step_e, bound, {**env0, **env}) for env in self._outer_envs(loop, outer)]
        additive = op in ("+", "-") and not (symbols(step_e) & {"tid.x", "tid.y", "tid.z"})
        decoupled: frozenset[str] = frozenset()
        if additive:  # the value stays an expression of the enclosing loops' symbols; every run has these iterations
            values = min(runs, key=len)
            iters = _pick(len(values))
            value: Expr = (op, start_e, ("*", sym, step_e))
        elif uniform_start:
            # a triangular nest (a bitonic sort's stride = size / 2 down to 1 for each size): the values the
            # variable takes in any sampled run, no longer paired with the enclosing loops' (see _finish)
            values = list(dict.fromkeys(v for run in runs for v in run))
            iters = _pick(len(values))
            value = _chain(sym, [(i, values[i]) for i in iters])
            decoupled = frozenset(outer)
        else:
            raise Undetermined(f"'{name}' starts at a per-thread value and is not stepped by addition")
        lp = _Loop(node=loop, symbol=sym, var=var, name=name, iters=tuple(iters), value=value, decoupled=decoupled)
        if not outer:
            exact = bound is not None and not any(x.startswith("u:") for x in symbols(bound[1]))
            lp.carried, lp.stepped, lp.exits = self._carried(loop, lp, len(values), exact)
        return lp

    def _build_while(self, loop: Node) -> _Loop:
        """`v = 2; while (v <= N) { ...; v *= 2; }`: a loop counted by a variable the condition compares, set
        before the loop and stepped once per iteration in its body (a cyclic reduction's stride). Its values are
        simulated like a for loop's; the body's reads see them as a carried variable (see _carried)."""
        cond, body = loop.children
        for ref in dict.fromkeys(n.ref for n in cond.walk() if n.kind == "ref" and n.ref):
            raw = _bound(cond, ref)
            step = self._body_step(body, ref)
            start_e = self._value_at(loop, ref) if raw is not None and step is not None else None
            if start_e is None:
                continue
            step_e, limit_e = self.expr(step.children[1]), self.expr(raw[1])
            if any(x.startswith(("it", "tid.")) for e in (start_e, step_e, limit_e) for x in symbols(e)):
                raise Undetermined("a while loop whose start, step or bound changes with a lane or an outer loop")
            bound = None if any(x.startswith("u:") for x in symbols(limit_e)) else (raw[0], limit_e)
            env0 = {**self.block_env, "tid.x": 0, "tid.y": 0, "tid.z": 0}
            values = self._simulate(start_e, _COMPOUND[step.op], step_e, bound, env0)
            depth = sum(1 for a in self.view.ancestors(loop) if a.kind in ("for", "while"))
            sym = f"it{depth}@{loop.loc.line}" + (f"/{self.frame.depth}" if self.frame is not None else "")
            name = strip(step.children[0]).op
            iters = _pick(len(values))
            lp = _Loop(node=loop, symbol=sym, var="", name=name, iters=tuple(iters),
                       value=_chain(sym, [(i, values[i]) for i in iters]))
            lp.carried, lp.stepped, lp.exits = self._carried(loop, lp, len(values), bound is not None)
            return lp
        raise Undetermined("no counted loop variable")

    def _body_step(self, body: Node, ref: str) -> Node | None:
        """The one compound assignment (`v *= 2`) that changes `ref` in a loop's body, when it is a statement of
        the body itself (run once per iteration) and the body assigns `ref` nowhere else."""
        stmts = body.children if body.kind == "block" else (body,)
        inside = [m for m in self.mutations.get(ref, ()) if self._within(m, body)]
        if len(inside) != 1 or not any(inside[0] is st for st in stmts) or inside[0].kind != "binop" or \
                inside[0].op not in _COMPOUND or any(self._within(d, body) for d in self.view.defs.get(ref, ())):
            return None
        return inside[0]

    def _within(self, node: Node, outer: Node) -> bool:
        return any(a is outer for a in self.view.ancestors(node))

    def _value_at(self, at: Node, ref: str, depth: int = 0) -> Expr | None:
        """The value `ref` has where `at` (a loop, or a read) starts, from what last changed it before: its one
        definition when that and a step in the loop `at` are all it has; else the definition that last precedes
        `at` standing unconditionally in a block around it (`stride = N / 2;` before a down-sweep after an
        up-sweep), or the value a counted loop before `at` leaves it with (`for (j = 0; j < 8; j++) stride <<= 1;`
        then `s[stride * tid]`), when nothing else that changes `ref` runs between them or comes round in a loop
        around `at`. None otherwise."""
        defs = self.view.defs.get(ref, [])
        muts = self.mutations.get(ref, [])
        if at.kind in ("for", "while") and len(defs) == 1 and len(muts) == 1 and self._within(muts[0], at):
            return self._value_or_none(defs[0], depth)
        start = (at.loc.line, at.loc.col)
        sites = [(n.loc.line, n.loc.col, n) for n in (*defs, *muts) if not self._within(n, at)]
        before = [x for x in sites if x[:2] < start]
        if not before:
            return None
        last = max(before, key=lambda x: x[:2])[2]
        around_at = {id(a) for a in self.view.ancestors(at)}
        loop = next((a for a in self.view.ancestors(last) if a.kind in ("for", "while")), None)
        settled: Expr | None = None
        if any(last is d for d in defs):
            stmt = last
        elif loop is not None and id(loop) not in around_at and self._body_step(loop.children[-1], ref) is last \
                and (lp := self._loop(loop)) is not None and ref in lp.exits:
            stmt, settled = loop, lp.exits[ref]
        else:
            return None
        for anc in self.view.ancestors(stmt):
            if id(anc) in around_at:
                break
            if _branches(anc):
                return None
        loops = [a for a in self.view.ancestors(at) if a.kind in ("for", "while", "do")]
        if any(self._within(n, lp) for _, _, n in sites if n is not last for lp in loops):
            return None
        return settled if settled is not None else self._value_or_none(last, depth)

    def _value_or_none(self, node: Node, depth: int) -> Expr | None:
        try:
            return self.expr(node, depth + 1)   # the caller's depth: definitions can refer to each other in a cycle
        except Undetermined:
            return None  # a float accumulator, a loaded value: not an index this model follows

    def _outer_envs(self, loop: Node, outer: set[str]) -> list[dict[str, int]]:
        """Each combination of the sampled iterations of the enclosing loops named in `outer` ([{}] for none)."""
        if not outer:
            return [{}]
        enclosing = {lp.symbol: lp.iters for lp in self._enclosing_loops(loop) if lp.symbol in outer}
        if set(enclosing) != outer:
            raise Undetermined(f"the start, step or bound of '{_loop_var(loop)[1]}' depends on a loop the model "
                               "does not follow")
        names = sorted(enclosing)
        return [dict(zip(names, c)) for c in itertools.product(*(enclosing[n] for n in names))]

    def _simulate(self, start: Expr, op: str, step: Expr, bound: tuple[str, Expr] | None,
                  env: dict[str, int]) -> list[int]:
        try:
            v = evaluate(start, _zero_uniform(start, env))
            s = evaluate(step, _zero_uniform(step, env))
        except EvalError as exc:
            raise Undetermined(str(exc)) from None
        limit: int | None = None
        cmp = ""
        if bound is not None and not any(x.startswith("u:") for x in symbols(bound[1])):
            try:
                limit = evaluate(bound[1], env)
                cmp = bound[0]
            except EvalError:
                limit = None
        values: list[int] = []
        trips = MAX_TRIP if limit is not None else self._open_trip(op, v, s)
        while len(values) < trips:
            if limit is not None and not _holds(cmp, v, limit):
                break
            values.append(v)
            nv = _apply(op, v, s)
            if nv == v:
                break
            v = nv
        if not values:
            raise Undetermined("the loop body never runs with the block assumed")
        return values

    def _open_trip(self, op: str, start: int, step: int) -> int:
        """Iterations to sample of a loop whose bound is a runtime value: the first 4; for a variable that
        doubles (`d <<= 1`, a scan's down-sweep with `if (tid < d)`), as many as it takes to reach the block's
        thread count, past which a `tid < d` guard no longer changes which lanes run."""
        threads = prod(self.block)
        if op not in ("<<", "*") or start <= 0 or step <= 0 or (op == "*" and step < 2):
            return 4
        v, n = start, 1
        while v < threads and n < MAX_TRIP:
            v, n = _apply(op, v, step), n + 1
        return max(4, n)

    def _carried(self, loop: Node, lp: _Loop, trips: int, exact: bool
                 ) -> tuple[dict[str, Expr], dict[str, tuple[tuple[int, int], Expr]], dict[str, int]]:
        """Variables other than the loop's own stepped once per iteration by a constant (offset *= 2), from the
        value they enter the loop with (_value_at): their value in each sampled iteration, for a step that ends
        before the body does (`stride <<= 1;` at its top) the values the reads after it see, and when `trips` is
        the loop's exact trip count, the values it leaves them with."""
        out: dict[str, Expr] = {}
        after: dict[str, tuple[tuple[int, int], Expr]] = {}
        exits: dict[str, int] = {}
        body = loop.children[-1]
        for ref in self.mutations:
            if ref == lp.var:
                continue
            mut = self._body_step(body, ref)
            entry = self._value_at(loop, ref) if mut is not None else None
            if entry is None:
                continue
            try:
                start = evaluate(entry, self.block_env)
                step = evaluate(self.expr(mut.children[1]), self.block_env)
            except (Undetermined, EvalError):
                continue
            seq = [start]
            for _ in range(trips):
                seq.append(_apply(_COMPOUND[mut.op], seq[-1], step))
            out[ref] = _chain(lp.symbol, [(i, seq[i]) for i in lp.iters])
            if exact:
                exits[ref] = seq[trips]
            if mut.loc.end_line:
                after[ref] = ((mut.loc.end_line, mut.loc.end_col),
                              _chain(lp.symbol, [(i, seq[i + 1]) for i in lp.iters]))
        return out, after, exits

    # -- putting one access together
    def _finish(self, node: Node, decl: SharedDecl, op: str, width: int, offset: Expr,
                indices: tuple[Expr, ...] | None, written_at: Node | None = None) -> LdsAccess:
        loops = self._enclosing_loops(node)
        pred = self._predicate(node)
        frame = self.frame
        while frame is not None:  # a helper's access also runs under its callers' loops and guards
            loops = frame.caller._enclosing_loops(frame.call) + loops
            outer = frame.caller._predicate(frame.call)
            pred = outer if pred is None else pred if outer is None else ("&&", outer, pred)
            frame = frame.caller.frame
        samples = {lp.symbol: lp.iters for lp in loops}
        opened: dict[str, tuple[int, ...]] = {}
        offset = self._bind_uniform(offset, samples, node, opened)
        if indices is not None:
            indices = tuple(self._bind_uniform(i, samples, node, opened) for i in indices)
        used = symbols(offset) | (symbols(pred) if pred is not None else frozenset())
        for lp in loops:
            if lp.symbol in used and used & lp.decoupled:
                raise Undetermined(f"the address uses '{lp.name}' of a triangular loop nest together with the "
                                   "enclosing loop's variable; not modelled", node)
        samples = {k: v for k, v in samples.items() if k in used}
        names = tuple((lp.symbol, lp.name, lp.value) for lp in loops if lp.symbol in samples)
        element = width.type_name if isinstance(width, _Dependent) else ""
        return LdsAccess(decl=decl, node=node, op=op, width=0 if element else width, offset=offset, indices=indices,
                         predicate=pred, samples=samples, loop_vars=names,
                         written=_base_name(written_at if written_at is not None else node), element=element,
                         element_types=width.types if isinstance(width, _Dependent) else (),
                         open_values=tuple(sorted(opened.items())))

    def _bind_uniform(self, e: Expr, samples: dict[str, tuple[int, ...]], node: Node,
                      opened: dict[str, tuple[int, ...]]) -> Expr:
        """Replace runtime-uniform symbols by 0 when they only shift every lane equally; one that changes the lane
        pattern stays open (in `opened`, with the values it can take) when it is a power of two stepped by
        shifts (a scan's `offset <<= 1`), else the access is undetermined."""
        uni = sorted(s for s in symbols(e) if s.startswith("u:"))
        if not uni:
            return e
        shifts = {}
        for u in uni:
            if self._shift_only(e, u, samples):
                shifts[u] = 0
                continue
            values = self._powers_of_two(u)
            if not values:
                raise Undetermined(f"the lane pattern depends on the runtime value '{u[2:]}'", node)
            opened[u] = values
        return _substitute(e, shifts)

    def _powers_of_two(self, u: str) -> tuple[int, ...]:
        """The values a uniform variable can take when every assignment is a power-of-two constant and every
        change a shift, or a product or quotient by a power of two (`int offset = 1; ... offset <<= 1;` in the
        up-sweep and `offset >>= 1` in the down-sweep of a Blelloch scan): the powers of two from the smallest it
        can reach, MAX_SAMPLED_ITERS of them (a finding must hold at the least conflicted). () otherwise."""
        ref = self.changing.get(u)
        if ref is None:
            return ()
        starts: set[int] = set()
        for d in self.view.defs.get(ref, []):
            try:
                c = evaluate(self.expr(d), self.block_env)
            except (Undetermined, EvalError):
                return ()
            if c <= 0 or c & (c - 1):
                return ()
            starts.add(c)
        up = down = False
        for m in self.mutations.get(ref, []):
            if m.kind != "binop" or len(m.children) != 2 or m.op not in ("<<=", ">>=", "*=", "/="):
                return ()
            k = m.children[1].value
            if k is None or k <= 0 or (m.op in ("*=", "/=") and k & (k - 1)):
                return ()
            if m.op in ("<<=", "*="):
                up = True
            else:
                down = True
        if not starts:
            return ()
        lo = 1 if down else min(starts)
        hi = max(starts) << MAX_SAMPLED_ITERS if up else max(starts)
        return tuple(lo << k for k in range(MAX_SAMPLED_ITERS) if lo << k <= hi)

    def _shift_only(self, e: Expr, u: str, samples: dict[str, tuple[int, ...]]) -> bool:
        env = dict(self.block_env)
        for k, v in samples.items():
            env[k] = v[min(1, len(v) - 1)]
        for s in symbols(e):
            if s.startswith("u:"):
                env[s] = 0
            elif s.startswith(SIZEOF_PREFIX):
                env[s] = 4  # any size: a uniform value shifts every lane alike or not, whatever the element
        deltas = set()
        for t in ((0, 0), (1, 0), (5, 1), (17, 2), (33, 3)):
            env.update({"tid.x": t[0], "tid.y": t[1], "tid.z": 0})
            try:
                vals = [evaluate(e, {**env, u: x}) for x in (0, 1, 3)]
            except EvalError:
                return False
            deltas.add((vals[1] - vals[0], vals[2] - vals[0]))
        return len(deltas) == 1

    def _predicate(self, node: Node) -> Expr | None:
        """Conditions of enclosing if / ?: that decide which lanes run the access, when they are known."""
        conds: list[Expr] = []
        child = node
        for anc in self.view.ancestors(node):
            if anc.kind in ("if", "cond") and len(anc.children) >= 2 and anc.children[0] is not child:
                taken = anc.children[1] is child
                # on the taken side of `a && b` every conjunct holds: the known ones narrow the active lanes
                # (unknown ones are left out, which keeps lanes that may be inactive, never the reverse)
                for part in _conjuncts(anc.children[0]) if taken else (anc.children[0],):
                    try:
                        c = self.expr(part)
                    except Undetermined:
                        continue
                    if not any(s.startswith("u:") for s in symbols(c)):
                        conds.append(c if taken else ("!", c))
                    elif taken and (capped := self._capped(c)) is not None:
                        conds.append(capped)
            child = anc
        if not conds:
            return None
        out = conds[0]
        for c in conds[1:]:
            out = ("&&", out, c)
        return out


    def _capped(self, cond: Expr) -> Expr | None:
        """`lane < n` with n a runtime value no larger than a constant K (`min(rows, K)`, `rows < K ? rows : K`):
        `lane < K`, the most lanes the guard can let through; None for other conditions."""
        if not isinstance(cond, tuple) or len(cond) != 3 or cond[0] not in ("<", "<="):
            return None
        _, lanes, limit = cond
        if any(s.startswith("u:") for s in symbols(lanes)):
            return None
        cap = self._cap(limit)
        return (cond[0], lanes, cap) if cap is not None else None

    def _cap(self, e: Expr) -> int | None:
        """A constant that runtime value `e` never exceeds: e itself when it is known, the smaller known side of
        a minimum (`a < b ? a : b`, `a > b ? b : a`, min() as expr reads it); None when there is none."""
        if not any(s.startswith("u:") for s in symbols(e)):
            try:
                return evaluate(e, self.block_env)
            except EvalError:
                return None
        if isinstance(e, tuple) and e[0] == "?:" and isinstance(e[1], tuple) and len(e[1]) == 3:
            op, x, y = e[1]
            if (op in ("<", "<=") and (e[2], e[3]) == (x, y)) or (op in (">", ">=") and (e[2], e[3]) == (y, x)):
                caps = [c for c in (self._cap(x), self._cap(y)) if c is not None]
                return min(caps) if caps else None
        return None


class _Flat(int):
    """A pointee size reached through a cast or alias: subscripts on it do not follow the array's dims."""


class _Dependent(_Flat):
    """A pointee whose size is a template parameter of the pattern being read (`reinterpret_cast<T*>(smem)` with
    T open): a step on it is the symbol `sizeof:T` bytes, bound per candidate size by the matcher. `types` are
    the (size, type) it can have by the code's evidence (the specializations of `SharedMemory<T>`, the file's
    instantiations and launches); () when the file gives none."""

    type_name: str
    types: tuple[tuple[int, str], ...]

    def __new__(cls, type_name: str, types: tuple[tuple[int, str], ...] = ()) -> "_Dependent":
        obj = super().__new__(cls, 1)
        obj.type_name = type_name
        obj.types = types
        return obj

    @property
    def symbol(self) -> str:
        return f"{SIZEOF_PREFIX}{self.type_name}"


def _bit_result(name: str, value: int) -> int:
    """HIP's __ffs (1-based lowest set bit, 0 for none), __popc and __clz of an operand's low 32 bits (the `ll`
    forms: 64)."""
    bits = _BIT_INTRINSICS[name]
    v = value & ((1 << bits) - 1)
    if name.startswith("__ffs"):
        return (v & -v).bit_length()
    if name.startswith("__popc"):
        return bin(v).count("1")
    return bits - v.bit_length()


def _flat(pointee: int) -> _Flat:
    return pointee if isinstance(pointee, _Flat) else _Flat(pointee)


def _scale(e: Expr, pointee: int) -> Expr:
    """`e` steps of a pointee, in bytes."""
    if isinstance(pointee, _Dependent):
        return e if e == 0 else ("*", e, pointee.symbol)
    return _mul(e, int(pointee))


# -------------------------------------------------------------------------------------------------- helpers

def param_derefs(ctx: RuleContext, view: FunctionView) -> list[ParamDeref]:
    """A function's reads and writes through its own pointer parameters (what a call site passes decides which
    memory they touch); no block shape or wavefront enters them, so W64-008 and every LDS walker share one
    derivation per helper and file."""
    return ctx.shared(("lds.param_derefs", view.fn.usr),
                      lambda: AccessWalker(ctx, view, (1, 1, 1))._derefs_of_params())


def communicating_params(ctx: RuleContext, view: FunctionView) -> frozenset[int]:
    """Positions of the never-assigned pointer parameters a device function writes through at a thread-dependent
    index (or through a local pointer it moved by the thread index) and reads through again, with a
    __syncthreads() in its body: threads exchanging values through the pointer, which only shared memory is for
    in a block-level helper. Once per function and file."""
    return ctx.shared(("lds.communicating_params", view.fn.usr),
                      lambda: AccessWalker(ctx, view, (1, 1, 1))._communicating_params())


def unknown_memory(ctx: RuleContext, usr: str, pos: int) -> bool:
    """Nothing in the file says what the pointer parameter `pos` of the device function `usr` points to: nobody
    calls it, or every call passes on the caller's own never-assigned pointer parameter (moved by the same amount
    in every lane: `listK + start`) of which the same holds in turn, a wrapper that says nothing of the memory.
    False as soon as one caller up the chain is a kernel (its pointer parameters are global memory) or passes
    anything else (a __shared__ array is then judged as that caller's). Once per parameter and file."""
    return ctx.shared(("lds.unknown_memory", usr, pos), lambda: _unknown_memory(ctx, usr, pos, frozenset()))


def _unknown_memory(ctx: RuleContext, usr: str, pos: int, seen: frozenset[str]) -> bool:
    for caller, args in _call_sites(ctx.view, usr):
        fn = caller.fn
        if pos >= len(args) or fn.kind not in ("device", "host_device") or fn.usr in seen | {usr} or \
                caller.depends_on_thread(args[pos]):
            return False
        moved = AccessWalker(ctx, caller, (1, 1, 1))._moved_param(args[pos])
        if moved is None or moved[1] or not _unknown_memory(ctx, fn.usr, moved[0], seen | {usr}):
            return False
    return True


def assumed_shared(decl: SharedDecl) -> str:
    """Words for the guess behind an array that is a pointer parameter taken for shared memory ('' for a real
    __shared__ declaration)."""
    if not decl.ref.startswith(PARAM_REF):
        return ""
    return (f"'{decl.name}' taken for shared memory: written and read by different threads across __syncthreads(), "
            "and no caller in the file says what it points to")


def _base_name(node: Node) -> str:
    """The variable an access expression starts from, as the source spells it: `tile` in `tile[i][j]`, `row` in
    `*reinterpret_cast<float4*>(row + k)`; messages name it because it is what the user wrote on that line."""
    cur = node
    for _ in range(MAX_DEPTH * 4):
        if cur.kind == "ref":
            return cur.op
        if not cur.children or cur.kind not in ("index", "unop", "cast", "binop"):
            return ""
        cur = cur.children[0]
    return ""


def _at_the_argument(node: Node, param: str) -> bool:
    """An access made at exactly the address pointer parameter `param` holds: `*p`, `p[0]`, or a call handing `p`
    on unchanged (whose own access is at the address)."""
    n = _peel(node)
    if n.kind in ("call", "mcall"):
        return any(strip(a).kind == "ref" and strip(a).op == param for a in call_args(n))
    if n.kind == "unop" and n.op == "*" and n.children:
        pointer = n.children[0]
    elif n.kind == "index" and len(n.children) == 2 and n.children[1].value == 0:
        pointer = n.children[0]
    else:
        return False
    return strip(pointer).kind == "ref" and strip(pointer).op == param


def _short(node: Node) -> str:
    """file:line of a node, the file by its name only (a helper's header, in a message)."""
    return f"{node.loc.path.rsplit('/', 1)[-1]}:{node.loc.line}"


def _form(node: Node) -> tuple:
    """An expression's shape without positions or types: two subscripts spelled alike have the same form."""
    node = _peel(node)
    return (node.kind, node.op, node.value, node.ref, tuple(_form(k) for k in node.children))


def _peel(node: Node) -> Node:
    while node.kind == "cast" and node.op == "implicit" and node.children:
        node = node.children[0]
    return node


def _conjuncts(node: Node) -> list[Node]:
    node = strip(node)
    if node.kind == "binop" and node.op == "&&" and len(node.children) == 2:
        return _conjuncts(node.children[0]) + _conjuncts(node.children[1])
    return [node]


def _branches(node: Node) -> bool:
    """A statement or operator under which code may run conditionally, or more than once."""
    return node.kind in ("if", "for", "while", "do", "switch", "case", "cond") or \
        (node.kind == "binop" and node.op in ("&&", "||"))


def _is_integer(t: str) -> bool:
    t = t.replace("const", "").strip()
    return t in _SCALAR_BYTES and not any(f in t for f in ("float", "double", "half", "Float", "bfloat")) \
        or t in ("size_t", "long", "unsigned long", "uint", "int")


def _strides(dims: tuple[int | None, ...], elem: int) -> list[int] | None:
    """Byte stride of each subscript; the outermost extent may be unknown (extern arrays)."""
    if not elem or any(d is None for d in dims[1:]):
        return None
    return [elem * prod(dims[i + 1:]) for i in range(len(dims))]  # type: ignore[arg-type]


def _add(a: Expr, b: Expr) -> Expr:
    if a == 0:
        return b
    if b == 0:
        return a
    return ("+", a, b)


def _mul(a: Expr, k: int) -> Expr:
    if k == 1:
        return a
    if a == 0:
        return 0
    return ("*", a, k)


def _chain(sym: str, pairs: list[tuple[int, int]]) -> Expr:
    """sym == i0 ? v0 : sym == i1 ? v1 : ... (the last value closes the chain)."""
    out: Expr = pairs[-1][1]
    for i, v in reversed(pairs[:-1]):
        out = ("?:", ("==", sym, i), v, out)
    return out


def _pick(n: int) -> list[int]:
    """Iteration indices to evaluate: all of a short loop; the first few, the middle and the last otherwise."""
    if n <= MAX_SAMPLED_ITERS:
        return list(range(n))
    return sorted({0, 1, 2, 3, n // 2, n - 3, n - 2, n - 1})


def _loop_var(loop: Node) -> tuple[str, str, Node | None]:
    init = loop.children[0] if loop.children else None
    if init is None:
        return "", "", None
    if init.kind == "decls" and init.children and init.children[0].kind == "decl" and init.children[0].children:
        d = init.children[0]
        return d.ref, d.op, d.children[0]
    if init.kind == "binop" and init.op == "=" and len(init.children) == 2 and strip(init.children[0]).kind == "ref":
        r = strip(init.children[0])
        return r.ref, r.op, init.children[1]
    return "", "", None


def _step(inc: Node, var: str) -> tuple[str, Node] | None:
    if inc.kind == "binop" and inc.op == "," and len(inc.children) == 2:
        # `++ty, id += size`: the part that steps the loop variable (the others step variables of their own)
        steps = [st for st in (_step(c, var) for c in inc.children) if st is not None]
        return steps[0] if len(steps) == 1 else None
    if inc.kind == "unop" and inc.children and strip(inc.children[0]).ref == var:
        if inc.op in ("++", "post++"):
            return "+", Node("int", value=1)
        if inc.op in ("--", "post--"):
            return "-", Node("int", value=1)
    if inc.kind == "binop" and len(inc.children) == 2 and strip(inc.children[0]).ref == var:
        if inc.op in _COMPOUND:
            return _COMPOUND[inc.op], inc.children[1]
        rhs = strip(inc.children[1])
        if inc.op == "=" and rhs.kind == "binop" and len(rhs.children) == 2 and strip(rhs.children[0]).ref == var:
            return rhs.op, rhs.children[1]
    return None


def _bound(cond: Node, var: str) -> tuple[str, Node] | None:
    """(comparison, bound node) with the variable on the left."""
    if cond.kind != "binop" or len(cond.children) != 2:
        return None
    flip = {"<": ">", ">": "<", "<=": ">=", ">=": "<=", "!=": "!=", "==": "=="}
    a, b = strip(cond.children[0]), strip(cond.children[1])
    if a.kind == "ref" and a.ref == var and cond.op in flip:
        return cond.op, b
    if b.kind == "ref" and b.ref == var and cond.op in flip:
        return flip[cond.op], a
    return None


def _holds(cmp: str, v: int, limit: int) -> bool:
    return {"<": v < limit, "<=": v <= limit, ">": v > limit, ">=": v >= limit, "!=": v != limit,
            "==": v == limit}[cmp]


def _apply(op: str, v: int, s: int) -> int:
    return evaluate((op, v, s), {})


def _zero_uniform(e: Expr, env: dict[str, int]) -> dict[str, int]:
    return {**env, **{s: 0 for s in symbols(e) if s.startswith("u:")}}


def _substitute(e: Expr, values: dict[str, int]) -> Expr:
    if isinstance(e, str):
        return values.get(e, e)
    if isinstance(e, tuple):
        args = tuple(_substitute(a, values) for a in e[1:])
        if e[0] == "*" and 0 in args:
            return 0  # a uniform shift bound to 0 takes its factors with it (`n * sizeof:T`: T no longer matters)
        return (e[0], *args)
    return e


def function_views(ctx: RuleContext) -> Iterator[FunctionView]:
    """Functions to analyze: kernels, functions that declare their own __shared__ arrays (device functions, and
    host functions whose device lambdas do: `forall(n, [=] __device__ (int i) {...})`) or device functions passed
    one (block reductions, tile loaders), or that nobody in the file calls and that exchange values
    between threads through a pointer parameter (a header's block reduction on its own). Template instantiations
    stand in for their pattern; a pattern without any instantiation is analyzed as written (its dependent values
    stay undetermined)."""
    fv = ctx.view
    instantiated = _instantiated(fv.facts)
    owners = {d.function for d in fv.facts.shared if d.function}
    shared_refs = {d.ref for d in fv.facts.shared}
    views = fv.views
    # device functions handed a shared array by a caller, directly or through a local alias (none without arrays);
    # only calls that can name a device function not yet known are looked into (their arguments are walked)
    device = {f.usr for f in fv.facts.functions if f.kind in ("device", "host_device")}
    names = {f.name for f in fv.facts.functions}
    for view in views if shared_refs else ():
        passed: set[str] | None = None
        for call in view.calls():
            if not (call.ref in device and call.ref not in owners if call.ref else call.op in names):
                continue
            if passed is None:
                passed = shared_refs | {ref for ref, defs in view.defs.items() if len(defs) == 1
                                        and any(n.kind == "ref" and n.ref in shared_refs for n in defs[0].walk())}
            if not any(n.kind == "ref" and n.ref in passed for a in call.children for n in a.walk()):
                continue
            owners.update([call.ref] if call.ref else
                          (f.usr for f in fv.facts.functions if _dependent_call_of(call, f)))
    for view in views:
        fn = view.fn
        # a host function that declares __shared__ arrays holds device lambdas (`forall(n, [=] __device__ ...)`)
        if fn.kind != "kernel" and fn.usr not in owners and \
                not any(unknown_memory(ctx, fn.usr, pos) for pos in communicating_params(ctx, view)):
            continue
        if not _shadowed(fn, instantiated):
            yield view


def _instantiated(facts: FileFacts) -> set[str]:
    """Patterns with an instantiation that can stand in for them: one whose body the front end read (libclang
    gives none for some device function instantiations; their pattern is then analyzed as written)."""
    return {f.usr.split("<", 1)[0] for f in facts.functions if f.template_args and f.body is not None}


def _reached(usr: str, graphs: tuple[dict[str, set[str]], ...]) -> set[str]:
    """The functions `usr` calls, directly or through others, along the edges of `graphs`."""
    seen, todo = set(), [usr]
    while todo:
        cur = todo.pop()
        if cur not in seen:
            seen.add(cur)
            todo.extend(c for g in graphs for c in g.get(cur, ()))
    return seen


def _shadowed(fn: Function, instantiated: set[str]) -> bool:
    """A template pattern whose instantiations are analyzed instead."""
    return fn.is_template and fn.usr.split("<", 1)[0] in instantiated


def function_blocks(fv: FileView, fn: Function, default: Sequence[int], wave: int) -> list[BlockGuess]:
    """kernel_blocks for a kernel; for a device function, the blocks of the kernels that call it (directly or
    through other device functions), else the default."""
    facts = fv.facts
    if fn.kind == "kernel":
        return kernel_blocks(fv, fn, default, wave)
    callees: dict[str, set[str]] = {}
    dependent: dict[str, set[str]] = {}
    for f in facts.functions:
        if f.body is not None:
            # instantiations over function arguments share one usr (libclang cannot spell such arguments)
            calls = [n for n in f.body.walk() if n.kind in ("call", "mcall")]
            callees.setdefault(f.usr, set()).update(n.ref for n in calls if n.ref)
            # a template kernel's call that depends on its parameters (`helper(A, lda)` with A a T*) names no
            # function: the helpers of that name and argument count
            dependent.setdefault(f.usr, set()).update(g.usr for n in calls if not n.ref for g in facts.functions
                                                      if g.kind == "device" and _dependent_call_of(n, g))
    out: dict[tuple[int, int, int], BlockGuess] = {}
    instantiated = _instantiated(facts)
    for k in (f for f in facts.functions if f.kind == "kernel" and not _shadowed(f, instantiated)):
        direct = fn.usr in _reached(k.usr, (callees,))
        if not direct and fn.usr not in _reached(k.usr, (callees, dependent)):
            continue
        for b in kernel_blocks(fv, k, default, wave):
            # a call matched by name only lends a block its launch gives, never an assumed one
            if direct or not b.assumed:
                out.setdefault(b.dims, replace(b, source=f"{b.source}, for '{fn.name}' called from '{k.name}'"))
    return list(out.values()) or kernel_blocks(fv, fn, default, wave)
