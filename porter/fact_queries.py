"""Queries over the Facts IR that several rules share: parents, variable definitions, constants, callees, and
what a value means in terms of lanes (a 32-lane id, a wavefront lane id, a warp index...)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterator

from porter.facts import FileFacts, Function, Node, fold_int, names_builtin_width

# Lane classes of an integer value (see lane_class).
TID = "tid"          # a thread index that is not reduced to a lane: threadIdx.x, a global index
LANE32 = "lane32"    # position in a 32-lane group: tid % 32, tid & 31
LANEW = "laneW"      # position in the hardware wavefront: tid % warpSize, __lane_id()
WARP32 = "warp32"    # index of a 32-lane group: tid / 32, tid >> 5
WARPW = "warpW"      # index of the hardware wavefront: tid / warpSize

# PyTorch's wavefront width (c10/macros/Macros.h). Its ROCm definition changed between releases (warpSize, a device
# variable; a constant of the device compilation only; a host overload that asks the device), and PyTorch's rule
# is that host code asks at::cuda::warp_size(). Without the headers clang reports each use as undeclared. In device
# code every release gives the device's width, except that old ones defined it as TORCH_ROCM_FIXED_WAVE for every
# ROCm device: on a target of that width all releases agree.
TORCH_WAVE = "C10_WARP_SIZE"
TORCH_ROCM_FIXED_WAVE = 64

# Symbolic constants: the wavefront width and the values derived from it.
W, W_MINUS_1, W_HALF = "W", "W-1", "W/2"

SHUFFLES = frozenset({"__shfl", "__shfl_up", "__shfl_down", "__shfl_xor", "__shfl_sync", "__shfl_up_sync",
                      "__shfl_down_sync", "__shfl_xor_sync"})
MASK_PRODUCERS = frozenset({"__ballot", "__ballot_sync", "__activemask", "__match_any", "__match_any_sync",
                            "__match_all_sync", "__lanemask_lt"})
WAVE_WIDE = frozenset({"__ballot", "__ballot_sync", "__activemask", "__any", "__all", "__any_sync", "__all_sync",
                       "__match_any", "__match_any_sync", "__match_all_sync"})
SYNC_WITH_MASK = frozenset({"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync",
                            "__any_sync", "__all_sync", "__match_any_sync", "__match_all_sync", "__syncwarp"})
# amdgcn builtins that move values between lanes of the hardware wavefront: code that calls them was written for
# AMD wavefronts, not left by hipify (DPP moves, LDS permutes, lane reads and writes, permlane swaps).
AMD_CROSS_LANE_PREFIXES = ("__builtin_amdgcn_mov_dpp", "__builtin_amdgcn_update_dpp", "__builtin_amdgcn_ds_bpermute",
                           "__builtin_amdgcn_ds_permute", "__builtin_amdgcn_ds_swizzle", "__builtin_amdgcn_readlane",
                           "__builtin_amdgcn_writelane", "__builtin_amdgcn_permlane")
BIT_OPS_32 = {"__popc": "__popcll", "__ffs": "__ffsll", "__clz": "__clzll", "__brev": "__brevll"}


def strip(node: Node) -> Node:
    """Look through implicit conversions and no-op casts."""
    while node.kind == "cast" and node.children and (node.op == "implicit" or node.op in ("c", "static",
                                                                                          "functional")):
        node = node.children[0]
    return node


def same_expr(a: Node, b: Node) -> bool:
    """The two expressions compute the same thing: the same tree of operators, variables and values, wherever
    they are written."""
    if a.kind != b.kind or a.op != b.op or a.ref != b.ref or a.value != b.value or len(a.children) != len(b.children):
        return False
    return all(same_expr(strip(x), strip(y)) for x, y in zip(a.children, b.children))


def int_bits(facts: FileFacts, type_spelling: str) -> int | None:
    """Width in bits of an integer type, from the canonical type the frontend recorded (typedefs such as u32
    resolve), else from the spelling of the common names."""
    t = type_spelling.replace("const", "").replace("volatile", "").strip()
    known = dict(facts.int_bits).get(type_spelling) or dict(facts.int_bits).get(t)
    if known:
        return known
    if "long long" in t or "int64" in t or t in ("unsigned long", "long", "size_t", "uint64_t", "lane_mask_t"):
        return 64
    if t in ("int", "unsigned int", "unsigned", "uint32_t", "int32_t", "uint", "signed int"):
        return 32
    return None


def is_64bit(facts: FileFacts, type_spelling: str) -> bool:
    return int_bits(facts, type_spelling) == 64


def is_32bit_int(facts: FileFacts, type_spelling: str) -> bool:
    return int_bits(facts, type_spelling) == 32


def builtin_width(facts: FileFacts, node: Node) -> bool:
    """`warpSize` that names HIP's builtin, the wavefront width, and not a project variable, parameter or macro
    that shadows the name (Paddle's `const int warpSize = 64;` in a ROCm branch): resolved to its declaration,
    or for a name read from tokens only, by the declarations of that name in scope at its line."""
    if node.kind != "ref" or node.op != "warpSize":
        return False
    if node.ref:
        return names_builtin_width(node.ref)
    return not width_shadowed_at(facts, node.loc.path, node.loc.line)


def width_shadowed_at(facts: FileFacts, path: str, line: int) -> bool:
    """The name warpSize at this line of the source means a project declaration, not HIP's builtin."""
    return any(p == path and first <= line <= last for p, first, last in _width_shadows(facts))


_SHADOWS_OF: list[tuple[FileFacts, tuple[tuple[str, int, int], ...]]] = []   # the last file asked about


def _width_shadows(facts: FileFacts) -> tuple[tuple[str, int, int], ...]:
    """(path, first line, last line) where warpSize is a project declaration: a function's parameter, template
    parameter or local (to the function's end), a file-scope variable or a #define (to the end of the file)."""
    if _SHADOWS_OF and _SHADOWS_OF[0][0] is facts:
        return _SHADOWS_OF[0][1]
    end = 1 << 30
    spans: list[tuple[str, int, int]] = []
    for fn in (*facts.functions, *facts.helpers):
        last = fn.loc.end_line or end
        if any(p.name == "warpSize" for p in fn.params) or "warpSize" in fn.template_params or \
                any(name == "warpSize" for name, _ in fn.template_args):
            spans.append((fn.loc.path, fn.loc.line, last))
        if fn.body is not None:
            spans += [(fn.loc.path, n.loc.line, last) for n in fn.body.walk() if n.kind == "decl" and n.op == "warpSize"]
    spans += [(g.loc.path, g.loc.line, end) for g in facts.globals if g.kind == "decl" and g.op == "warpSize"]
    spans += [(m.loc.path, m.loc.line, end) for m in facts.macros if m.name == "warpSize"]
    spans += [(facts.path, first, last) for first, last in _template_parameter_shadows(facts.lines)]
    _SHADOWS_OF[:] = [(facts, tuple(spans))]
    return _SHADOWS_OF[0][1]


_TEMPLATE_PARAMETER_LIST = re.compile(r"\btemplate\s*<([^;<>]*)>")
# One parameter of a template parameter list named warpSize (`index_t warpSize`), before any default.
_WIDTH_PARAMETER = re.compile(r"^\s*[A-Za-z_][\w:]*(?:\s+[A-Za-z_][\w:]*)*\s+warpSize\s*$")


def _template_parameter_shadows(lines: tuple[str, ...]) -> Iterator[tuple[int, int]]:
    """(first line, last line) of each template, a class template included (which the parse records nowhere),
    whose parameter named warpSize hides the builtin in its body: from the parameter list to the brace that
    closes the first body after it (or the `;` of a declaration without one), read from the text."""
    for i, line in enumerate(lines):
        for m in _TEMPLATE_PARAMETER_LIST.finditer(line.split("//", 1)[0]):
            if any(_WIDTH_PARAMETER.match(p.split("=", 1)[0]) for p in m.group(1).split(",")):
                yield i + 1, _declaration_end(lines, i, m.end())


def _declaration_end(lines: tuple[str, ...], first: int, col: int) -> int:
    """The line where the declaration starting at (first, col) ends: its body's closing brace, or its `;`."""
    depth = 0
    for j in range(first, len(lines)):
        for ch in lines[j].split("//", 1)[0][col if j == first else 0:]:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth <= 0:
                    return j + 1
            elif ch == ";" and depth == 0:
                return j + 1
    return len(lines)


# the operators that make a lane or group id of a thread id (`tid % 32`, `tid & 63`, `tid / 64`, `tid >> 5`)
GROUP_ID_OPS = ("%", "&", "/", ">>")


@dataclass
class FunctionView:
    """One function body with the indexes rules need: parents and variable definitions."""

    fn: Function
    facts: FileFacts
    parents: dict[int, Node] = field(default_factory=dict)
    defs: dict[str, list[Node]] = field(default_factory=dict)   # variable id -> assigned expressions
    decls: dict[str, Node] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.fn.body is None:
            return
        stack = [self.fn.body]
        while stack:
            node = stack.pop()
            for child in node.children:
                self.parents[id(child)] = node
                stack.append(child)
            if node.kind == "decl":
                self.decls[node.ref] = node
                if node.children and node.children[0].kind != "bounds":
                    self.defs.setdefault(node.ref, []).append(node.children[0])
            elif node.kind == "binop" and node.op == "=" and len(node.children) == 2:
                lhs = strip(node.children[0])
                if lhs.kind == "ref":
                    self.defs.setdefault(lhs.ref, []).append(node.children[1])

    @cached_property
    def all_nodes(self) -> tuple[Node, ...]:
        """Every node of the body in pre-order, leaving out branches that are dead in this instantiation
        (`if (ACT == 0)` with ACT a template argument)."""
        out: list[Node] = []
        stack = [self.fn.body] if self.fn.body is not None else []
        while stack:
            node = stack.pop()
            out.append(node)
            kids = node.children
            if node.kind == "if" and len(kids) >= 2 and kids[0].value is not None:
                kids = (kids[0], kids[1]) if kids[0].value else (kids[0],) + kids[2:3]
            stack.extend(reversed(kids))
        return tuple(out)

    @cached_property
    def _calls(self) -> tuple[Node, ...]:
        return tuple(n for n in self.all_nodes if n.kind in ("call", "mcall"))

    def nodes(self) -> Iterator[Node]:
        return iter(self.all_nodes)

    def parent(self, node: Node) -> Node | None:
        return self.parents.get(id(node))

    def ancestors(self, node: Node) -> Iterator[Node]:
        cur = self.parent(node)
        while cur is not None:
            yield cur
            cur = self.parent(cur)

    def calls(self, names: frozenset[str] | set[str] | None = None) -> Iterator[Node]:
        for node in self._calls:
            if names is None or node.op in names:
                yield node

    def definition(self, ref: str) -> Node | None:
        """The single expression a variable is defined by (its initializer), if it has one."""
        d = self.defs.get(ref)
        return d[0] if d else None

    def definition_at(self, ref: str, use: Node) -> Node | None:
        """The assignment of a variable that `use` reads, reading the body as straight-line code: the last one
        that ends before `use` in the source (`x = inp + r; ...x[i]...; x = out + r; ...x[i]...` reads inp, then
        out), else the first one. defs are gathered in no source order."""
        defs = self.defs.get(ref)
        if not defs or len(defs) == 1:
            return defs[0] if defs else None
        at = (use.loc.line, use.loc.col)
        before = [d for d in defs if (d.loc.end_line or d.loc.line, d.loc.end_col or d.loc.col) <= at]
        return max(before, key=lambda d: (d.loc.line, d.loc.col)) if before else \
            min(defs, key=lambda d: (d.loc.line, d.loc.col))

    @cached_property
    def pinned(self) -> dict[str, int]:
        """Non-type template parameters of a pattern that a static_assert in the body fixes to one value
        (`static_assert(N == 8, ...)`, also inside a conjunction): every instantiation that compiles has it, so
        the pattern can be read with it where libclang gives no instantiation. Keyed by the parameter's ref."""
        if not self.fn.is_template:
            return {}
        out: dict[str, int] = {}
        for sa in (n for n in self.all_nodes if n.kind == "static_assert" and n.children):
            conds = [sa.children[0]]
            while conds:
                c = strip(conds.pop())
                if c.kind != "binop" or len(c.children) != 2:
                    continue
                if c.op == "&&":
                    conds.extend(c.children)
                    continue
                a, b = (strip(x) for x in c.children)
                if c.op == "==" and b.kind == "ref" and a.value is not None:
                    a, b = b, a
                if c.op == "==" and a.kind == "ref" and a.op in self.fn.template_params and b.value is not None \
                        and a.ref not in self.decls:
                    out[a.ref] = int(b.value)
        return out

    # -- constants
    def const(self, node: Node, depth: int = 0) -> int | str | None:
        """An integer value, or one of W / W-1 / W/2 for values built from warpSize, or None."""
        node = strip(node)
        if node.value is not None:
            return node.value
        if depth > 8:
            return None
        if node.kind == "ref":
            if builtin_width(self.facts, node):
                return W
            init = self.definition(node.ref)
            decl = self.decls.get(node.ref)
            if init is not None and decl is not None and len(self.defs.get(node.ref, [])) == 1:
                return self.const(init, depth + 1)
            return self.facts_global_const(node.ref)
        if node.kind == "binop" and len(node.children) == 2:
            a, b = self.const(node.children[0], depth + 1), self.const(node.children[1], depth + 1)
            if a == W and b == 1 and node.op == "-":
                return W_MINUS_1
            if a == W and ((b == 2 and node.op == "/") or (b == 1 and node.op == ">>")):
                return W_HALF
        return None

    def value_at(self, node: Node, wave: int, depth: int = 0) -> int | None:
        """An integer value with warpSize taken as the target's wavefront width `wave`: `1024 / warpSize` is 16
        on gfx942. None where the value is not known before run time."""
        c = self.const(node)
        if isinstance(c, int):
            return c
        if c is not None:
            return {W: wave, W_MINUS_1: wave - 1, W_HALF: wave // 2}[c]
        node = strip(node)
        if depth > 8:
            return None
        if node.kind == "ref" and node.ref in self.decls and len(self.defs.get(node.ref, [])) == 1:
            return self.value_at(self.defs[node.ref][0], wave, depth + 1)
        if node.kind != "binop" or len(node.children) != 2:
            return None
        a, b = (self.value_at(k, wave, depth + 1) for k in node.children)
        return fold_int(node.op, a, b) if a is not None and b is not None else None

    def facts_global_const(self, ref: str) -> int | str | None:
        for g in self.facts.globals:
            if g.ref == ref and g.children:
                v = strip(g.children[0])
                if v.value is not None:
                    return v.value
                if builtin_width(self.facts, v):
                    return W
        return None

    # -- lanes
    def lane_class(self, node: Node, depth: int = 0) -> str | None:
        """What an integer expression is in terms of lanes: TID, LANE32, LANEW, WARP32, WARPW or None."""
        node = strip(node)
        if depth > 10:
            return None
        if node.kind == "member" and node.children:
            base = strip(node.children[0])
            if base.kind == "ref" and base.op == "threadIdx":
                return TID
            return None
        if node.kind in ("call", "mcall"):
            if node.op in ("__lane_id",) or node.op.startswith("__builtin_amdgcn_mbcnt"):
                return LANEW
            if node.op == "thread_rank":
                return TID
            return None
        if node.kind == "ref":
            init = self.definition(node.ref)
            return self.lane_class(init, depth + 1) if init is not None else None
        if node.kind != "binop" or len(node.children) != 2:
            return None
        left = self.lane_class(node.children[0], depth + 1)
        right_const = self.const(node.children[1])
        op = node.op
        if op in ("+", "-"):
            other = self.lane_class(node.children[1], depth + 1)
            return TID if TID in (left, other) else None
        if left not in (TID, LANEW, LANE32):
            return None
        if op == "%":
            return {32: LANE32, 64: LANEW, W: LANEW}.get(right_const) if right_const is not None else None
        if op == "&":
            return {31: LANE32, 63: LANEW, W_MINUS_1: LANEW}.get(right_const) if right_const is not None else None
        if left != TID:
            return None
        if op == "/":
            return {32: WARP32, 64: WARPW, W: WARPW}.get(right_const) if right_const is not None else None
        if op == ">>":
            return {5: WARP32, 6: WARPW}.get(right_const) if right_const is not None else None
        return None

    def depends_on_thread(self, node: Node) -> bool:
        """True when the value can differ between threads of a block (reads threadIdx or a lane id, directly or
        through variables defined from one)."""
        return any(_reads_thread_id(n) or (n.kind == "ref" and n.ref in self._thread_dependent) for n in node.walk())

    @cached_property
    def _thread_dependent(self) -> frozenset[str]:
        """The variables some definition of which depends on the thread, found once per function by following
        the definitions backwards from the thread ids. Asking each use to re-walk the definitions of the
        variables it reads costs the product of the definition counts along a chain: exponential in real
        kernels (an accumulator assigned in dozens of statements that each read it again)."""
        readers: dict[str, set[str]] = {}
        found: list[str] = []
        for ref, exprs in self.defs.items():
            for n in (n for e in exprs for n in e.walk()):
                if _reads_thread_id(n):
                    found.append(ref)
                elif n.kind == "ref" and n.ref in self.defs:
                    readers.setdefault(n.ref, set()).add(ref)
        dependent: set[str] = set()
        while found:
            ref = found.pop()
            if ref not in dependent:
                dependent.add(ref)
                found.extend(readers.get(ref, ()))
        return frozenset(dependent)

    @cached_property
    def amd_cross_lane(self) -> Node | None:
        """The first call of an amdgcn cross-lane builtin in this function, if any."""
        return next((n for n in self.nodes() if n.kind == "call" and n.op.startswith(AMD_CROSS_LANE_PREFIXES)), None)

    @cached_property
    def lane_classes(self) -> set[str]:
        """Every lane class computed anywhere in this function."""
        out = set()
        for node in self.nodes():
            if node.kind == "binop" and node.op in GROUP_ID_OPS:
                c = self.lane_class(node)
                if c is not None and c != TID:
                    out.add(c)
            elif node.kind == "call" and node.op == "__lane_id":
                out.add(LANEW)
        return out


def call_args(call: Node) -> tuple[Node, ...]:
    """The arguments of a call; a member call's first child is its object, not an argument."""
    return call.children[1:] if call.kind == "mcall" else call.children


# The device's wavefront width as host code asks for it at run time: at::cuda::warp_size(), a device-properties
# field (hipDeviceProp_t::warpSize, ggml's devices[id].warp_size, a library handle's copy of it such as rocSPARSE's
# handle->wavefront_size), or hipDeviceGetAttribute(&w, ...WarpSize, dev).
_WAVE_CALLS = frozenset({"warp_size"})
_WAVE_FIELDS = frozenset({"warpSize", "warp_size", "wavefront_size"})
_WAVE_ATTRIBUTES = frozenset({"hipDeviceAttributeWarpSize", "cudaDevAttrWarpSize"})
# The same queries in a line's text, for host code the parse lost (a constructor whose parameter types are in a
# header not read): `dev_prop.warpSize`, `->wavefront_size`, the attribute, `warp_size()`.
DEVICE_WAVE_TEXT = re.compile(rf"(?:\.|->)\s*(?:{'|'.join(sorted(_WAVE_FIELDS))})\b|\b(?:{'|'.join(sorted(_WAVE_ATTRIBUTES))})\b"
                              rf"|\b(?:{'|'.join(sorted(_WAVE_CALLS))})\s*\(\s*\)")


def device_wave_vars(view: FunctionView) -> frozenset[str]:
    """Variables that hipDeviceGetAttribute(&w, hipDeviceAttributeWarpSize, dev) fills with the device's width."""
    out = set()
    for call in view.calls({"hipDeviceGetAttribute", "cudaDeviceGetAttribute"}):
        args = [strip(a) for a in call_args(call)]
        if len(args) >= 2 and args[1].op in _WAVE_ATTRIBUTES and args[0].kind == "unop" and args[0].op == "&" \
                and args[0].children and strip(args[0].children[0]).kind == "ref":
            out.add(strip(args[0].children[0]).ref)
    return frozenset(out)


def is_device_wave_query(node: Node, filled: frozenset[str]) -> bool:
    """The node asks the device for its wavefront width (`filled`: the variables device_wave_vars found), which on
    an analysis target is that target's width."""
    node = strip(node)
    return (node.kind in ("call", "mcall") and node.op in _WAVE_CALLS and not call_args(node)) or \
        (node.kind == "member" and node.op in _WAVE_FIELDS) or (node.kind == "ref" and node.ref in filled)


def involves_device_wave(view: FunctionView, node: Node, filled: frozenset[str]) -> bool:
    """The expression asks the device for its width, itself or through a variable it reads (`dim3 threads(w, 4)`
    with `const int w = at::cuda::warp_size()`)."""
    return any(is_device_wave_query(k, filled) or (k.kind == "ref" and any(
        is_device_wave_query(d, filled) for e in view.defs.get(k.ref, []) for d in e.walk())) for k in node.walk())


def host_wave_value(view: FunctionView, node: Node, env: dict[str, int], filled: frozenset[str], wave: int,
                    depth: int = 0) -> int | None:
    """The value of a host expression with the device's wavefront width taken as `wave` and the variables of
    `env` (a switch variable inside one of its cases) at their values; None where it depends on anything else."""
    node = strip(node)
    if is_device_wave_query(node, filled):
        return wave
    if node.value is not None or depth > 8:
        return node.value
    if node.kind == "ref":
        if node.ref in env:
            return env[node.ref]
        defs = view.defs.get(node.ref, [])
        return host_wave_value(view, defs[0], env, filled, wave, depth + 1) if len(defs) == 1 else None
    if node.kind == "cond" and len(node.children) == 3:
        test = host_wave_value(view, node.children[0], env, filled, wave, depth + 1)
        if test is None:
            return None
        return host_wave_value(view, node.children[1 if test else 2], env, filled, wave, depth + 1)
    if node.kind == "binop" and len(node.children) == 2:
        a, b = (host_wave_value(view, k, env, filled, wave, depth + 1) for k in node.children)
        return fold_int(node.op, a, b) if a is not None and b is not None else None
    return None


def _reads_thread_id(n: Node) -> bool:
    return (n.kind == "member" and bool(n.children) and strip(n.children[0]).op == "threadIdx") or \
        (n.kind in ("call", "mcall") and n.op in ("__lane_id", "thread_rank"))


def shuffle_parts(call: Node) -> tuple[Node | None, Node | None, Node | None]:
    """(value, offset or source lane, width) of a shuffle call; width None when left to its default."""
    args = list(call.children)
    if call.op.endswith("_sync"):
        args = args[1:]
    value = args[0] if args else None
    lane = args[1] if len(args) > 1 else None
    width = args[2] if len(args) > 2 and args[2].kind != "default" else None
    return value, lane, width


# The words of a name: WARP_SHFL_XOR, warpShflXor and __shfl_xor_wrap all split into (warp|shfl, shfl, xor ...).
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")
_OFFSET_WORDS = frozenset({"xor", "up", "down", "bfly", "butterfly"})


def undeclared_shuffle(facts: FileFacts, call: Node) -> str:
    """What a call of a name declared nowhere the parse could see (facts.undeclared: a project macro or wrapper
    from a header not on the include path, such as THC's WARP_SHFL) is, judged by its name: 'lane' for a shuffle
    that reads a source lane, 'offset' for one that reads at an offset (xor, up, down), '' for anything else.
    A shuffle is a name with the word `shfl`, CUDA's and HIP's own abbreviation; `shuffle` alone is not taken,
    since it also names SIMD intrinsics (_mm256_shuffle_epi8), std::shuffle and quantization layouts."""
    if call.kind != "call" or call.op in SHUFFLES or call.op not in facts.undeclared:
        return ""
    words = {w.lower() for w in _WORDS.findall(call.op)}
    if "shfl" not in words:
        return ""
    return "offset" if words & _OFFSET_WORDS else "lane"


_WIDTH_ARG = re.compile(r"(?i)\d|warp|wave|width|size|lane")


def undeclared_warp_reduce(fv: FileView, view: FunctionView, call: Node) -> bool:
    """A call of a warp reduction whose name (or namespace) is declared nowhere the parse could see (PyTorch's
    cuda_utils::WarpReduceSum from block_reduce.cuh, not on the include path): a name with the words `warp` and
    `reduce`, taken as a reduction over the whole wavefront (its width is warpSize, C10_WARP_SIZE), unless the
    call passes a width: a constant argument, or a template argument that is a number or named like a width
    (ggml's warp_reduce_sum<WARP_SIZE>; WarpReduceSum<T_ACC> passes only the type)."""
    if call.kind != "call" or call.ref or call.op in SHUFFLES:
        return False
    if not {"warp", "reduce"} <= {w.lower() for w in _WORDS.findall(call.op)}:
        return False
    line = fv.facts.lines[call.loc.line - 1] if 0 < call.loc.line <= len(fv.facts.lines) else ""
    qualifier = re.search(rf"(\w+)\s*::\s*{re.escape(call.op)}\b", line)
    if call.op not in fv.facts.undeclared and (qualifier is None or qualifier.group(1) not in fv.facts.undeclared):
        return False
    if any(isinstance(view.const(a), int) for a in call_args(call)):
        return False
    args = re.search(rf"\b{re.escape(call.op)}\s*<([^<>;()]*)>", line)
    return args is None or _WIDTH_ARG.search(args.group(1)) is None


_TEMPLATE_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*<([^<>;()]*)>\s*\(")


class FileView:
    """All function views of a file, with call-graph queries."""

    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts
        self.views = [FunctionView(fn, facts) for fn in facts.functions if fn.body is not None]
        self.by_name: dict[str, list[FunctionView]] = {}
        for v in self.views:
            self.by_name.setdefault(v.fn.name, []).append(v)
        # the project headers' device functions the file calls: consulted for call sites, never reported in
        self.helpers = [FunctionView(fn, facts) for fn in facts.helpers]
        self._helpers_by_name: dict[str, list[FunctionView]] = {}
        for v in self.helpers:
            self._helpers_by_name.setdefault(v.fn.name, []).append(v)

    def helper(self, call: Node) -> FunctionView | None:
        """The header function a call names, when the frontend resolved the call to that instantiation."""
        return next((v for v in self._helpers_by_name.get(call.op, []) if call.ref and v.fn.usr == call.ref), None)

    def targets(self, call: Node) -> list[FunctionView]:
        """The functions of the file or its project headers a call may run: the exact instantiation where the
        frontend resolved it, else every function of that name (a call that depends on a template parameter)."""
        return _resolved(self.by_name, call) or _resolved(self._helpers_by_name, call)

    def conversions(self, construct: Node) -> list[FunctionView]:
        """The pointer conversions (`operator T*()`) of the class a temporary is built of (`SharedArray<T>()` in a
        template pattern, whose conversion libclang leaves to the instantiation): every specialization's."""
        owner = construct.type.split("<", 1)[0].strip()
        return [v for v in self.views + self.helpers if owner and v.fn.owner == owner
                and v.fn.name.startswith("operator") and v.fn.name.endswith("*")]

    def helper_chain(self, call: Node) -> list[FunctionView]:
        """The header function a call names (the exact instantiation where known) and the header functions it
        calls in turn, transitively."""
        out: list[FunctionView] = []
        stack = [call]
        while stack and len(out) < 32:
            cur = stack.pop()
            for h in _resolved(self._helpers_by_name, cur):
                if all(h is not o for o in out):
                    out.append(h)
                    stack.extend(h.calls())
        return out

    def callees(self, view: FunctionView, depth: int = 0) -> Iterator[FunctionView]:
        """Device functions this one calls, transitively: the exact instantiation where the call names it,
        else every overload of the name."""
        seen: set[int] = set()
        stack = [(view, 0)]
        while stack:
            cur, d = stack.pop()
            for call in cur.calls():
                for callee in _resolved(self.by_name, call):
                    if id(callee) not in seen and callee.fn.kind != "host" and d < 6:
                        seen.add(id(callee))
                        yield callee
                        stack.append((callee, d + 1))

    def callers(self, view: FunctionView) -> Iterator[FunctionView]:
        for v in self._callers_by_name.get(view.fn.name, ()):
            if v is not view:
                yield v

    @cached_property
    def _callers_by_name(self) -> dict[str, list[FunctionView]]:
        """Name called -> the views that call it, in file order: callers() is asked for every device helper."""
        out: dict[str, list[FunctionView]] = {}
        for v in self.views:
            for name in dict.fromkeys(c.op for c in v.calls()):
                out.setdefault(name, []).append(v)
        return out

    @cached_property
    def _template_arguments(self) -> dict[str, set[str]]:
        """Function name -> templates it is passed to as a template argument (`blockReduce<warpSum>(v)`), read
        from the text: calls of a template pattern are not resolved to an instantiation."""
        out: dict[str, set[str]] = {}
        for line in self.facts.lines:
            if "<" not in line:
                continue
            for m in _TEMPLATE_CALL.finditer(line):
                for arg in re.findall(r"\b[A-Za-z_]\w*\b", m.group(2)):
                    out.setdefault(arg, set()).add(m.group(1))
        return out

    def template_argument_users(self, view: FunctionView) -> Iterator[FunctionView]:
        """Template functions that receive this function as a template argument and so call it."""
        for name in sorted(self._template_arguments.get(view.fn.name, ())):
            for v in self.by_name.get(name, []):
                if v is not view and (v.fn.is_template or v.fn.template_args):
                    yield v

    def kernel_by_name(self, name: str) -> list[FunctionView]:
        return [v for v in self.by_name.get(name, []) if v.fn.kind == "kernel"]


def _resolved(by_name: dict[str, list[FunctionView]], call: Node) -> list[FunctionView]:
    """The functions a call may run: the exact instantiation where the call names it, else every overload."""
    named = by_name.get(call.op, [])
    return [v for v in named if call.ref and v.fn.usr == call.ref] or named
